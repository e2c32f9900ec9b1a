"""`suanli plan --gpus N` (issue 12): exactly N cards — training layouts with tp × pp × dp = N, serving with
replicas × tp = N — re-estimating to the same numbers, a relax hint naming --gpus when nothing fits on N cards, and
`fastest_layout` (the validator's pick for a case whose layout the source does not state) = plan's fastest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.estimate import estimate
from suanli.plan.request import make_request
from suanli.plan.search import fastest_layout, plan, plan_workload

ALL_PRICES = dict(region="any", offer_kinds=("listing", "index", "reference"))


def test_training_plans_use_exactly_n_cards(cat) -> None:  # type: ignore[no-untyped-def]
    for model, task, n in (("qwen2.5-7b", "lora", 4), ("llama-3.1-70b", "full", 16), ("qwen2.5-7b", "pretrain", 8)):
        m = lookup.model(cat, model)
        req = make_request(model=model, task=task, tokens=1e9, gpus=n, top=10, **ALL_PRICES)
        r = plan(cat, m, req)
        assert r.plans, (model, task, n, r.relax)
        for p in r.plans:
            assert p.gpus == n == p.tp * p.pp * p.dp, (model, p)
            e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, req))
            assert e.training is not None and e.memory.fits
            assert e.training.train_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)


def test_gpus_replaces_max_gpus(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-3.1-70b")
    r = plan(cat, m, make_request(model="llama-3.1-70b", task="pretrain", tokens=1e10, gpus=128, max_gpus=8,
                                  objective="fastest", **ALL_PRICES))
    assert r.plans and {p.gpus for p in r.plans} == {128}


def test_serving_uses_n_cards_as_replicas_times_tp(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    req = make_request(model="qwen2.5-7b", task="inference", requests_per_s=2, gpus=8, top=10, **ALL_PRICES)
    r = plan(cat, m, req)
    assert r.plans
    for p in r.plans:
        assert p.replicas is not None and p.replicas * p.tp == 8 == p.gpus
        assert p.tokens_per_s >= 2 * req.output  # the rate is met on these cards
        e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, req))
        # served at the steady-state throughput of its run batch (every prompt prefilled): estimate's figure
        assert e.inference is not None and e.inference.output_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)
    # a rate 8 cards cannot serve: no plan, and the hint names the rate they reach and --gpus
    big = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", requests_per_s=1e5, gpus=8, **ALL_PRICES))
    assert not big.plans and big.relax_i18n[0]["id"] == "relax.rate_gpus" and "--gpus" in big.relax[0]


def test_nothing_fits_on_n_cards_says_change_the_count(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "llama-3.1-70b"),
             make_request(model="llama-3.1-70b", task="full", tokens=1e9, gpus=1, **ALL_PRICES))
    assert not r.plans
    assert r.relax_i18n[0]["id"] == "relax.nothing_fits_gpus_lighter" and "--gpus" in r.relax[0]
    assert "exactly 1 card" in r.relax[0]
    ids = {w["reason_i18n"]["id"] for w in r.why_not}
    assert "why.does_not_fit_gpus" in ids and "why.does_not_fit_fw" not in ids


def test_gpus_must_split_into_the_pinned_tp_pp(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    with pytest.raises(InputError, match="gpus"):
        plan(cat, m, make_request(model="qwen2.5-7b", task="full", tokens=1e9, gpus=6, tp=4,
                                  devices=("a100-80g", "h100")))
    # over the whole catalog 6 cards do split for one device, the Ascend 910C (2 dies a card: 12 dies = tp4 x 3):
    # no refusal; the devices they do not split for get a why-not row each (65b1acc, task B)
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="full", tokens=1e9, gpus=6, tp=4))
    assert all(p.device == "ascend-910c" for p in r.plans)
    assert any(w["device"] == "a100-80g" for w in r.why_not)
    with pytest.raises(InputError, match="gpus"):
        make_request(model="qwen2.5-7b", task="full", tokens=1e9, gpus=0)


def test_fastest_layout_is_plans_fastest_on_that_device(cat) -> None:  # type: ignore[no-untyped-def]
    """One layout logic: plan's first plan (objective fastest, one device, exactly N cards on one node) and
    fastest_layout (prices aside) pick the same layout and speed."""
    for model, device, n in (("qwen2.5-7b", "ascend-910b", 8), ("llama-2-13b", "h100-sxm", 8),
                             ("qwen2.5-1.5b", "ascend-910b", 4)):
        m = lookup.model(cat, model)
        req = make_request(model=model, task="pretrain", tokens=1e9, seq=4096, gpus=n, devices=(device,),
                           objective="fastest", **ALL_PRICES)
        best = plan(cat, m, req).plans[0]
        lay, why = fastest_layout(cat, m, req, device)
        assert lay is not None and why == ""
        assert (lay.tp, lay.pp, lay.vpp, lay.dp, lay.zero, lay.recompute, lay.micro_batch, lay.framework) == (
            best.tp, best.pp, best.vpp, best.dp, best.zero, best.recompute, best.micro_batch, best.framework)
        assert lay.tokens_per_s == pytest.approx(best.tokens_per_s, rel=1e-12)
        e = estimate(cat, m, lookup.accelerator(cat, device), plan_workload(lay, req))
        assert e.training is not None and e.training.train_tokens_per_s == pytest.approx(lay.tokens_per_s, rel=1e-9)


def test_fastest_layout_needs_no_offer_and_says_why_nothing_fits(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "llama-2-70b")
    req = make_request(model="llama-2-70b", task="pretrain", tokens=1.0, gpus=32, framework="mindspeed",
                       region="international")  # no offer in this filter: the layout is still found
    lay, _ = fastest_layout(cat, m, req, "ascend-910b")
    assert lay is not None and lay.gpus == 32 and lay.framework == "mindspeed" and lay.tp * lay.pp * lay.dp == 32
    none, why = fastest_layout(cat, m, req.model_copy(update={"gpus": 1}), "ascend-910b")
    assert none is None and "on 1 card" in why and "GiB" in why


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True)


def test_cli_gpus_flag_and_workload_file(tmp_path: Path) -> None:
    r = _cli("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e8", "--gpus", "2", "--gpu", "h100-sxm",
             "--region", "any", "--offer-kinds", "all", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["plans"] and {p["gpus"] for p in d["plans"]} == {2} and {p["device"] for p in d["plans"]} == {"h100-sxm"}
    f = tmp_path / "w.yaml"  # in a workload file a number is the card count, a name (list) the devices
    f.write_text("model: qwen2.5-7b\ntask: lora\ntokens: 1.0e8\ngpus: 2\nregion: any\noffer-kinds: [listing, index, reference]\n",
                 encoding="utf-8")
    r = _cli("plan", "--file", str(f), "--json")
    assert r.returncode == 0, r.stderr
    assert {p["gpus"] for p in json.loads(r.stdout)["plans"]} == {2}
    f.write_text("model: qwen2.5-7b\ntask: lora\ntokens: 1.0e8\ngpus: [h100-sxm]\nregion: any\n", encoding="utf-8")
    r = _cli("plan", "--file", str(f), "--json")
    assert r.returncode in (0, 1), r.stderr
    assert {p["device"] for p in json.loads(r.stdout)["plans"]} <= {"h100-sxm"}
