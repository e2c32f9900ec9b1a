"""migrate cost sizes each side as plan does, and compare names a precision that fits (buyer review 2026-12-02,
task G).

1. `migrate cost --concurrent-users 2000` on the 910B: plan's default card limit (64) stopped the side ("needs 160
   cards (limit 64)"; 320 since vLLM-Ascend's per-step overhead was fitted, 2026-12-02) with no way to raise it; `ServingTargets.max_gpus` carries plan's `max_gpus` into the rate's
   request (`_rate_bill`), and the refusal names the field and the cards plan needs.
2. Without a precision, each side's rate bill is plan's own search over the precisions it serves at (the H20's
   fp8, 32 cards ¥192,000, not int8's 56 or a bf16 row refused on 8 × 910B), the pick named per side; an explicit
   precision still holds on both sides; a serving side that does not fit names the lower precision that does.
3. compare's DeepSeek-R1 row on 8 × 910C: the row is the layout its line describes (plan's leanest, tp8·ep2) and the
   line names the precision plan lays it out at (int8).
"""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.errors import InputError
from suanli.i18n import Message, render
from suanli.plan.compare import ServingTargets, compare_devices, migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan

TODAY = dt.date(2026, 12, 2)
ALL = ("listing", "index", "reference", "contract")
USERS = {"concurrent_users": 2000, "tpot_s": 0.05, "ttft_s": 2.0, "input_tokens": 1024, "output_tokens": 1024}


def _qwen3(precision: str | None = None, **targets: object) -> dict:
    cat = packaged_catalog()
    return migration_cost(cat, lookup.model(cat, "qwen3-235b-a22b"), "910b", "h20-141g", task="inference",
                          kinds=ALL, today=TODAY, precision=precision,
                          targets=ServingTargets(**{**USERS, **targets}))  # type: ignore[arg-type]


def test_the_card_limit_names_max_gpus_and_the_cards_plan_needs() -> None:
    bill = _qwen3()["derived"]["ascend-910b"]["rate_bill"]
    assert not bill["carried"] and bill["max_gpus"] == 64
    assert bill["note_i18n"]["id"] == "mig.rate_bill.raise_limit"
    # 320 cards (160 until vLLM-Ascend's per-step overhead was fitted, 2026-12-02)
    assert bill["cards_needed"] == 320 and "raise --max-gpus to 320" in bill["note"]
    api = render(Message.from_json(bill["note_i18n"]), "en", "api")
    assert "raise `max_gpus` to 320" in api


def test_max_gpus_reaches_plan() -> None:
    out = _qwen3(max_gpus=400)
    bill = out["derived"]["ascend-910b"]["rate_bill"]
    assert bill["carried"] and bill["gpus"] == 320 and bill["max_gpus"] == 400
    assert out["verdict_i18n"]["id"] != "mig.verdict.not_carried"


def test_max_gpus_needs_a_rate() -> None:
    cat = packaged_catalog()
    with pytest.raises(InputError) as e:
        migration_cost(cat, lookup.model(cat, "qwen3-235b-a22b"), "910b", "h20-141g", task="inference",
                       targets=ServingTargets(tpot_s=0.05, max_gpus=200))
    assert e.value.field == "max_gpus"


def test_without_precision_each_side_bills_at_plans_pick() -> None:
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen3-235b-a22b")
    out = _qwen3()  # refused before: "does not fit on 8 × Huawei Ascend 910B at bf16"
    h20 = out["derived"]["h20-141g"]["rate_bill"]
    req = make_request(model=m.id, task="inference", devices=("h20-141g",), concurrent_users=2000, tpot_s=0.05,
                       ttft_s=2.0, input=1024, output=1024, offer_kinds=ALL, top=1)
    best = plan(cat, m, req, TODAY).plans[0]
    assert (h20["precision"], h20["gpus"]) == (best.precision, best.cards or best.gpus) == ("fp8", 32)
    assert h20["monthly_cost_cny"] == pytest.approx(best.cost_cny) == pytest.approx(192_000)
    assert h20["precisions_searched"] == "bf16, fp8" and h20["note_i18n"]["id"] == "mig.rate_bill.picked"
    assert "at fp8, the precision plan picks" in h20["note"]
    # the 910B's row on 8 cards: at the 8-bit precision plan searches there, which fits them (not refused)
    assert out["derived"]["ascend-910b"]["workload"]["precision"] == "int8"


def test_an_explicit_precision_holds_on_both_sides() -> None:
    out = _qwen3("int8", max_gpus=400)
    for side in ("h20-141g", "ascend-910b"):
        bill = out["derived"][side]["rate_bill"]
        assert bill["precision"] == "int8" and bill["precisions_searched"] is None
        assert out["derived"][side]["workload"]["precision"] == "int8"


def test_a_serving_side_that_does_not_fit_names_the_precision_that_does() -> None:
    cat = packaged_catalog()
    with pytest.raises(InputError) as e:  # no rate: each side on 8 cards at its default precision (bf16)
        migration_cost(cat, lookup.model(cat, "qwen3-235b-a22b"), "910b", "h20-141g", task="inference",
                       kinds=ALL, today=TODAY)
    assert e.value.i18n is not None
    hint = e.value.i18n.params["hint"]
    assert hint.id == "mig.fewest_cards_serving_precision" and hint.params["pin"].params["value"] == "int8"
    assert "pass --precision int8" in str(e.value)


def test_compare_row_is_the_layout_its_line_names_and_the_line_names_int8() -> None:
    cat = packaged_catalog()
    rows = compare_devices(cat, lookup.model(cat, "deepseek-r1"), ["h20-141g", "910c"], gpus=8, kinds=ALL,
                           today=TODAY)
    row = next(r for r in rows if r["device"] == "ascend-910c")
    assert row["fits"] is False and row["layout"]["precision"] == "bf16"
    note = row["layout_note_i18n"]
    assert note["id"] == "cmp.fits_lower" and note["params"]["pin"]["params"]["value"] == "int8"
    # the line's "leanest layout needs N GiB per die" is the row's own figure (it showed 2×tp8 at 160 GiB)
    need = note["params"]["why"]["params"]["need_gib"]
    assert row["memory_needed_bytes"] / 2**30 == pytest.approx(need, rel=1e-6)
    assert row["layout"]["ep"] == 2 and "pass --precision int8" in row["layout_note"]
