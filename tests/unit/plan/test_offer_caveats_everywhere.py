"""compare and migrate cost price the offers plan prices, so they carry plan's caveats on them (task full-warn
2026-12-02): 云擎天下's A100 node that does not say SXM or PCIe, its A800 node that says neither that nor the memory
size, and a '910B' without its variant. Before, `suanli compare` and `suanli migrate cost` priced those offers as
the SXM4 part / the 910B2 without a word. The sentences come from plan's one builder (`plan.caveats`), each
re-estimating the answer's own layout on every other part the card may be."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render
from suanli.plan.caveats import Rerun, offer_caveats
from suanli.plan.compare import compare_devices, migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload

TODAY = dt.date(2026, 12, 2)
A100_NODE, A800_NODE, B910_NODE = ("omniyq-a100-80g-8card-month", "omniyq-a800-8card-month",
                                   "omniyq-910b-8card-month")


def _compare(cat, devices: list[str]) -> list[dict]:  # type: ignore[no-untyped-def]
    # the buyer's job (qwen2.5-72b, 100 users within TPOT 50 ms, TTFT 2 s) on 8 cards of each device
    return compare_devices(cat, lookup.model(cat, "qwen2.5-72b"), devices, gpus=8, concurrent_users=100,
                           tpot_s=0.05, ttft_s=2.0, today=TODAY)


def _ids(d: dict) -> list[str]:  # type: ignore[type-arg]
    return [j["id"] for j in d["offer_warnings_i18n"]]


def test_a_compare_row_on_an_unstated_card_says_what_plan_says(cat) -> None:  # type: ignore[no-untyped-def]
    a100, b910, a800 = _compare(cat, ["a100-80g", "ascend-910b", "a800"])
    assert (a100["offer"], b910["offer"], a800["offer"]) == (A100_NODE, B910_NODE, A800_NODE)
    # then plan's export-control warning on the A100 and A800 (buyer review G 2026-12-02), none on the 910B
    assert _ids(a100) == ["plan.warn.card_unstated", "plan.warn.china_export"]
    assert _ids(b910) == ["plan.warn.variant_unstated"]
    assert _ids(a800) == ["plan.warn.card_unstated_alone", "plan.warn.china_export"]
    assert all(len(r["offer_warnings"]) == len(r["offer_warnings_i18n"]) for r in (a100, b910, a800))
    w = a100["offer_warnings"][0]
    assert f"offer {A100_NODE} does not say the card's form factor (SXM or PCIe)" in w
    assert "specs assume the NVIDIA A100 SXM4 80GB" in w and "NVIDIA A100 PCIe 80GB (80 GiB, 1.935 TB/s): fits" in w
    # the PCIe figure is the estimator's for the row's own layout on that card, judged on the steady-state TPOT
    # the row quotes (a rate from users: tpot_kind steady)
    lay = a100["layout"]
    w_row = make_workload(task="inference", precision=lay["precision"], batch=lay["batch"], input=512, output=256,
                          tp=lay["tp"], ep=lay["ep"], gpus=lay["gpus"], engine=lay["engine"],
                          flash_attention=lay["flash_attention"])
    e = estimate(cat, lookup.model(cat, "qwen2.5-72b"), lookup.accelerator(cat, "a100-80g-pcie"), w_row)
    assert a100["tpot_kind"] == "steady" and e.inference is not None
    (outcome,) = a100["offer_warnings_i18n"][0]["params"]["outcomes"]
    assert outcome["params"]["tpot_ms"] == pytest.approx(e.inference.tpot_steady_s * 1000)
    assert "misses the TPOT target" in w  # the SXM4 row meets 50 ms, the PCIe card does not
    # the 910B row: the 910B2 assumed, the other variants re-estimated
    v = b910["offer_warnings"][0]
    assert "without its variant: specs assume the Huawei Ascend 910B2" in v
    assert "Huawei Ascend 910B3" in v and "Huawei Ascend 910B4" in v
    assert "ask the provider which card it rents" in a800["offer_warnings"][0]
    assert "未写明卡的形态（SXM 或 PCIe）" in render(Message.from_json(a100["offer_warnings_i18n"][0]), "zh")


def test_a_row_whose_offer_states_its_card_has_no_caveat(cat) -> None:  # type: ignore[no-untyped-def]
    h800, l40s = _compare(cat, ["h800", "l40s"])  # 云擎天下's nodes too, whose listings name the card
    assert (h800["offer"], l40s["offer"]) == ("omniyq-h800-8card-month", "omniyq-l40s-8card-month")
    # no card caveat; only plan's export-control warning (both are controlled for China)
    assert _ids(h800) == ["plan.warn.china_export"] == _ids(l40s)
    assert len(h800["offer_warnings"]) == 1 == len(l40s["offer_warnings"])


def test_migrate_cost_says_it_on_both_sides(cat) -> None:  # type: ignore[no-untyped-def]
    out = migration_cost(cat, lookup.model(cat, "qwen2.5-7b"), "ascend-910b", "a100-80g", today=TODAY)
    src, dst = out["derived"]["a100-80g"], out["derived"]["ascend-910b"]
    assert (src["offer"], dst["offer"]) == (A100_NODE, B910_NODE)
    assert _ids(src) == ["plan.warn.card_unstated", "plan.warn.china_export"]
    assert _ids(dst) == ["plan.warn.variant_unstated"]
    # training: each other part's tokens/s as a share of the side's own (the figure the saving rests on)
    (pcie,) = src["offer_warnings_i18n"][0]["params"]["outcomes"]
    assert pcie["id"] == "plan.variant.train"
    assert pcie["params"]["tok_s"] == pytest.approx(pcie["params"]["ratio"] * src["tokens_per_s_8_cards"])
    assert "of the assumed" in src["offer_warnings"][0]
    plain = migration_cost(cat, lookup.model(cat, "qwen2.5-7b"), "ascend-910b", "h800", today=TODAY)
    assert plain["derived"]["h800"]["offer"] == "omniyq-h800-8card-month"
    assert _ids(plain["derived"]["h800"]) == ["plan.warn.china_export"]  # no card caveat, the export warning


def test_plan_and_compare_call_one_builder(cat) -> None:  # type: ignore[no-untyped-def]
    # plan's warning on its layout is the builder's on plan's own workload: the same message, word for word
    m = lookup.model(cat, "qwen2.5-72b")
    req = make_request(model="qwen2.5-72b", task="inference", concurrent_users=100, tpot_s=0.05, ttft_s=2.0,
                       devices=("a100-80g",))
    r = plan(cat, m, req, TODAY)
    p = r.plans[0]
    offer = next(o for o in cat.offers if o.id == p.offer)
    (built,) = offer_caveats(cat, m, lookup.accelerator(cat, "a100-80g"), offer,
                             Rerun(plan_workload(p, req), p.tokens_per_s, 0.05, 2.0, steady=True))
    assert built.to_json() in p.warnings_i18n
    assert offer_caveats(cat, m, lookup.accelerator(cat, "a100-80g"), None, Rerun(plan_workload(p, req))) == []


def test_an_offer_on_a_part_of_its_own_names_its_variant() -> None:
    """The H20 96GB is a part of its own beside its 141 GB variant (variant_of: h20), not a generic family: AutoDL's
    'H20 96GB' listing names it, and its plans said 'offer … names the NVIDIA H20 96GB without its variant' (buyer
    review, 2026-12-02). Only a generic device (the 910B, whose specs are the 910B2's) warns."""
    from suanli.catalog.load import packaged_catalog
    from suanli.catalog.lookup import accelerator, model
    from suanli.plan.caveats import variant_warning

    cat = packaged_catalog()
    m = model(cat, "qwen2.5-7b")
    assert variant_warning(cat, m, accelerator(cat, "h20"), "autodl-h20-hour-2026-08", None) is None  # type: ignore[arg-type]
