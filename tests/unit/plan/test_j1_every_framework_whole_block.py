"""Task J1 (2026-12-01): full fine-tuning and pre-training search every framework the stack runs the task with, ranked
by the objective (a 32-card H20 compare row ran DeepSpeed ZeRO-3 at 3,713 tokens/s while Megatron-LM gave ~6,000),
each row naming its framework; a training plan on a whole-rented block with idle cards says what the same search
finds on all of the block's cards."""

from __future__ import annotations

from suanli.catalog import lookup
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import fastest_layout_why, plan

EVERY = dict(region="any", offer_kinds=("listing", "index", "reference"))


def test_compare_full_runs_the_faster_framework_and_names_it(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    rows = compare_devices(cat, m, ["910b3", "h20"], "full", 32, tokens=1e10)
    h20 = next(r for r in rows if r["device"] == "h20")
    assert h20["layout"]["framework"] == "megatron" and h20["layout"]["tp"] > 1
    assert h20["layout"]["label"].endswith("· megatron")
    assert h20["layout"]["label_i18n"]["id"] == "cmp.layout.training_fw"
    # what `plan --framework megatron` and `--framework deepspeed` lay out on those 32 cards: the faster of them
    req = make_request(model=m.id, task="full", tokens=1e10, gpus=32, precision="bf16")
    mega, _ = fastest_layout_why(cat, m, req.model_copy(update={"framework": "megatron"}), "h20")
    ds, _ = fastest_layout_why(cat, m, req.model_copy(update={"framework": "deepspeed"}), "h20")
    assert mega is not None and ds is not None and mega.tokens_per_s > 1.3 * ds.tokens_per_s
    assert h20["tokens_per_s"] == max(mega.tokens_per_s, ds.tokens_per_s)
    # every row names its framework, the 910B3's too
    assert all(r["layout"]["label"].endswith(f"· {r['layout']['framework']}") for r in rows)


def test_default_full_plan_is_no_worse_than_any_pinned_framework(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    # bf16 pinned: a pinned --framework megatron also searches FP8 on Hopper, the default's policy (DeepSpeed: bf16)
    # keeps full fine-tuning at bf16 under every framework
    kw = dict(model=m.id, task="full", tokens=1e10, objective="fastest", devices=("h200", "a100-80g"), precision="bf16",
              **EVERY)
    best = plan(cat, m, make_request(**kw)).plans[0]
    for fw in ("deepspeed", "megatron", "torchtitan"):
        pinned = plan(cat, m, make_request(**kw, framework=fw)).plans
        assert not pinned or best.hours <= pinned[0].hours + 1e-9, fw
    assert best.framework == "megatron"  # tp × pp beats ZeRO-3 on 64 cards
    r = plan(cat, m, make_request(**kw))
    searched = [a for a in r.assumptions_i18n if a["id"] == "plan.assume.frameworks_searched"]
    assert searched and "Megatron-LM" in searched[0]["params"]["others"]


def test_lora_keeps_its_default_framework(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model=m.id, task="lora", tokens=1e8, top=10))
    assert r.plans and {p.framework for p in r.plans} <= {"llama-factory", "mindspeed", "peft"}
    assert not any(a["id"] == "plan.assume.frameworks_searched" for a in r.assumptions_i18n)


def test_a_pinned_framework_is_the_only_one_searched(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    r = plan(cat, m, make_request(model=m.id, task="full", tokens=1e10, framework="deepspeed", top=10, **EVERY))
    assert r.plans and {p.framework for p in r.plans} == {"deepspeed"}


def test_whole_block_with_idle_cards_quotes_the_same_search_on_the_block(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    kw = dict(model=m.id, task="full", tokens=1e10, objective="fastest", devices=("a100-80g",),
              offer_kinds=("listing", "index", "reference"))
    p = plan(cat, m, make_request(**kw)).plans[0]
    ids = [w["id"] for w in p.warnings_i18n]
    assert "plan.warn.whole_block" in ids, ids
    k = ids.index("plan.warn.whole_block_all")
    assert ids[k - 1] == "plan.warn.whole_block"  # right after the idle-block line
    hint = p.warnings_i18n[k]["params"]
    block = hint["block"]
    whole = plan(cat, m, make_request(**{**kw, "gpus": block})).plans[0]
    assert whole.gpus == block and whole.hours < p.hours
    assert hint["cost"] == whole.total_cost_cny and hint["framework"] == whole.framework
    assert f"--gpus {block}" in p.warnings[k]
    # on the block itself nothing is idle: no hint
    assert not any(w["id"] == "plan.warn.whole_block_all" for w in whole.warnings_i18n)
