"""Task J2 (buyer review 2026-12-01): a training plan shows the step it was worked out for (--seq 2048 and
--global-batch 64 when not typed, marked default) in its header and assumptions; --seq is checked against the
context of the checkpoint the plan names (the base Qwen/Qwen2.5-72B: 131,072, not the -Instruct's 32,768); a
training plan without tokens names --tokens (API: tokens); with nothing planned, the hint for the binding limit
(the deadline) comes before another framework's measure; migrate check takes migrate cost's task names."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import ModelArch
from suanli.cli import main as cli_main
from suanli.cli.main import app
from suanli.errors import InputError, error_text
from suanli.i18n import render
from suanli.plan.request import make_request
from suanli.plan.search import plan

runner = CliRunner()


def test_training_checks_the_base_checkpoints_context() -> None:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-72b")
    src = cat.sources[m.base_max_context_source or ""]
    assert m.base_max_context == 131072 and "Qwen2.5-72B/blob/main/config.json" in str(src.url)
    assert lookup.context_of(m, "full") == 131072 and lookup.context_of(m, "inference") == 32768
    assert lookup.context_of(m, "full", "qwen2.5-72b-instruct") == 32768  # the tuned one, asked for by name
    assert lookup.context_of(lookup.model(cat, "qwen2-72b"), "lora") == 131072
    with pytest.raises(ValueError):  # a context read is cited, and is a base checkpoint's
        ModelArch.model_validate({**m.model_dump(), "base_max_context_source": None})


def test_plan_seq_refusal_names_the_base_and_its_context() -> None:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-72b")
    with pytest.raises(InputError) as e:
        plan(cat, m, make_request(model="qwen2.5-72b", task="full", tokens=1e9, seq=1_000_000))
    assert e.value.field == "seq"
    text = render(e.value.i18n) if e.value.i18n else str(e.value)
    assert "Qwen/Qwen2.5-72B's context of 131,072" in text, text
    with pytest.raises(InputError) as e:  # serving: the -Instruct's 32,768
        plan(cat, m, make_request(model="qwen2.5-72b", requests_per_s=1, input=40_000))
    assert "Qwen/Qwen2.5-72B-Instruct's context of 32,768" in (render(e.value.i18n) if e.value.i18n else str(e.value))
    r = plan(cat, m, make_request(model="qwen2.5-72b", task="full", tokens=1e9, seq=65536, top=1))
    assert not any("context" in a for p in r.plans for a in (*p.warnings, p.reason)), r.plans[0].warnings


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_step_is_in_the_header_and_the_assumptions(lang: str) -> None:
    r = runner.invoke(app, ["--lang", lang, "plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8",
                            "--seq", "4096", "--top", "1"], env={"COLUMNS": "400"})
    assert r.exit_code == 0, r.output
    head = r.output.splitlines()[0]
    if lang == "en":
        assert "64 sequences (default) × 4,096 tokens = 262,144 tokens per step" in head, head
        assert "training step: 64 sequences (default; --global-batch) of 4,096 tokens = 262,144" in r.output
    else:
        assert "每步 64 条序列（默认值），每条 4,096 个 token = 每步 262,144 个 token" in head, head
        assert "每个优化器步 64 条序列（默认值；--global-batch），每条 4,096 个 token，共 262,144" in r.output


def test_the_step_assumption_on_the_api_names_fields() -> None:
    cat = packaged_catalog()
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8, top=1))
    step = next(a for a in r.assumptions_i18n if a["id"] == "plan.assume.step")
    assert step["params"]["seq"] == 2048 and step["params"]["global_batch"] == 64
    from suanli.i18n import Message

    api = render(Message.from_json(step), "en", "api")
    assert "--" not in api and "global_batch" in api and "131,072 tokens per optimizer step" in api, api

    from fastapi.testclient import TestClient

    from suanli.api.app import create_app

    c = TestClient(create_app())
    body = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "top": 1}
    for extra, marked in (({}, 2), ({"seq": 2048}, 1)):  # a value sent is no default, though equal to it
        out = c.post("/api/plan", json={**body, **extra}).json()
        line = next(a for a in out["assumptions"] if a.startswith("training step"))
        assert line.count("(default; `") == marked, line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_training_without_tokens_names_the_flag(lang: str) -> None:
    r = runner.invoke(app, ["--lang", lang, "plan", "--model", "qwen2.5-7b", "--task", "full"], env={"COLUMNS": "200"})
    e = r.exception
    assert isinstance(e, InputError) and e.field == "tokens", e
    line = cli_main._field_line(error_text(e, lang), e)
    assert line.startswith("--tokens") and "plan:" not in line and "方案：" not in line, line


def test_training_without_tokens_names_the_field_at_the_api() -> None:
    from fastapi.testclient import TestClient

    from suanli.api.app import create_app

    res = TestClient(create_app()).post("/api/plan", json={"model": "qwen2.5-7b", "task": "full"})
    assert res.status_code in (400, 422), res.text
    body = res.text
    assert "tokens" in body and "--tokens" not in body, body


def test_deadline_hint_comes_before_the_other_frameworks_measure() -> None:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-72b")
    r = plan(cat, m, make_request(model="qwen2.5-72b", task="full", tokens=1e9, deadline_hours=0.01))
    assert not r.plans and r.relax_i18n
    assert r.relax_i18n[0]["id"].startswith("relax.deadline"), [x["id"] for x in r.relax_i18n]


@pytest.mark.parametrize(("task", "want"), [("full", "training"), ("lora", "training"), ("qlora", "training"),
                                            ("pretrain", "training"), ("training", "training"),
                                            ("inference", "inference")])
def test_migrate_check_takes_migrate_costs_task_names(task: str, want: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from suanli.cli import migrate_cmd

    seen: list[str] = []

    def fake(model: str, task: str, *args: object, **kw: object) -> None:
        seen.append(task)
        raise SystemExit(0)

    monkeypatch.setattr(migrate_cmd, "run_check", fake)
    runner.invoke(migrate_cmd.app, ["check", "--model", "qwen2.5-7b", "--task", task])
    assert seen == [want]


def test_migrate_check_refuses_another_task_naming_the_allowed_ones() -> None:
    from suanli.cli import migrate_cmd

    r = runner.invoke(migrate_cmd.app, ["check", "--model", "qwen2.5-7b", "--task", "finetune"])
    e = r.exception
    assert isinstance(e, InputError) and e.field == "task"
    assert "full, lora, qlora, pretrain" in str(error_text(e, "en")), error_text(e, "en")
