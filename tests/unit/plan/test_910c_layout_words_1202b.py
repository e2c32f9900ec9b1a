"""A 910C's sentences say its layout in the one formatter's words (`labels.replica_words` with the card's dies; task
B, 2026-12-02). Before: plan's reasons and relax hints on a 910C printed "36 × 8-die vllm-ascend replicas" and
"48 × 4-die replicas" for layouts of expert-parallel groups (36×tp8·ep2, 48×tp4·ep4: 18 and 12 groups of 8 cards,
16 dies, sharing experts), as their `_dies` wordings spelled replicas × tp themselves; compare's "serves" line said
"GiB per card needed" of a die's figure."""

from __future__ import annotations

import datetime as dt

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices
from suanli.plan.labels import replica_words
from suanli.plan.request import make_request
from suanli.plan.search import PlanResult, plan
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 2)
ALL = ("listing", "index", "reference", "contract")
USERS = {"model": "deepseek-r1", "task": "inference", "devices": ("910c",), "offer_kinds": ALL,
         "concurrent_users": 500, "tpot_s": 0.05}


def _plan(cat: Catalog, **kw: object) -> PlanResult:
    return plan(cat, lookup.model(cat, "deepseek-r1"), make_request(**{**USERS, **kw}), TODAY, packaged_error_bands())


def test_plan_reason_names_910c_expert_groups_in_cards_and_dies(cat: Catalog) -> None:
    r = _plan(cat, max_gpus=144)
    grouped = [p for p in r.plans if p.ep > 1]
    assert grouped, [(p.tp, p.ep) for p in r.plans]
    for p in grouped:
        words = replica_words(p.replicas or p.dp, p.tp, p.ep, p.engine, dies=2)
        assert words.id == "layout.ep_groups_engine_dies"
        reason = Message.from_json(p.reason_i18n)
        for lang in ("en", "zh"):
            assert render(words, lang) in render(reason, lang), render(reason, lang)
        assert "-die vllm-ascend replicas" not in p.reason and "sharing experts" in p.reason


def test_plan_relax_hints_name_910c_expert_groups_in_cards_and_dies(cat: Catalog) -> None:
    r = _plan(cat)  # within the default card limit no layout serves 500 users: "needs at least N cards"
    assert not r.plans
    cards = [Message.from_json(x) for x in r.relax_i18n if str(x["id"]).startswith("relax.cards")]
    assert cards and all(m.id.endswith("_dies") for m in cards), [m.id for m in cards]
    for m in cards:
        for key in ("layout", "p_layout"):
            if key not in m.params:
                continue
            words = m.params[key]
            assert "(16 dies) sharing experts" in render(words), render(words)  # the groups, cards with dies
            for lang in ("en", "zh"):
                assert render(words, lang) in render(m, lang), render(m, lang)
        assert "-die replicas" not in render(m)


def test_tpot_hint_names_910c_expert_groups(cat: Catalog) -> None:
    r = plan(cat, lookup.model(cat, "deepseek-r1"), make_request(
        model="deepseek-r1", task="inference", devices=("910c",), offer_kinds=ALL, requests_per_s=2.0, tpot_s=0.012,
        precision="int8"), TODAY, packaged_error_bands())
    tips = [Message.from_json(x) for x in r.relax_i18n if str(x["id"]).startswith("relax.tpot")]
    assert tips, r.relax
    for m in tips:  # the one-die id: the layout words carry the dies
        assert m.id in ("relax.tpot", "relax.tpot_cards")
        assert "cards (16 dies) sharing experts" in render(m) and "-die replicas" not in render(m), render(m)
        assert "个芯粒）副本组" in render(m, "zh")


def test_compare_serves_line_on_910c_is_per_die(cat: Catalog) -> None:
    rows = {r["device"]: r for r in compare_devices(
        cat, lookup.model(cat, "deepseek-r1"), ["h20-141g", "910c"], gpus=8, kinds=ALL, today=TODAY,
        error_bands=packaged_error_bands(), precision="int8", requests_per_s=5.0)}
    c, h = rows["ascend-910c"]["served"], rows["h20-141g"]["served"]
    assert c["note_i18n"]["id"] in ("cmp.serving.served_dies", "cmp.serving.served_ep_dies"), c["note_i18n"]
    assert c["note"].endswith(f"{c['memory_needed_bytes'] / 2**30:,.1f} GiB per die needed"), c["note"]
    assert "每芯粒需要" in render(Message.from_json(c["note_i18n"]), "zh")
    assert h["note"].endswith("GiB per card needed")  # a one-die card as it was
