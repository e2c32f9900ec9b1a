"""The Ascend 910C is two dies to every framework (buyer review, task die): npu-smi lists each A3 NPU as 2 chips of
65536 MB and HAMi schedules it as 2 NPUs of 64 GB, so torch_npu, MindSpeed, vLLM-Ascend and MindIE see 16 ranks of
64 GiB on an 8-card machine. `suanli plan --model qwen3-32b --task full --tokens 1e9 --domestic-only --offer-kinds
all` said "8× Huawei Ascend 910C … tp8·pp1·dp1 … 76.7 of 108.8 usable GiB per card": no rank holds 76.7 GiB, and
tp8 over 8 cards is not a launch layout. The estimator and planner now count ranks through `catalog.ranks` (one
division), offers stay per card; other devices are untouched."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.ranks import cards_of, dies_per_card, offer_in_ranks, rank_view, ranks_of
from suanli.cli.main import app
from suanli.plan.cost import billed_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.units import GiB

BUYER = ["plan", "--model", "qwen3-32b", "--task", "full", "--tokens", "1e9", "--domestic-only", "--offer-kinds", "all"]


def _cli(*args: str, lang: str = "en") -> str:
    out = CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    return out.output


def test_the_910c_is_two_ranks_of_its_cards_share() -> None:
    cat = packaged_catalog()
    card = lookup.accelerator(cat, "910c")
    assert dies_per_card(card) == 2
    assert {v.source for v in card.dies_per_card.values} >= {"npusmi-vllm-ascend-2534", "hami-device-configmap"}
    die = rank_view(card)
    assert die.specs.memory_gib.value == 64.0  # 65536 MiB a chip, as npu-smi lists it (GiB, not GB)
    assert die.specs.memory_bandwidth_gb_per_s.value == card.specs.memory_bandwidth_gb_per_s.value / 2
    assert die.specs.bf16_dense_tflops.value == card.specs.bf16_dense_tflops.value / 2
    assert die.max_cards_per_node == 16 and die.id == card.id
    assert rank_view(die) is die  # a rank of a rank is itself: never divided twice
    assert ranks_of(card, 8) == 16 and cards_of(card, 16) == 8 and cards_of(card, 1) == 1


def test_one_die_devices_are_unchanged() -> None:
    cat = packaged_catalog()
    for acc in cat.accelerators:
        if acc.id != "ascend-910c":
            assert dies_per_card(acc) == 1 and rank_view(acc) is acc, acc.id


def test_an_offer_in_ranks_bills_the_same_cards() -> None:
    cat = packaged_catalog()
    o = next(o for o in cat.offers if o.device == "ascend-910c")
    r = offer_in_ranks(o, 2)
    assert r.cards == 2 * o.cards and r.price_cny.value == o.price_cny.value  # the instance's price, unchanged
    unit_h = 1.0
    assert billed_cost(r.price_cny.value, unit_h, r.min_units, r.cards, 2 * o.cards, 10.0) == \
        billed_cost(o.price_cny.value, unit_h, o.min_units, o.cards, o.cards, 10.0)


def test_estimate_8_cards_is_16_ranks_of_64_gib() -> None:
    js = json.loads(_cli("estimate", "--model", "qwen3-32b", "--gpu", "910c", "--gpus", "8", "--json"))
    assert js["device"]["gpus"] == 16 and js["device"]["ranks"] == 16
    assert js["device"]["cards"] == 8 and js["device"]["dies_per_card"] == 2
    assert js["memory"]["capacity_bytes"] == 64 * GiB
    en = _cli("estimate", "--model", "qwen3-32b", "--gpu", "910c", "--gpus", "8")
    assert "8× Huawei Ascend 910C (16 dies)" in en and "per die" in en
    zh = _cli("estimate", "--model", "qwen3-32b", "--gpu", "910c", "--gpus", "8", lang="zh")
    assert "8 张华为昇腾 910C（16 个芯粒）" in zh and "每芯粒" in zh


def test_other_devices_estimate_json_has_no_die_fields() -> None:
    js = json.loads(_cli("estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--gpus", "8", "--json"))
    assert set(js["device"]) == {"id", "name", "gpus"} and js["device"]["gpus"] == 8


def test_the_buyers_plan_holds_at_most_64_gib_a_rank_in_a_launch_layout() -> None:
    cat = packaged_catalog()
    req = make_request(model="qwen3-32b", task="full", tokens=1e9, domestic_only=True,
                       offer_kinds=("listing", "index", "reference", "contract"),
                       devices=("910c",))
    r = plan(cat, lookup.model(cat, "qwen3-32b"), req)
    assert r.plans, r.why_not
    for p in r.plans:
        assert p.device == "ascend-910c" and p.dies_per_card == 2
        assert p.memory_capacity_bytes <= 64 * GiB and p.memory_needed_bytes <= p.memory_usable_bytes <= 64 * GiB
        assert p.tp * p.pp * p.dp == p.gpus and p.cards == p.gpus // 2  # tp/pp/dp count ranks: a launch layout
        assert f"{p.cards}× Huawei Ascend 910C ({p.gpus} dies)" in p.reason and "usable GiB per die" in p.reason


@pytest.mark.parametrize(("lang", "cards", "per"), [("en", "8 (16 dies)", "8× Huawei Ascend 910C (16 dies)"),
                                                    ("zh", "8（16 个芯粒）", "8 张华为昇腾 910C（16 个芯粒）")])
def test_plan_text_names_cards_and_dies(lang: str, cards: str, per: str) -> None:
    out = _cli(*BUYER, lang=lang)
    assert cards in out and per in out
    assert ("usable GiB per die" if lang == "en" else "每芯粒显存") in out
