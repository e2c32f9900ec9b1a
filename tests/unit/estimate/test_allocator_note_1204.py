"""The fits margin for the caching allocator is a lower bound (GMLake's 15 % is the fragmentation it removes, not
PyTorch's whole loss): training estimates on a stack whose allocator setting is cited say so and name the setting
that avoids the loss with sequences of varying length; inference and stacks without a cited setting do not."""

from __future__ import annotations

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model
from suanli.estimate.memory import estimate_memory
from suanli.estimate.workload import make_workload


def _stack(stack_id: str):  # type: ignore[no-untyped-def]
    return next(s for s in packaged_catalog().stacks if s.id == stack_id)


def _ids(est) -> list[str]:  # type: ignore[no-untyped-def]
    return [n["id"] for n in est.notes_i18n]


@pytest.mark.parametrize("stack_id,env", [("cuda", "PYTORCH_CUDA_ALLOC_CONF"), ("cann", "PYTORCH_NPU_ALLOC_CONF")])
def test_training_names_the_allocator_setting(stack_id: str, env: str) -> None:
    m = model(packaged_catalog(), "qwen2.5-7b")
    est = estimate_memory(m, make_workload(task="lora", precision="bf16", batch=1, seq=4096), stack=_stack(stack_id))
    note = next(n for n in est.notes_i18n if n["id"] == "est.note.allocator_varlen")
    assert note["params"]["env"] == env
    assert note["params"]["pct"] == pytest.approx(0.15)
    assert f"{env}=expandable_segments:True" in est.notes[_ids(est).index("est.note.allocator_varlen")]


def test_not_for_inference_nor_without_a_cited_setting() -> None:
    m = model(packaged_catalog(), "qwen2.5-7b")
    serve = estimate_memory(m, make_workload(task="inference", precision="bf16"), stack=_stack("cuda"))
    assert "est.note.allocator_varlen" not in _ids(serve)
    bare = _stack("cuda").model_copy(update={"allocator_conf_env": None})
    train = estimate_memory(m, make_workload(task="lora", precision="bf16"), stack=bare)
    assert "est.note.allocator_varlen" not in _ids(train)


def test_the_margin_is_gmlakes_reduction_and_the_measured_losses_are_larger() -> None:
    frag = _stack("cuda").allocator_fragmentation
    assert frag.value == 0.15 and frag.chosen.source == "gmlake-2024"
    measured = [a for a in frag.values if a.source != "gmlake-2024"]
    assert measured and all(a.value > frag.value for a in measured)
