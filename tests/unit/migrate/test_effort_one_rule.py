"""One migration-effort rule (`migrate.effort`): `migrate check` (coverage.classify) and `migrate cost` / plan
(plan.search.migration_weeks) charge the same weeks for every preset on every stack, for the same task and
libraries. The adapted lists are the task's: a model on the training list only (Mixtral-8x7B on MindSpeed-LLM) is
adapted for `--task full` but not for serving, and both commands say which task's lists they looked in."""

from __future__ import annotations

import pytest

from suanli.catalog.hf_config import to_hf_config
from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model as lookup_model
from suanli.catalog.lookup import stack as lookup_stack
from suanli.i18n import Message, render
from suanli.migrate.coverage import OpTrace, adapted_lists_for, cann_stack, classify, load_op_list
from suanli.migrate.effort import checkpoint_uses, complex_arch, list_use, stack_lists
from suanli.migrate.identity import identify_preset
from suanli.migrate.libraries import merge, resolve_uses
from suanli.plan.compare import migration_cost
from suanli.plan.search import migration_weeks

USES = ([], ["deepspeed"], ["bitsandbytes", "flash-attn"])  # none, one that runs on Ascend, two with no NPU build


def _check(m, stack, task: str, uses: list[str]):  # type: ignore[no-untyped-def]
    """migrate check's report for preset `m` with a clean trace (every operator on the NPU), as run_check builds it:
    the preset's names on the stack's lists, complex_arch from its config, its released checkpoint's dtype (FP8)."""
    trace = OpTrace(model=m.id, task=task, device="meta", torch_version="2.13.0", ops={"mm": 4})
    return classify(trace, load_op_list("2.13"), adapted_lists=stack_lists(stack, identify_preset(m).names),
                    stack=stack, moe_or_multimodal=complex_arch(m, to_hf_config(m) if m.kind == "llm" else None),
                    libraries=merge(checkpoint_uses(m, packaged_catalog()), resolve_uses(uses)))


@pytest.mark.parametrize("cost_task", ["inference", "full", "lora"])
def test_check_and_cost_charge_the_same_weeks_for_every_preset_and_stack(cost_task: str) -> None:
    cat = packaged_catalog()
    task = list_use(cost_task)  # migrate check's --task: inference, or training for full / lora
    for m in cat.models:
        for stack in cat.stacks:
            for uses in USES:
                rep = _check(m, stack, task, uses)
                lo, hi, why = migration_weeks(cat, stack, m, resolve_uses(uses), task=cost_task)
                where = f"{m.id} on {stack.id}, task {cost_task}, uses {uses}"
                assert rep.migration_weeks == (lo, hi), where
                # the same reason, but where check knows more: its clean trace says the weeks are for being unlisted
                basis = Message.from_json(rep.migration_basis_i18n or {})
                got = basis.params.get("why", basis) if basis.id == "mig.basis.chosen" else basis
                assert isinstance(got, Message)
                clean = not any(u.blocks for u in merge(checkpoint_uses(m, cat), resolve_uses(uses)))  # a library to port is something missing
                want = "migration.not_adapted_covered" if why.id == "migration.not_adapted" and clean else why.id
                assert got.id == want, where
                assert render(got.params.get("list", "")) == render(why.params.get("list", "")), where


def test_check_looks_up_the_lists_migrate_check_passes() -> None:  # run_check's adapted_lists_for: the CANN rows
    cat = packaged_catalog()
    cann = cann_stack(cat)
    for m in cat.models:
        names = identify_preset(m).names
        assert adapted_lists_for(cat, "", names) == stack_lists(cann, names)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mixtral_differs_by_task_and_says_which_lists(lang: str) -> None:
    cat = packaged_catalog()
    m, cann = lookup_model(cat, "mixtral-8x7b"), lookup_stack(cat, "cann")
    serving, training = (migration_weeks(cat, cann, m, task=t) for t in ("inference", "full"))
    assert serving[:2] == (4.0, 8.0) and training[:2] == (1.0, 8.0)  # MoE: off the serving lists; on MindSpeed-LLM
    assert _check(m, cann, "inference", []).migration_weeks == serving[:2]
    assert _check(m, cann, "training", []).migration_weeks == training[:2]
    s, t = render(serving[2], lang), render(training[2], lang)
    if lang == "en":
        assert "not on the Huawei Ascend CANN adapted lists for inference (vLLM-Ascend" in s and "MindIE-LLM" in s
        assert "on the Huawei Ascend CANN adapted list for training (MindSpeed-LLM supported models)" in t
        assert "for inference (vLLM-Ascend" in _check(m, cann, "inference", []).migration_basis
    else:
        assert "不在华为昇腾 CANN 推理适配清单（vLLM-Ascend" in s
        assert "在华为昇腾 CANN 训练适配清单（MindSpeed-LLM 支持的模型）中" in t
    out = migration_cost(cat, m, "ascend-910b", "h800", saving=1000.0, task="inference")
    assert tuple(out["calendar_weeks"]) == (4.0, 8.0) and "for inference" in out["weeks_reason"]


def test_fp8_checkpoint_is_charged_alike_by_check_cost_and_plan() -> None:
    """DeepSeek-V3 ships FP8 weights only (ModelArch.native_dtype): converting them (msModelSlim W8A8/W4A8, or bf16)
    is a conversion step, not a port (buyer review 2026-12-02), so `migrate check`, `migrate cost` and plan all charge
    its lists' range on the 910B — 1–8 weeks, the MoE span Qwen3-235B-A22B gets — and cost lists the conversion."""
    from suanli.plan.request import make_request
    from suanli.plan.search import plan

    cat = packaged_catalog()
    m, cann = lookup_model(cat, "deepseek-v3"), lookup_stack(cat, "cann")
    assert [u.id for u in checkpoint_uses(m, cat)] == ["fp8"]
    for task in ("inference", "full"):
        lo, hi, why = migration_weeks(cat, cann, m, task=task)  # no library passed: the checkpoint's counts
        assert (lo, hi) == (1.0, 8.0) and why.id == "migration.adapted_moe", task
        assert _check(m, cann, list_use(task), []).migration_weeks == (lo, hi), task
        out = migration_cost(cat, m, "ascend-910b", "h800", saving=1000.0, task=task)
        assert tuple(out["calendar_weeks"]) == (lo, hi), task
        assert [(u["id"], u["status"]) for u in out["libraries"]] == [("fp8", "convert")], task
    r = plan(cat, m, make_request(model="deepseek-v3", task="inference", devices=("ascend-910b",), requests_per_s=1.0,
                                      precision="any"))  # 8-bit needs two nodes: no 910B offer joins nodes
    assert r.plans and all(tuple(p.migration_weeks) == (1.0, 8.0) for p in r.plans)
    # a 16-bit preset has no checkpoint use: its weeks are its list's
    assert checkpoint_uses(lookup_model(cat, "qwen2.5-7b"), cat) == []


def test_migrate_check_traces_the_fp8_checkpoint_to_the_same_weeks() -> None:
    pytest.importorskip("torch", reason="tracing needs the optional `torch` extra; `make test` installs it")
    from suanli.migrate.check import run_check

    cat = packaged_catalog()
    report, _ = run_check("deepseek-v3", task="inference")
    lo, hi, _why = migration_weeks(cat, lookup_stack(cat, "cann"), lookup_model(cat, "deepseek-v3"), task="inference")
    assert report.verdict == "npu-native" and report.migration_weeks == (lo, hi) == (1.0, 8.0)
