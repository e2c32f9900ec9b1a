"""`suanli estimate --task qlora` without --precision names NF4, the precision plan and compare give the same job
(buyer review G, 2026-12-02: the header read "QLoRA fine-tuning · bf16" beside plan's "nf4" layout); the figures are
the ones the bf16 compute dtype gives (the base is 4-bit either way)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from suanli.cli.main import app

ENV = {"COLUMNS": "200"}
JOB = ["estimate", "--model", "qwen2.5-7b", "--task", "qlora", "--gpu", "rtx-4090", "--tokens", "1e7"]


def _json(*extra: str) -> dict:  # type: ignore[type-arg]
    r = CliRunner().invoke(app, [*JOB, *extra, "--json"], env=ENV)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)  # type: ignore[no-any-return]


def test_qlora_defaults_to_nf4_with_the_same_figures() -> None:
    default, compute = _json(), _json("--precision", "bf16")
    assert default["workload"]["precision"] == "nf4" and compute["workload"]["precision"] == "bf16"
    assert default["memory"]["per_gpu_bytes"] == compute["memory"]["per_gpu_bytes"]
    assert default["speed"]["train_tokens_per_s"] == compute["speed"]["train_tokens_per_s"]


def test_the_header_says_nf4() -> None:
    out = CliRunner().invoke(app, JOB, env=ENV).output
    assert "QLoRA fine-tuning · nf4 ·" in out.splitlines()[0], out.splitlines()[0]
