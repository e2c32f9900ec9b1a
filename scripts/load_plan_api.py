#!/usr/bin/env python3
"""Bounded load test of POST /api/plan on loopback, with the server in its own process (as users run it:
`suanli serve`), and a probe endpoint (GET /api/health) timed meanwhile.

    python scripts/load_plan_api.py                       # both scenarios below, one JSON line each
    python scripts/load_plan_api.py --markdown            # ... and the README's table
    python scripts/load_plan_api.py --scenario repeated --rate 200 --duration 10
    python scripts/load_plan_api.py --url http://127.0.0.1:8000   # an already running server (loopback only)

Scenarios: `repeated` sends one identical plan request at 200 req/s (served from the plan cache after the
first), `distinct` sends a different request each time at 20 req/s (every one runs the planner). Requests are
sent open-loop (on schedule, whether or not earlier ones have answered) by a pool of client threads with
keep-alive connections; latency is measured from the scheduled send time, so a server that falls behind shows
it in p99. The probe sends GET /api/health at 10 req/s during each scenario.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import platform
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

SCENARIOS = {"repeated": {"rate": 200.0, "distinct": 1}, "distinct": {"rate": 20.0, "distinct": 1_000_000}}


def _body(i: int, distinct: int) -> bytes:
    """LoRA on Qwen2.5-7B over every offer (any region, listings, indices and references): the heavier search."""
    k = i % distinct
    return json.dumps({"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8 + k * 1e5, "breakdown": True,
                       "region": "any", "offer_kinds": ["listing", "index", "reference"]}).encode()


def start_server() -> tuple[str, subprocess.Popen[bytes]]:
    """`suanli serve` on a free loopback port with a fresh SQLite database in a temporary SUANLI_HOME."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    home = tempfile.mkdtemp(prefix="suanli-load-")
    env = {**os.environ, "SUANLI_HOME": home}
    env.pop("SUANLI_DATABASE_URL", None)
    p = subprocess.Popen([sys.executable, "-m", "suanli.cli.main", "serve", "--port", str(port), "--log-level", "warning"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    t0 = time.time()
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/health", timeout=2).read()
            return url, p
        except OSError:
            if p.poll() is not None or time.time() - t0 > 120:
                p.kill()
                raise SystemExit(f"server did not start: {p.stderr.read().decode() if p.stderr else ''}") from None
            time.sleep(0.2)


def run_load(host: str, port: int, method: str, path: str, body: Callable[[int], bytes | None], rate: float,
             duration: float, clients: int, stop: threading.Event | None = None) -> dict[str, Any]:
    """Open-loop: request i is due at t0 + i / rate; its latency counts from then."""
    n = int(rate * duration)
    jobs: queue.Queue[tuple[int, float] | None] = queue.Queue()
    lat: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def call(conn: http.client.HTTPConnection, b: bytes | None) -> int:
        conn.request(method, path, body=b, headers={"Content-Type": "application/json"} if b else {})
        r = conn.getresponse()
        r.read()
        return r.status

    def worker() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        while (job := jobs.get()) is not None:
            i, due = job
            try:
                try:
                    status = call(conn, body(i))
                except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                    conn.close()  # the server closed an idle keep-alive connection: reconnect once
                    conn = http.client.HTTPConnection(host, port, timeout=60)
                    status = call(conn, body(i))
                done = time.perf_counter()
                with lock:
                    lat.append(done - due)
                    if status != 200:
                        errors.append(str(status))
            except Exception as e:  # noqa: BLE001 — counted as an error and the connection renewed
                with lock:
                    errors.append(type(e).__name__)
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=60)
        conn.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(clients)]
    for th in threads:
        th.start()
    t0 = time.perf_counter()
    sent = 0
    for i in range(n):
        if stop is not None and stop.is_set():
            break
        due = t0 + i / rate
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        jobs.put((i, due))
        sent += 1
    for _ in threads:
        jobs.put(None)
    for th in threads:
        th.join(180)
    wall = time.perf_counter() - t0
    lat.sort()

    def pct(p: float) -> float:
        return round(lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))] * 1000, 2) if lat else float("nan")

    return {"requests": sent, "answered": len(lat), "errors": len(errors),
            "error_kinds": {k: errors.count(k) for k in sorted(set(errors))}, "target_rate": rate,
            "wall_s": round(wall, 3), "requests_per_s": round(len(lat) / wall, 1),
            "p50_ms": pct(50), "p90_ms": pct(90), "p99_ms": pct(99),
            "max_ms": round(lat[-1] * 1000, 2) if lat else None,
            "mean_ms": round(statistics.fmean(lat) * 1000, 2) if lat else None}


def scenario(url: str, name: str, rate: float, distinct: int, duration: float, clients: int,
             probe_rate: float) -> dict[str, Any]:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    offset = int(time.time() * 1000) % 1_000_000 if distinct > 1 else 0  # a rerun does not hit the plan cache
    c = http.client.HTTPConnection(host, port, timeout=60)  # warm-up: one request (not timed)
    c.request("POST", "/api/plan", body=_body(offset, distinct), headers={"Content-Type": "application/json"})
    c.getresponse().read()
    c.close()
    probe: dict[str, Any] = {}
    stop = threading.Event()

    def run_probe() -> None:
        probe.update(run_load(host, port, "GET", "/api/health", lambda i: None, probe_rate, duration, 2, stop))

    th = threading.Thread(target=run_probe, daemon=True)
    th.start()
    main = run_load(host, port, "POST", "/api/plan", lambda i: _body(offset + 1 + i, distinct), rate, duration, clients)
    stop.set()
    th.join(120)
    return {"scenario": name, "distinct_bodies": min(distinct, int(rate * duration)), **main,
            "probe": {k: probe.get(k) for k in ("requests", "answered", "errors", "p50_ms", "p99_ms", "max_ms")}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="server base URL on loopback (default: start `suanli serve` in a new process)")
    ap.add_argument("--scenario", choices=[*SCENARIOS, "both"], default="both")
    ap.add_argument("--rate", type=float, help="requests per second (default: the scenario's, 200 or 20)")
    ap.add_argument("--duration", type=float, default=10.0, help="seconds of load per scenario")
    ap.add_argument("--clients", type=int, default=32, help="client threads (connections)")
    ap.add_argument("--probe-rate", type=float, default=10.0, help="GET /api/health per second meanwhile")
    ap.add_argument("--markdown", action="store_true", help="also print the README's table")
    a = ap.parse_args()
    if a.duration <= 0 or a.duration > 120 or (a.rate is not None and not 0 < a.rate <= 5000):
        raise SystemExit("rate in (0, 5000], duration in (0, 120] s")
    server = None
    if a.url:
        url = a.url
        if urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
            raise SystemExit("loopback only: --url must be http://127.0.0.1:PORT or http://localhost:PORT")
    else:
        url, server = start_server()
    names = list(SCENARIOS) if a.scenario == "both" else [a.scenario]
    results = []
    try:
        for name in names:
            sc = SCENARIOS[name]
            r = scenario(url, name, a.rate or float(sc["rate"]), int(sc["distinct"]), a.duration, a.clients, a.probe_rate)
            results.append(r)
            print(json.dumps(r), flush=True)
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    if a.markdown:
        when = dt.date.today().isoformat()
        machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
        print(f"\n{when}, {machine}, `suanli serve` in its own process, loopback, {a.duration:g} s per scenario:\n")
        print("| scenario | sent req/s | served req/s | errors | p50 ms | p90 ms | p99 ms | probe p50 ms | probe p99 ms |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in results:
            print(f"| {r['scenario']} | {r['target_rate']:g} | {r['requests_per_s']} | {r['errors']} | {r['p50_ms']} | "
                  f"{r['p90_ms']} | {r['p99_ms']} | {r['probe']['p50_ms']} | {r['probe']['p99_ms']} |")
    sys.exit(1 if any(r["errors"] for r in results) else 0)


if __name__ == "__main__":
    main()
