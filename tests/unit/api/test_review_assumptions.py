"""Review 2026-12-01 item 7: the CPU-Adam rate optimizer offload is timed with is `assumed` (frameworks.yaml, one
value both frameworks reference); every plan list and estimate that uses an offload layout says so (en + zh)."""

from __future__ import annotations

from typing import Any

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

ANY = dict(region="any", offer_kinds=("listing", "index", "reference"))


def _ids(msgs: list[dict[str, Any]]) -> list[str]:
    return [m["id"] for m in msgs]


def test_one_cpu_adam_value(cat) -> None:  # type: ignore[no-untyped-def]
    from suanli.catalog.load import DATA_DIR

    text = (DATA_DIR / "frameworks.yaml").read_text(encoding="utf-8")
    import re

    values = re.findall(r"cpu_adam_s_per_param: (?:&\w+ )?([0-9][^\s#]*)", text)
    assert values == ["2.57e-10"]  # the value once; deepspeed refers to it (a YAML alias)
    rates = {f.id: (f.cpu_adam_s_per_param, f.cpu_adam_source) for f in cat.frameworks if f.cpu_adam_s_per_param}
    assert rates["deepspeed"] == rates["llama-factory"] == (2.57e-10, "assumed")


def test_offload_plans_state_the_assumed_rate(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model=m.id, task="full", tokens=1e9, gpus=8, framework="deepspeed",
                                  devices=("a100-80g", "h800"), **ANY))
    assert r.plans and all(p.offload_optimizer for p in r.plans)
    assert "plan.assume.cpu_adam" in _ids(r.assumptions_i18n)
    said = next(Message.from_json(x) for x in r.assumptions_i18n if x["id"] == "plan.assume.cpu_adam")
    assert "2.57e-10 s per parameter" in render(said, "en") and "assumed" in render(said, "en")
    assert "假设" in render(said, "zh") and "2.57e-10" in render(said, "zh")
    # a plan without offload does not carry it
    plain = plan(cat, lookup.model(cat, "qwen2.5-7b"), make_request(model="qwen2.5-7b", task="lora", tokens=1e8))
    assert plain.plans and not any(p.offload_optimizer for p in plain.plans)
    assert "plan.assume.cpu_adam" not in _ids(plain.assumptions_i18n)


def test_offload_estimate_notes_the_assumed_rate(cat) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "llama-3.1-70b"), lookup.accelerator(cat, "h800")
    on = estimate(cat, m, acc, make_workload(task="full", gpus=8, zero=3, recompute="full", framework="deepspeed",
                                             offload_optimizer=True))
    off = estimate(cat, m, acc, make_workload(task="full", gpus=8, zero=3, recompute="full", framework="deepspeed"))

    def ids(e: Any) -> list[str]:
        return [n.get("id", "") if isinstance(n, dict) else "" for n in e.notes_i18n]

    assert "est.note.offload_cpu_adam_assumed" in ids(on)
    assert "est.note.offload_cpu_adam_assumed" not in ids(off)
    assert any("2.57e-10 s per parameter" in n and "assumed" in n for n in on.notes)
