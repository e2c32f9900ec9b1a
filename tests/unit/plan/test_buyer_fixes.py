"""Planner defects a buyer in China found (single-card VMs combined into jobs, minimum terms hidden, frameworks
that cannot run the job, relax hints for pins, export control)."""

from __future__ import annotations

from suanli.catalog import lookup
from suanli.catalog.offers import max_cards
from suanli.catalog.schema import Offer
from suanli.plan.request import make_request
from suanli.plan.search import plan


def _card_offer(**kw):  # type: ignore[no-untyped-def]
    base = dict(id="x", provider="p", device="l20", cards=1, billing_unit="hour", instance="vm",
                price_cny={"value": 5.0, "source": "s"}, date="2026-11", source="s")
    base.update(kw)
    return Offer.model_validate(base)


# ---------------------------------------------------------------------------------------------- 1. single-card VMs


def test_a_single_card_vm_holds_one_card_unless_the_offer_says_more() -> None:
    assert max_cards(_card_offer(), 8) == 1
    assert max_cards(_card_offer(max_cards_per_order=4), 8) == 4
    assert max_cards(_card_offer(multi_card_instance=True), 8) == 8
    assert max_cards(_card_offer(multi_card_instance=True, stock=3), 8) == 3


def test_autodl_rents_n_cards_of_one_host_and_says_where(cat) -> None:  # type: ignore[no-untyped-def]
    o = next(o for o in cat.offers if o.id == "ninehills-autodl-rtx4090-hour")
    assert o.multi_card_instance and max_cards(o, 8) == 8
    assert "N块GPU卡" in cat.sources["autodl-docs-env"].title


def test_single_card_vms_never_form_a_multi_card_training_job(cat) -> None:  # type: ignore[no-untyped-def]
    for model, task, tokens, gpus in (("qwen2.5-72b", "lora", 1e9, None), ("qwen2.5-14b", "full", 2e9, 8)):
        r = plan(cat, lookup.model(cat, model), make_request(model=model, task=task, tokens=tokens, gpus=gpus, top=20))
        offers = {o.id: o for o in cat.offers}
        for p in r.plans:
            o = offers[p.offer]
            assert p.gpus <= max_cards(o, lookup.accelerator(cat, p.device).max_cards_per_node), (p.device, p.offer)
        assert not any(p.offer in ("shengsuanyun-mtt-s4000-1card-hour", "ctyun-l20-1card-hour") and p.gpus > 1
                       for p in r.plans)


def test_serving_replicas_may_use_separate_instances_but_a_tp_group_stays_in_one(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"),
             make_request(model="qwen2.5-72b", task="inference", requests_per_s=2, top=20))
    offers = {o.id: o for o in cat.offers}
    assert r.plans
    for p in r.plans:
        o = offers[p.offer]
        assert p.tp <= max_cards(o, lookup.accelerator(cat, p.device).max_cards_per_node), (p.device, p.offer, p.tp)
    # one card per replica on single-card VMs is legitimate: the 7B fits one L20
    r7 = plan(cat, lookup.model(cat, "qwen2.5-7b"),
              make_request(model="qwen2.5-7b", task="inference", requests_per_s=20, devices=("l20",), tp=1))
    assert r7.plans and r7.plans[0].replicas and r7.plans[0].replicas >= 1 and r7.plans[0].tp == 1


# ---------------------------------------------------------------------------------------------- 2. minimum terms


def test_a_minimum_contract_term_is_named_in_the_warning(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"),
             make_request(model="qwen2.5-72b", task="full", tokens=5e9, offer_kinds=("listing", "index"),
                          devices=("h200",), gpus=16))  # 16 cards: on 8, ZeRO-Offload now fits one monthly node
    p = next(p for p in r.plans if p.offer.startswith("smm-h200") and "cluster" in p.offer)
    assert any(w.startswith("minimum 60 months") and "43,800 h" in w for w in p.warnings), p.warnings
    assert not any(w.startswith("billed per month") for w in p.warnings)
    assert any(w["id"] == "cost.note.min_units" for w in p.warnings_i18n)  # the one rule (`cost.billing_note`)


def test_a_block_rented_whole_is_billed_whole_in_plan_and_job_cost(cat) -> None:  # type: ignore[no-untyped-def]
    from suanli.plan.cost import job_cost
    o = next(o for o in cat.offers if o.id == "smm-a100-80g-ib-cluster-2026-07")
    assert o.min_cards_per_order == 256
    c = job_cost(o, 32, 100.0)
    assert c.instances == 32 and c.cards_rented == 256 and c.cost_cny == 32 * o.price_cny.value
    assert any("rented whole" in n for n in c.notes)
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"),
             make_request(model="qwen2.5-72b", task="full", tokens=5e9, offer_kinds=("listing", "index"),
                          devices=("a100-80g",), top=1))
    p = r.plans[0]
    if p.offer == o.id:
        assert p.cost_cny == 32 * o.price_cny.value
        assert any(w["id"] == "plan.warn.whole_block" for w in p.warnings_i18n)
    # H200 quotes name 64 / 256 machines in stock but not a whole-block lease: no minimum order there
    assert all(x.min_cards_per_order is None for x in cat.offers if x.id.startswith("smm-h200"))


# ---------------------------------------------------------------------------------------------- 3. frameworks


def test_no_megatron_lora_and_no_deepspeed_pipeline_lora(cat) -> None:  # type: ignore[no-untyped-def]
    import pytest
    from suanli.errors import InputError
    fws = {f.id: f for f in cat.frameworks}
    assert "lora" not in fws["megatron"].tasks
    assert fws["deepspeed"].pp and "lora" not in fws["deepspeed"].pp_tasks and "full" in fws["deepspeed"].pp_tasks
    m = lookup.model(cat, "qwen2.5-72b")
    r = plan(cat, m, make_request(model="qwen2.5-72b", task="lora", tokens=1e9, pp=2, top=20))
    assert all(p.framework != "deepspeed" for p in r.plans) and all(p.pp == 2 for p in r.plans)
    # LoRA in FP8 runs under NeMo (PEFT on Megatron-Core with Transformer Engine FP8: megatron-bridge-peft,
    # megatron-bridge-mixed-precision), on devices with FP8 tensor cores only
    fp8 = plan(cat, m, make_request(model="qwen2.5-72b", task="lora", tokens=1e9, precision="fp8"))
    assert {p.framework for p in fp8.plans} <= {"nemo"}
    assert all(lookup.accelerator(cat, p.device).specs.fp8_dense_tflops is not None for p in fp8.plans)
    with pytest.raises(InputError, match="no framework in the catalog runs qlora with --precision fp8"):
        plan(cat, m, make_request(model="qwen2.5-72b", task="qlora", tokens=1e9, precision="fp8"))
    r = plan(cat, m, make_request(model="qwen2.5-72b", task="lora", tokens=1e9, framework="megatron", tp=4, pp=2, vpp=2))
    assert not r.plans


# ---------------------------------------------------------------------------------------------- 4. relax hints


def test_relax_names_the_pin_that_rules_every_device_out(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    for kw, pin in ((dict(task="full", framework="megatron", devices=("910b",)), "--framework megatron"),
                    (dict(task="lora", framework="llama-factory", pp=2), "--pp 2"),
                    (dict(task="qlora", framework="megatron"), "--framework megatron"),
                    (dict(task="inference", engine="trt-llm", domestic_only=True), "--engine trt-llm")):
        r = plan(cat, m, make_request(model="qwen2.5-72b", tokens=1e9, **kw))
        assert not r.plans and len(r.relax) == 1 and pin in r.relax[0] and "max-gpus" not in r.relax[0], (kw, r.relax)
    # TensorRT-LLM runs on CUDA only (SGLang and LMDeploy run on CANN too: frameworks.yaml cann-engines)
    r = plan(cat, m, make_request(model="qwen2.5-72b", tokens=1e9, task="inference", engine="trt-llm", domestic_only=True))
    first8 = {w["device"] for w in r.why_not[:8]}
    assert {"ascend-910b", "mtt-s4000"} <= first8
    w = next(w for w in r.why_not if w["device"] == "ascend-910b")
    assert "trt-llm" in w["reason"] and "vllm-ascend" in w["reason"]


# ---------------------------------------------------------------------------------------------- 5. export control


def test_export_controlled_devices_warn_whatever_the_offers_region(cat) -> None:  # type: ignore[no-untyped-def]
    from suanli.catalog.offers import china_export_controlled
    assert china_export_controlled(lookup.accelerator(cat, "b200"))
    assert not china_export_controlled(lookup.accelerator(cat, "h20"))
    assert not china_export_controlled(lookup.accelerator(cat, "ascend-910b"))
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"),
             make_request(model="qwen2.5-72b", task="full", tokens=1e9, devices=("b200",)))
    p = r.plans[0]
    assert p.offer.startswith("omniyq")  # a Chinese listing
    assert any(w["id"] == "plan.warn.china_export" for w in p.warnings_i18n)
    assert "export-controlled" in p.reason
