"""`suanli migrate check` keeps its trace under `$SUANLI_HOME/cache/` (buyer review 2026-12-01, defect 12: 6–8 s a
check, ~5 s of it building and tracing): the same config, task, op list, torch/transformers/torch_npu and suanli
versions read the trace back without tracing; another key (a changed `OpTrace` schema, tracing code or cache format
included) traces again; a broken or foreign entry is ignored; the entry is written atomically (no temporary file
left); stale entries are pruned. Runs without torch: the tracer is a stand-in."""

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


def test_a_changed_optrace_schema_misses_the_cache(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """A field added to `OpTrace` (with a default, so an old entry still validates) makes the old entry miss: it
    is not served with `cached=True` and the default filled in; the new entry replaces it."""
    tracer = Tracer()
    _get(tracer)

    class Wider(OpTrace):
        fused: dict[str, int] = {}

    monkeypatch.setattr(trace_cache, "OpTrace", Wider)
    again = _get(tracer)
    assert tracer.calls == 2 and not again.cached
    assert _get(tracer).cached and tracer.calls == 2
    assert len(list((home / "cache").glob("trace-*.json"))) == 1  # the old-schema entry is gone


def test_format_and_tracing_code_are_in_the_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    key = trace_key(CFG, name="m", task="inference", op_list_version="2.6.0", keep_whole=["linear"])
    assert key["format"] == trace_cache.TRACE_CACHE_FORMAT and key["optrace_schema_sha256"]
    assert {f.name for f in trace_cache._TRACER_FILES} == {"ops.py", "__init__.py", "coverage.py"}
    assert all(f.is_file() for f in trace_cache._TRACER_FILES)
    code = tmp_path / "ops.py"
    code.write_text("v1")
    monkeypatch.setattr(trace_cache, "_TRACER_FILES", (code,))
    tracer = Tracer()
    _get(tracer)
    code.write_text("v2")  # the tracer edited: traced again
    _get(tracer)
    monkeypatch.setattr(trace_cache, "TRACE_CACHE_FORMAT", 99)
    _get(tracer)
    assert tracer.calls == 3


def test_writing_prunes_stale_entries(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    """The same request's entries from another version go, old-layout entries go, other requests stay."""
    tracer = Tracer()
    _get(tracer)
    _get(tracer, task="training")
    legacy = home / "cache" / ("trace-" + "0" * 24 + ".json")
    legacy.write_text("{}")
    other = home / "cache" / "other.json"  # not a trace entry: left alone
    other.write_text("{}")
    monkeypatch.setattr(trace_cache, "_version", lambda dist: "9.9.9" if dist == "torch" else None)
    _get(tracer)
    assert tracer.calls == 3
    names = sorted(p.name for p in (home / "cache").iterdir())
    assert len(names) == 3 and "other.json" in names and legacy.name not in names
    assert _get(tracer, task="training").cached is False  # its entry was for the old torch: kept until rewritten
    assert len(list((home / "cache").glob("trace-*.json"))) == 2


def test_the_folder_is_capped(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.setattr(trace_cache, "MAX_ENTRIES", 3)
    tracer = Tracer()
    for layers in range(5):
        _get(tracer, cfg={**CFG, "num_hidden_layers": layers})
    assert len(list((home / "cache").glob("trace-*.json"))) == 3
    assert _get(tracer, cfg={**CFG, "num_hidden_layers": 4}).cached  # the newest kept


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
