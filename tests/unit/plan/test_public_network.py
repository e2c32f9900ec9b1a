"""An offer's public network bandwidth (Offer.public_network_mbit_per_s) in set-up: the planner prices each
configuration on each offer with that offer's download time, and `suanli estimate` reproduces the chosen one."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog, Offer
from suanli.estimate.estimate import estimate
from suanli.estimate.setup import download_hours
from suanli.estimate.memory import weights_bytes
from suanli.i18n import Message, render
from suanli.plan.cost import job_cost
from suanli.plan.request import make_request
from suanli.plan.search import plan, plan_workload
from suanli.store.importer import OfferImportError, parse_offers

ALL = dict(region="any", offer_kinds=("listing", "index", "reference"))


def _bw(o: Offer, mbit: float | None) -> dict[str, object] | None:
    return None if mbit is None else {"values": ({"value": mbit, "source": o.source},)}


def _with_offers(cat: Catalog, device: str, *offers: Offer) -> Catalog:
    return cat.model_copy(update={"offers": tuple(o for o in cat.offers if o.device != device) + offers})


def _hourly_4090(cat: Catalog) -> Offer:
    return next(o for o in cat.offers if o.device == "rtx-4090" and o.billing_unit == "hour" and o.cards == 1
                and o.kind == "listing")


def _twin(o: Offer, oid: str, price: float, mbit: float | None) -> Offer:
    raw = o.model_dump()
    raw.update(id=oid, price_cny={"values": ({"value": price, "source": o.source},)},
               public_network_mbit_per_s=_bw(o, mbit), price_cny_max=None)
    return Offer.model_validate(raw)


def test_smm_h200_quote_carries_its_100_mbit_per_s(cat) -> None:  # type: ignore[no-untyped-def]
    o = next(o for o in cat.offers if o.id == "smm-h200-8card-month-2026-09")
    assert o.public_network_mbit_per_s is not None and o.public_network_mbit_per_s.value == 100
    assert "100M独享带宽" in (o.public_network_mbit_per_s.chosen.note or "")
    # only where a source states it: every other offer leaves it unset
    assert [x.id for x in cat.offers if x.public_network_mbit_per_s is not None] == [o.id]


def test_cheapest_offer_is_chosen_on_its_own_hours(cat) -> None:  # type: ignore[no-untyped-def]
    """Two hourly 4090 offers: one 10 % cheaper but on 10 Mbit/s (a 7B model takes ~4 h to download), one at the
    catalog's assumed rate. A short job pays more on the cheap-but-slow one, so the other is chosen; on a
    10 Gbit/s link the cheap one wins and its hours are shorter than the default rate's."""
    base = _hourly_4090(cat)
    p0 = base.price_cny.value
    m = lookup.model(cat, "qwen2.5-7b")
    req = make_request(model="qwen2.5-7b", task="lora", tokens=1e7, devices=("rtx-4090",), gpus=1, **ALL)
    slow = _with_offers(cat, "rtx-4090", _twin(base, "cheap-slow", p0 * 0.9, 10), _twin(base, "dear", p0, None))
    r = plan(slow, m, req)
    p = r.plans[0]
    assert p.offer == "dear" and p.download_gbit_per_s is None
    fast = _with_offers(cat, "rtx-4090", _twin(base, "cheap-fast", p0 * 0.9, 10_000), _twin(base, "dear", p0, None))
    q = plan(fast, m, req).plans[0]
    assert q.offer == "cheap-fast" and q.download_gbit_per_s == pytest.approx(10.0)
    assert q.hours < p.hours and q.compute_hours == pytest.approx(p.compute_hours)
    size = weights_bytes(m, "bf16")  # the 16-bit checkpoint is what set-up downloads
    assert p.setup_hours - q.setup_hours == pytest.approx(download_hours(size, 1.0) - download_hours(size, 10.0))
    assert not any("download" in w for w in q.warnings)


def test_slow_public_network_is_in_hours_cost_and_warns(cat) -> None:  # type: ignore[no-untyped-def]
    """The only H200 offer publishes 100 Mbit/s: a 72B model (~145 GB) takes ~3.2 h to download, which the
    plan's set-up, hours and cost include, with a warning in both languages; estimate reproduces the hours."""
    base = next(o for o in cat.offers if o.id == "smm-h200-8card-month-2026-09")
    c = _with_offers(cat, "h200", base)
    m = lookup.model(c, "qwen2.5-72b")
    req = make_request(model="qwen2.5-72b", task="lora", tokens=1e8, devices=("h200",), gpus=8, **ALL)
    p = plan(c, m, req).plans[0]
    assert p.offer == base.id and p.download_gbit_per_s == pytest.approx(0.1)
    w = plan_workload(p, req)
    assert w.download_gbit_per_s == pytest.approx(0.1)
    e = estimate(c, m, lookup.accelerator(c, "h200"), w)
    assert e.setup_hours is not None and e.hours is not None
    assert e.setup_hours["download_h"] == pytest.approx(3.2, abs=0.15)
    assert e.hours + e.setup_hours["total_h"] == pytest.approx(p.hours, rel=1e-9)
    assert p.setup_hours == pytest.approx(e.setup_hours["total_h"], rel=1e-9)
    assert job_cost(base, p.gpus, p.hours, 0.0).cost_cny == pytest.approx(p.cost_cny, rel=1e-12)
    slow = [x for x in p.warnings_i18n if x["id"] == "plan.warn.slow_download"]
    assert len(slow) == 1
    text = next(x for x in p.warnings if "Mbit/s" in x)
    assert "100 Mbit/s" in text and base.id in text and "3.2 h" in text
    zh = render(Message.from_json(slow[0]), "zh")
    assert "每秒 100 兆比特" in zh and "3.2 小时" in zh
    # the same plan at the catalog's rate has no such warning and ~3 h less
    fast = plan(_with_offers(cat, "h200", _twin(base, base.id, base.price_cny.value, None)), m, req).plans[0]
    assert p.hours - fast.hours == pytest.approx(e.setup_hours["download_h"] * 0.9, rel=1e-6)
    assert not any(x["id"] == "plan.warn.slow_download" for x in fast.warnings_i18n)


def test_import_takes_the_column_and_rejects_a_zero(cat) -> None:  # type: ignore[no-untyped-def]
    head = "id,provider,device,cards,billing_unit,price_cny,date,source,public_network_mbit_per_s\n"
    ok = parse_offers(head + "acme-4090,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme,100\n", "a.csv", cat)
    bw = ok.offers[0].public_network_mbit_per_s
    assert bw is not None and bw.value == 100 and bw.chosen.source == "acme"
    with pytest.raises(OfferImportError) as e:  # all or nothing: the good row is not imported either
        parse_offers(head + "acme-4090,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme,100\n"
                     "acme-4090b,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme,0\n", "b.csv", cat)
    assert any(x.line == 3 for x in e.value.errors)
    y = parse_offers("offers:\n  - {id: y-4090, provider: Y, device: rtx-4090, cards: 1, billing_unit: hour, "
                     "price_cny: 1.99, public_network_mbit_per_s: 50, date: 2026-05-01, source: y}\n", "y.yaml", cat)
    assert y.offers[0].public_network_mbit_per_s is not None and y.offers[0].public_network_mbit_per_s.value == 50
