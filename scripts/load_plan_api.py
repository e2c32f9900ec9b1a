#!/usr/bin/env python3
"""Bounded load test of POST /api/plan on loopback: a fixed number of requests at a fixed rate.

    python scripts/load_plan_api.py                      # starts its own server (tmp SQLite), 200 req/s for 10 s
    python scripts/load_plan_api.py --rate 200 --duration 10 --distinct 1
    python scripts/load_plan_api.py --url http://127.0.0.1:8000   # an already running `suanli serve` (loopback only)

Requests are sent open-loop (on schedule, whether or not earlier ones have answered) by a pool of client
threads with keep-alive connections; latency is measured from the scheduled send time, so a server that
falls behind shows it in p99. `--distinct N` cycles N different plan requests (1 = every request identical,
served from the plan cache after the first; use a large N to measure uncached planning).
Prints requests/s, p50, p90, p99 and max latency in ms, and the error count, as one JSON object.
"""

from __future__ import annotations

import argparse
import http.client
import json
import queue
import socket
import statistics
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit


def _body(i: int, distinct: int) -> bytes:
    k = i % distinct
    return json.dumps({"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8 + k * 1e6, "breakdown": True}).encode()


def _start_server() -> tuple[str, object]:
    import uvicorn

    from suanli.api import Settings, create_app

    db = tempfile.mkdtemp(prefix="suanli-load-") + "/suanli.db"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(Settings(database_url=f"sqlite:///{db}")), host="127.0.0.1",
                                           port=port, log_level="warning", access_log=False))
    threading.Thread(target=server.run, daemon=True).start()
    t0 = time.time()
    while not server.started:
        if time.time() - t0 > 60:
            raise SystemExit("server did not start")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", help="server base URL on loopback (default: start one in this process)")
    ap.add_argument("--rate", type=float, default=200.0, help="requests per second to send")
    ap.add_argument("--duration", type=float, default=10.0, help="seconds of load (requests = rate × duration)")
    ap.add_argument("--distinct", type=int, default=1, help="number of different plan requests cycled")
    ap.add_argument("--clients", type=int, default=32, help="client threads (connections)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed requests first (one per distinct body, at most this many)")
    a = ap.parse_args()
    if a.rate <= 0 or a.duration <= 0 or a.duration > 120 or a.rate > 5000 or a.distinct < 1:
        raise SystemExit("rate in (0, 5000], duration in (0, 120] s, distinct ≥ 1")
    url, server = (a.url, None) if a.url else _start_server()
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit("loopback only: --url must be http://127.0.0.1:PORT or http://localhost:PORT")
    host, port = parts.hostname, parts.port or 80

    def post(conn: http.client.HTTPConnection, body: bytes) -> int:
        conn.request("POST", "/api/plan", body=body, headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        return r.status

    c = http.client.HTTPConnection(host, port, timeout=60)
    for i in range(min(a.warmup, a.distinct)):
        post(c, _body(i, a.distinct))
    c.close()

    n = int(a.rate * a.duration)
    jobs: queue.Queue[tuple[int, float] | None] = queue.Queue()
    lat: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        while (job := jobs.get()) is not None:
            i, due = job
            try:
                try:
                    status = post(conn, _body(i, a.distinct))
                except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
                    conn.close()  # the server closed an idle keep-alive connection: reconnect once
                    conn = http.client.HTTPConnection(host, port, timeout=60)
                    status = post(conn, _body(i, a.distinct))
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

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(a.clients)]
    for th in threads:
        th.start()
    t0 = time.perf_counter()
    for i in range(n):
        due = t0 + i / a.rate
        delay = due - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        jobs.put((i, due))
    for _ in threads:
        jobs.put(None)
    for th in threads:
        th.join(120)
    wall = time.perf_counter() - t0
    lat.sort()

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))] * 1000 if lat else float("nan")

    out = {"url": url, "requests": n, "answered": len(lat), "errors": len(errors),
           "error_kinds": {k: errors.count(k) for k in sorted(set(errors))}, "target_rate": a.rate,
           "distinct_bodies": a.distinct, "wall_s": round(wall, 3), "requests_per_s": round(len(lat) / wall, 1),
           "p50_ms": round(pct(50), 2), "p90_ms": round(pct(90), 2), "p99_ms": round(pct(99), 2),
           "max_ms": round(lat[-1] * 1000, 2) if lat else None,
           "mean_ms": round(statistics.fmean(lat) * 1000, 2) if lat else None}
    print(json.dumps(out))
    if server is not None:
        server.should_exit = True  # type: ignore[attr-defined]
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
