"""Cost fixes (buyer regression 5 and 10, audit 1 and 3, 2026-12-01): `migrate cost` prices each side only on offers
that can rent its layout (`offers.can_rent`), falling back to the cards one offer holds; compare's unpriced line
names the device; compare estimates a multi-node job on each network its offers rent and prices it only there (as
plan); the known-error saving moves both sides' speeds; the serving scenarios take the default calendar month."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml

from suanli.catalog import lookup
from suanli.catalog import offers as offer_q
from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.estimate.estimate import pooled_bias
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices, migration_cost
from suanli.plan.request import PlanRequest
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 1)


def test_migrate_cost_never_prices_8_cards_that_rent_only_one_at_a_time(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    l20 = lookup.accelerator(cat, "l20")
    out = migration_cost(cat, m, "ascend-910b", "l20", task="lora", today=TODAY)
    d = out["derived"][l20.id]
    offer = next(o for o in cat.offers if o.id == d["offer"])
    gpus = d["workload"]["gpus"]
    # the offer that prices the side can rent the layout the speed is at (no 8-card L20 rental in cn listings)
    assert offer_q.can_rent(offer, l20.max_cards_per_node, gpus, d["workload"]["tp"], False)
    assert gpus < 8 and not any(offer_q.can_rent(o, l20.max_cards_per_node, 8, 1, False)
                                for o in offer_q.usable_offers(cat, "cn", ("listing",), device=l20.id))
    assert out["derived"]["ascend-910b"]["workload"]["gpus"] == 8


def test_migrate_cost_refuses_in_one_line_naming_the_side_when_the_fewer_cards_do_not_fit(cat: Catalog) -> None:
    m = lookup.model(cat, "llama-3.1-70b")
    with pytest.raises(InputError) as e:
        migration_cost(cat, m, "ascend-910b", "l20", task="lora", today=TODAY)
    assert e.value.i18n is not None and e.value.i18n.id == "error.saving_no_fit_fewer"
    en, zh = render(e.value.i18n), render(e.value.i18n, "zh")
    assert "no usable offer rents 8 × NVIDIA L20 48GB (--from-gpu)" in en and "\n" not in en
    assert "没有可用报价能租下 8 张" in zh and "--from-gpu" in zh


def test_compare_unpriced_line_names_the_device(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    rows = compare_devices(cat, m, ["rtx-4090", "mtt-s4000", "l20"], task="lora", gpus=8, tokens=1e8, today=TODAY)
    lines = {r["device"]: r["no_price"] for r in rows if r["no_price"]}
    assert lines and all(lines.values())
    for dev, line in lines.items():
        name = lookup.accelerator(cat, dev).name
        # 8 cards, one node, on 1-card instances: the instance size is the cause (task H, 2026-12-03), not "multi-node"
        assert line.startswith(f"{name}: the largest instance an offer here rents holds 1 card:")
        row = next(r for r in rows if r["device"] == dev)
        zh_name = lookup.accelerator(cat, dev).name_zh or name
        assert render(Message.from_json(row["no_price_i18n"]), "zh").startswith(f"{zh_name}：这里的报价最大只租")


def _slow_p4de(cat: Catalog) -> Catalog:
    """The audit's repro: aws-p4de's published network set to 50 Gbit/s per node."""
    offers = []
    for o in cat.offers:
        if o.id == "aws-p4de-24xlarge-hour":
            alt = o.inter_node_gbit_per_s
            assert alt is not None
            sv = alt.values[0].model_copy(update={"value": 50.0})
            o = o.model_copy(update={"inter_node_gbit_per_s": alt.model_copy(update={"values": (sv,)})})
        offers.append(o)
    return cat.model_copy(update={"offers": tuple(offers)})


def test_compare_prices_a_spanning_job_at_the_network_its_offer_rents(cat: Catalog) -> None:
    slow = _slow_p4de(cat)
    m = lookup.model(slow, "qwen2.5-32b")
    kinds = ("listing", "index", "reference")
    rows = compare_devices(slow, m, ["a100-80g", "a100-40g"], task="full", gpus=16, tokens=1e8, region="any",
                           kinds=kinds, today=TODAY, tp=1, pp=1, zero=3, recompute="full")
    req = PlanRequest(model="qwen2.5-32b", task="full", tokens=1e8, devices=["a100-80g"], gpus=16, region="any",
                      offer_kinds=list(kinds), framework="deepspeed", tp=1, pp=1, zero=3, recompute="full")
    p = plan(slow, m, req, TODAY).plans[0]
    r = rows[0]
    assert r["device"] == "a100-80g" and r["offer"] == p.offer == "aws-p4de-24xlarge-hour"
    # before: 11,328 tok/s, 2.83 h, ¥1,114.68 at the uncapped network (plan: 4,122 tok/s, 7.12 h, ¥2,972.48)
    assert r["tokens_per_s"] == pytest.approx(p.tokens_per_s, rel=1e-9)
    assert r["hours"] == pytest.approx(p.hours, rel=1e-9) and r["cost_cny"] == pytest.approx(p.cost_cny, rel=1e-9)


def _known(out: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    return out["derived"]["cost_ratio_same_work"], out["if_known_error"]


@pytest.mark.parametrize("src,dst", [("h100-sxm", "ascend-910b"), ("ascend-910b", "h100-sxm")])
def test_known_error_moves_both_sides(cat: Catalog, src: str, dst: str) -> None:
    bands = packaged_error_bands()
    m = lookup.model(cat, "qwen2.5-72b")
    out = migration_cost(cat, m, dst, src, 100_000.0, None, "inference", region="cn", kinds=("listing", "index"),
                         today=TODAY, error_bands=bands)
    ratio, k = _known(out)
    b_dst = pooled_bias(bands, lookup.accelerator(cat, dst).stack, "decode-speed")
    b_src = pooled_bias(bands, lookup.accelerator(cat, src).stack, "decode-speed")
    assert b_dst is not None and b_src is not None and b_dst.bias_pct != b_src.bias_pct
    want = ratio * (1 + b_dst.bias_pct / 100) / (1 + b_src.bias_pct / 100)
    assert k["cost_ratio_same_work"] == pytest.approx(want)
    assert k["from_bias_pct"] == pytest.approx(b_src.bias_pct)
    # the side estimated too fast costs more than estimated: the ratio moves toward the other side
    assert (k["cost_ratio_same_work"] > ratio) == (b_dst.bias_pct > b_src.bias_pct)
    zh = render(Message.from_json(k["note_i18n"]), "zh")
    assert k["note"].startswith("if both devices run as their known decode-speed errors say (")
    assert f"{b_src.bias_pct:+.0f} %" in k["note"] and f"{b_dst.bias_pct:+.0f} %" in k["note"]
    assert zh.startswith("若两种设备的实际速度都如其已知的") and "成本比变为" in zh


def test_serving_scenarios_take_the_default_calendar_month() -> None:
    data = yaml.safe_load((Path(__file__).resolve().parents[3] / "src/suanli/data/scenarios.yaml").read_text())
    month = [s for s in data["scenarios"] if "month" in s.get("assumption", "")]
    assert len(month) >= 4
    for s in month:
        assert "hours" not in s["plan"] and "days" not in s["plan"], s["id"]
