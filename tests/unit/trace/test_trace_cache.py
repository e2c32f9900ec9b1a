"""`suanli migrate check` keeps its trace under `$SUANLI_HOME/cache/` (buyer review 2026-12-01, defect 12: 6–8 s a
check, ~5 s of it building and tracing): the same config, task, op list, torch/transformers/torch_npu and suanli
versions read the trace back without tracing; another key traces again; a broken or foreign entry is ignored; the
entry is written atomically (no temporary file left). Runs without torch: the tracer is a stand-in."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from suanli.migrate.coverage import OpTrace
from suanli.trace import cache as trace_cache
from suanli.trace.cache import cached_trace, trace_key

CFG: dict[str, Any] = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32}


def _trace() -> OpTrace:
    return OpTrace(model="m", task="inference", device="meta", ops={"mm": 64, "add.Tensor": 32},
                   decompositions={"linear": {"mm": 1}}, build_s=2.6, trace_s=2.2, warnings=["w"],
                   warnings_i18n=[{"id": "mig.warn.moe_shrunk", "params": {}}])


class Tracer:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self) -> OpTrace:
        self.calls += 1
        return _trace()


def _get(tracer: Tracer, cfg: dict[str, Any] = CFG, task: str = "inference", ops: str = "2.6.0") -> OpTrace:
    return cached_trace(cfg, name="m", task=task, op_list_version=ops, keep_whole=["linear"], trace=tracer)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SUANLI_HOME", str(tmp_path))
    monkeypatch.delenv("SUANLI_NO_CACHE", raising=False)
    return tmp_path


def test_second_run_reads_the_cache(home: Path) -> None:
    tracer = Tracer()
    first = _get(tracer)
    second = _get(tracer)
    assert tracer.calls == 1 and not first.cached and second.cached
    assert second.ops == first.ops and second.decompositions == first.decompositions
    assert second.warnings_i18n == first.warnings_i18n and second.build_s == 2.6  # the excluded field kept too
    files = list((home / "cache").iterdir())
    assert len(files) == 1 and files[0].name.startswith("trace-") and files[0].suffix == ".json"  # no *.tmp left


@pytest.mark.parametrize("change", [{"cfg": {**CFG, "num_hidden_layers": 16}}, {"task": "training"}, {"ops": "2.1.0"}])
def test_another_key_traces_again(change: dict[str, Any]) -> None:
    tracer = Tracer()
    _get(tracer)
    _get(tracer, **change)
    assert tracer.calls == 2


def test_versions_are_in_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    key = trace_key(CFG, name="m", task="inference", op_list_version="2.6.0", keep_whole=["linear"])
    assert {"config_sha256", "task", "torch_npu_op_list", "torch", "transformers", "torch_npu", "suanli"} <= set(key)
    tracer = Tracer()
    _get(tracer)
    monkeypatch.setattr(trace_cache, "_version", lambda dist: "9.9.9" if dist == "torch" else None)
    _get(tracer)  # another torch: traced again
    assert tracer.calls == 2


def test_broken_or_foreign_entries_are_ignored(home: Path) -> None:
    tracer = Tracer()
    _get(tracer)
    (entry,) = (home / "cache").glob("trace-*.json")
    for text in ("{not json", json.dumps({"key": {"other": 1}, "trace": {}}), json.dumps([1, 2]),
                 json.dumps({"key": json.loads(entry.read_text())["key"], "trace": {"ops": "x"}})):
        entry.write_text(text)
        assert not _get(tracer).cached
    assert tracer.calls == 5 and _get(tracer).cached  # rewritten whole by the last trace


def test_no_cache_env(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setenv("SUANLI_NO_CACHE", "1")
    tracer = Tracer()
    _get(tracer)
    _get(tracer)
    assert tracer.calls == 2 and not (home / "cache").exists()


def test_migrate_check_uses_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's second run does not trace; its stats line says the trace came from the cache."""
    import suanli.trace
    from typer.testing import CliRunner

    from suanli.cli.main import app

    tracer = Tracer()
    monkeypatch.setattr(suanli.trace, "trace_model", lambda cfg, **kw: tracer())
    outs = [CliRunner().invoke(app, ["--lang", lang, "migrate", "check", "--model", "llama-3.1-8b"],
                               env={"COLUMNS": "200"}) for lang in ("en", "en", "zh")]
    assert [o.exit_code for o in outs] == [0, 0, 0], outs[0].output
    assert tracer.calls == 1
    assert "trace read from the cache" not in outs[0].stdout and "trace read from the cache" in outs[1].stdout
    assert "追踪结果取自缓存" in outs[2].stdout
    js = CliRunner().invoke(app, ["migrate", "check", "--model", "llama-3.1-8b", "--json"])
    assert json.loads(js.stdout)["trace"]["cached"] is True
