"""The in-process CLI fuzzer of issue 14: 2,000 argument lists (fixed seed) over the commands that read user
input, each run through the console-script entry point; none may end in a traceback (an exception escaping
`run()`), whatever the exit status. Heavy commands get small bounds so the test stays ~1–2 minutes."""

from __future__ import annotations

import contextlib
import io
import random
import sys
from pathlib import Path

import pytest

VALUES = ["", "0", "-1", "1", "2", "8", "1e308", "-1e308", "nan", "inf", "-inf", "1e-200", "5e-324", "2e12",
          "h100", "910b", "rtx-4090", "a100-80g", "qwen2.5-7b", "llama-2-7b", "flux.1-dev", "华为", "英伟达H100",
          "=1+2", "x" * 300, "lora", "inference", "full", "bf16", "int4", "hour", "month", "cn", "any",
          "cheapest", "fastest", "none", "selective", "vllm", "hf", "/nonexistent.json", "a,b", "'", '"', "\\"]
COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    # command: (options with a value, flags)
    "gpus": (["--vendor", "--market", "--min-memory-gib", "--sort"], ["--json", "--csv"]),
    "gpu": ([], ["--json"]),
    "models": (["--family"], ["--json", "--csv"]),
    "model": ([], ["--json"]),
    "offers": (["--device", "--provider", "--billing-unit"], ["--json", "--csv"]),
    "estimate": (["--model", "--gpu", "--task", "--gpus", "--precision", "--batch", "--seq", "--input", "--output",
                  "--tp", "--pp", "--ep", "--zero", "--recompute", "--optimizer", "--lora-rank", "--tokens",
                  "--engine", "--kv-dtype", "--grad-accum", "--method", "--resolution", "--steps"], ["--json"]),
    "plan": (["--model", "--task", "--tokens", "--requests-per-s", "--input", "--output", "--tpot", "--ttft",
              "--budget", "--deadline-hours", "--gpu", "--vendor", "--billing", "--region", "--subsidy",
              "--objective", "--top"], ["--json", "--domestic-only", "--no-migration"]),
    "tco": (["--gpu", "--gpus", "--hours", "--subsidy", "--tokens-per-s", "--utilization"], ["--json"]),
    "rent-vs-buy": (["--gpu", "--rent-price", "--utilization"], ["--json"]),
}
POSITIONAL = {"gpu", "model"}
BASES = [  # valid lists, each mutated by one or two hostile options, so the fuzzer also reaches the estimators
    ["estimate", "--model", "qwen2.5-7b", "--gpu", "rtx-4090"],
    ["estimate", "--model", "llama-2-7b", "--gpu", "h100", "--task", "lora", "--tokens", "1e8"],
    ["plan", "--model", "qwen2.5-0.5b", "--task", "lora", "--tokens", "1e7"],
    ["tco", "--gpu", "rtx-4090", "--hours", "10"],
    ["rent-vs-buy", "--gpu", "rtx-4090", "--rent-price", "2.45"],
]
N = 2000


def argument_lists(seed: int = 14) -> list[list[str]]:
    rng = random.Random(seed)
    out = []
    for _ in range(N):
        if rng.random() < 0.4:
            args = list(rng.choice(BASES))
            cmd = args[0]
            opts, flags = COMMANDS[cmd]
            for o in rng.sample(opts, k=rng.randint(0, 2)):
                args += [o, rng.choice(VALUES)]
        else:
            cmd = rng.choice(list(COMMANDS))
            opts, flags = COMMANDS[cmd]
            args = [cmd]
            if cmd in POSITIONAL or rng.random() < 0.05:
                args.append(rng.choice(VALUES))
            for o in rng.sample(opts, k=min(len(opts), rng.randint(0, 5))):
                args += [o, rng.choice(VALUES)]
        if cmd == "plan":
            args += ["--max-gpus", "8"]  # bounds the search: the fuzzer is about input, not planner speed
        for f in flags:
            if rng.random() < 0.3:
                args.append(f)
        if rng.random() < 0.03:
            args.append(rng.choice(["--nope", "-x", "--", "--json=1"]))
        out.append(args)
    return out


def test_fuzzer_is_fixed_and_large() -> None:
    a, b = argument_lists(), argument_lists()
    assert a == b and len(a) >= 2000 and len({tuple(x) for x in a}) > 1200


def test_no_traceback_for_any_argument_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from suanli.cli.main import run

    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))  # no database: the packaged catalog
    monkeypatch.delenv("SUANLI_DATABASE_URL", raising=False)
    monkeypatch.setenv("COLUMNS", "120")
    tracebacks = []
    for args in argument_lists():
        monkeypatch.setattr(sys, "argv", ["suanli", *args])
        out, err = io.StringIO(), io.StringIO()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                run()
        except SystemExit:
            pass
        except BaseException as e:  # noqa: BLE001 — this is what the test looks for
            tracebacks.append(f"{args}: {type(e).__name__}: {e}"[:400])
    assert not tracebacks, f"{len(tracebacks)} tracebacks, first: " + "\n".join(tracebacks[:10])
