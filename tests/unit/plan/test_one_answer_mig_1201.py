"""One answer across migrate cost, compare, tco and plan (buyer review 2026-12-01, full-mig):
1. `migrate cost --task inference` takes compare's row (`serving_row_layout`, plan's evidence step included);
2. the planner searches optimizer offload on one card (DeepSpeed ZeRO-Offload runs on a single GPU);
3. a compare row that does not serve the rate says why in its own layout; `concurrent_users` means what it means
   to plan;
4. tco applies plan's offer rule for a multi-card job (`offers.can_rent`)."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.estimate import estimate
from suanli.plan.compare import compare_devices, migration_cost, tco_rows
from suanli.plan.request import make_request, rate_from_users
from suanli.plan.search import plan, plan_workload
from suanli.validate.bands import packaged_error_bands


def test_migrate_cost_serves_at_compares_row(cat) -> None:  # type: ignore[no-untyped-def]
    """qwen2.5-14b on 8 × H800: migrate cost's saving rests on compare's row (the batch compare keeps within the
    known memory error; migrate cost once took a batch compare had set aside)."""
    bands = packaged_error_bands()
    m = lookup.model(cat, "qwen2.5-14b")
    rows = {r["device"]: r for r in compare_devices(cat, m, ["h800", "910b"], gpus=8, error_bands=bands)}
    mc = migration_cost(cat, m, to_gpu="910b", from_gpu="h800", task="inference", monthly_spend=60000,
                        error_bands=bands)
    h800 = lookup.accelerator(cat, "h800").id
    for dev in (h800, lookup.accelerator(cat, "910b").id):
        d, r = mc["derived"][dev], rows[dev]
        assert (d["workload"]["tp"], d["workload"]["batch"]) == (r["layout"]["tp"], r["layout"]["batch"])
        assert d["tokens_per_s_8_cards"] == pytest.approx(r["tokens_per_s"], rel=1e-9)
    # the batch itself follows the inference-memory band (256 set aside at a 20 % p90, kept at 12 %): not pinned here


def test_plan_offloads_the_optimizer_on_one_card(cat) -> None:  # type: ignore[no-untyped-def]
    """llama-3.1-8b full on 1 × H800: plain AdamW needs 123.9 GiB; DeepSpeed's ZeRO-Offload on one GPU (stage 2,
    deepspeed.ai/tutorials/zero-offload) fits, as `estimate --gpus 1 --offload-optimizer --zero 2` says."""
    m = lookup.model(cat, "llama-3.1-8b")
    r = plan(cat, m, make_request(model="llama-3.1-8b", task="full", tokens=1e9, devices=("h800",), gpus=1))
    assert r.plans, r.why_not
    p = r.plans[0]
    assert p.gpus == 1 and p.dp == 1 and p.offload_optimizer and p.zero == 2
    e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, r.request))
    assert e.memory.fits and e.memory.needed_bytes == pytest.approx(p.memory_needed_bytes, rel=1e-9, abs=1.0)
    # no ZeRO stage without data parallelism unless offloading; plain plans on 2 cards keep their ZeRO search
    r2 = plan(cat, m, make_request(model="llama-3.1-8b", task="lora", tokens=1e8, devices=("h800",), gpus=1))
    assert r2.plans and all(q.zero == 0 for q in r2.plans if q.dp == 1)


def test_not_served_reason_is_the_rows_own_layout(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-14b")
    rows = compare_devices(cat, m, ["h800", "mtt-s4000"], gpus=2, requests_per_s=5.405, tpot_s=0.05, ttft_s=2.0,
                           error_bands=packaged_error_bands())
    r = rows[1]
    assert r["served"] is None
    note, lay = r["layout_note"], r["layout"]
    assert f"tp{lay['tp']} × {lay['dp']} replica" in note and f"batch {lay['batch']} per replica, the row" in note
    assert f"at most {r['tokens_per_s'] / 256:,.3g} req/s" in note
    assert "best TPOT" not in note  # the bare planner why-not read as another layout's


def test_compare_concurrent_users_as_plan(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-14b")
    rows = compare_devices(cat, m, ["h800", "910b"], gpus=2, concurrent_users=100, tpot_s=0.05)
    rate = rate_from_users(100, 256, 0.05)
    for r in rows:
        assert r["served"] is not None and r["served"]["requests_per_s"] == pytest.approx(rate, rel=1e-12)
        assert r["served"]["batch"] * r["served"]["replicas"] >= 100  # a slot of the running batch per user
        assert "100 users" in r["users_note"]
    with pytest.raises(InputError) as e:
        compare_devices(cat, m, ["h800", "910b"], gpus=2, concurrent_users=100)
    assert "tpot" in str(e.value)  # plan's refusal: needs tpot_s
    with pytest.raises(InputError):
        compare_devices(cat, m, ["h800", "910b"], task="lora", gpus=2, concurrent_users=100, tpot_s=0.05)


def test_tco_applies_plans_offer_rule(cat) -> None:  # type: ignore[no-untyped-def]
    """AutoDL's H800 is one card per instance: 8 cards there are 8 separate instances, which plan never rents as
    one job; tco lists it after the offers that hold the 8 cards, marked."""
    rows = tco_rows(cat, "h800", 10.0, gpus=8)
    assert rows[0]["one_job"]
    autodl = next(r for r in rows if r["offer"].startswith("autodl-h800"))
    assert not autodl["one_job"] and any("8 separate instances" in n for n in autodl["notes"])
    assert autodl["notes_i18n"][-1]["id"] == "tco.separate_instances"
    one = tco_rows(cat, "h800", 10.0, gpus=1)
    assert all(r["one_job"] for r in one) and one[0]["offer"].startswith("autodl-h800")


def test_not_served_row_quotes_its_at_most_rounded_down(cat) -> None:  # type: ignore[no-untyped-def]
    """compare's "serves at most N req/s" on a row that cannot carry the rate is rounded down as plan's hint is
    (`search.round_down_rate`: a quoted rate is served), never to nearest (audit 2026-12-01: 2.596 showed as 2.6)."""
    from suanli.plan.search import round_down_rate

    assert round_down_rate(2.596) == pytest.approx(2.59) and round_down_rate(14.6999) == pytest.approx(14.6)
    m = lookup.model(cat, "qwen2.5-72b")
    rows = compare_devices(cat, m, ["h800", "910b"], gpus=16, requests_per_s=15.625, tpot_s=0.05,
                           error_bands=packaged_error_bands())
    row = next(r for r in rows if r["device"] == lookup.accelerator(cat, "910b").id)
    note = row["layout_note_i18n"]
    assert note["id"] == "cmp.serving.not_served_row"
    rps = note["params"]["rps"]  # 14.6 (tp8 × 2 at batch 93): the quoted maximum, rounded down to 3 figures
    assert rps == round_down_rate(rps) and rps < 15.625
