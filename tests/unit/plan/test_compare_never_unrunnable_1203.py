"""compare never prices a training layout no framework runs, and its unpriced line names the real cause (buyer
review 2026-12-03, task H).

1. Qwen2.5-72B LoRA on 8 × RTX 4090: no layout LLaMA-Factory runs fits (plan: "does not fit ... the leanest layout
   needs 24.4 GiB per card"), yet compare's row ran tp8 · ZeRO 0 under no framework, "19/20, likely short, 661
   tok/s, 211 h, ¥3,173". The row now shows the layout plan's line names (`leanest_training_layout`), does not run,
   and has no hours, cost or speed; a device no framework runs at all has no fit and no speed either.
2. 8 × H20 on a 1-card offer: the unpriced line said "multi-node jobs need node or cluster offers"; the job is one
   node, the cause is the instance size (`no_rent_why`, plan's and compare's one sentence)."""

from __future__ import annotations

from typing import Any

from one_card_h20 import one_card_h20

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import no_rent_why, plan

ALL = ("listing", "index", "reference", "contract")


def _rows(cat: Catalog) -> dict[str, dict[str, Any]]:
    m = lookup.model(cat, "qwen2.5-72b")
    rows = compare_devices(cat, m, ["h20", "ascend-910b", "rtx-4090"], "lora", 8, tokens=5e8, kinds=ALL)
    return {r["device"]: r for r in rows}


def _plan_why(cat: Catalog) -> dict[str, Any]:
    m = lookup.model(cat, "qwen2.5-72b")
    r = plan(cat, m, make_request(model=m.id, task="lora", tokens=5e8, gpus=8, devices=("h20", "ascend-910b", "rtx-4090"),
                                  offer_kinds=ALL))
    return {w["device"]: w for w in r.why_not}


def test_a_layout_no_framework_fits_is_not_priced(cat: Catalog) -> None:
    r = _rows(cat)["rtx-4090"]
    assert r["runs"] is False and r["fits"] is False
    assert r["hours"] is None and r["cost_cny"] is None and r["job_cny_per_card_hour"] is None
    assert r["layout"]["framework"] == "llama-factory"  # the layout plan's line names, one LLaMA-Factory runs
    assert r["memory_needed_bytes"] > r["memory_usable_bytes"]  # its GiB cell says what the line says
    assert not r["likely_short"] and r["memory_likely_short"] is None
    why = _plan_why(cat)["rtx-4090"]
    assert r["layout_note_i18n"] == why["reason_i18n"] and r["layout_note"] == why["reason"]
    assert "24.4 GiB" in r["layout_note"]


def test_a_device_no_framework_runs_has_no_fit_speed_or_cost(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    r = compare_devices(cat, m, ["h100", "hygon-k100"], "lora", 8, tokens=1e8, kinds=ALL)[1]
    assert r["layout"]["framework"] is None and r["layout_note"]
    assert r["runs"] is False and r["fits"] is None
    assert r["tokens_per_s"] is None and r["hours"] is None and r["cost_cny"] is None


def test_unpriced_says_the_largest_instance_not_multi_node(cat: Catalog) -> None:
    cat = one_card_h20(cat)  # the H20 rented one card per instance (its 1-card index row only)
    r = _rows(cat)["h20"]
    assert r["runs"] and r["cost_cny"] is None
    why = r["no_price_i18n"]["params"]["why"]
    assert why == {"id": "why.train_no_instance", "params": {"largest": 1, "cards": 8}}
    assert "holds 1 card: separate instances cannot form one 8-card training job" in r["no_price"]
    assert _plan_why(cat)["h20"]["reason_i18n"] == why  # plan's why-not, the one sentence


def test_no_rent_why_training_within_a_node_names_the_instance() -> None:
    assert no_rent_why(1, 1, False, ranks=8, node_ranks=8).id == "why.train_no_instance"
    # a 910C: 16 dies on 1-card (2-die) instances, said in cards
    m = no_rent_why(1, 2, False, dies=2, ranks=16, node_ranks=16)
    assert (m.id, m.params) == ("why.train_no_instance", {"largest": 1, "cards": 8})
    # a multi-node job, or an instance that holds the job: the offers' other limits (as before)
    assert no_rent_why(1, 8, False, ranks=16, node_ranks=8).id == "why.no_usable_offer"
    assert no_rent_why(1, 1, False).id == "why.no_usable_offer"
    assert no_rent_why(4, 1, True, ranks=8, node_ranks=8).id == "why.serve_no_instance"
