"""Buyer's review 2026-12-01, three planner fixes in plan/search.py:

1. a rate hint for a request that states concurrent users names --concurrent-users (a user count from the request's
   own users → rate rule), never --requests-per-s, which the request refuses beside --concurrent-users;
2. migration_weeks matches a config.json model by the presets it is (its aliases), never by its folder's name;
3. --objective fastest for serving a period ranks by TPOT, then TTFT, then cost (it ranked by first serve, which ties
   across devices and fell back to cost), and takes the cheapest offer (the offer does not change the latency)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.compare import migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import _tpot_band, plan
from suanli.views.files import load_model_arg

TODAY = dt.date(2026, 12, 1)
ANY = dict(region="any")


# ------------------------------------------------------------------------------ 1. the hint with concurrent users

# 10 users at 30 ms TPOT (no --ttft: the rule takes 0) send 10 / (256 × 0.03) = 1.30 req/s; 4 RTX 4090s serve 1.28
USERS_4090 = dict(model="qwen2.5-72b", task="inference", devices=("rtx-4090",), gpus=4, concurrent_users=10,
                  tpot_s=0.03, precision="any")  # int4 only when asked


def test_a_rate_hint_with_concurrent_users_names_a_user_count_that_plans(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    req = make_request(**USERS_4090)
    r = plan(cat, m, req, TODAY)
    # was relax.rate_gpus, then relax.users_gpus; since the steady-state TPOT counts the other users' prefill
    # (speed.steady_tpot_s) the 30 ms TPOT is what limits the batch, and a batch within it always keeps up with
    # the rate its users send (b × output / total_s ≥ b / TPOT), so the hint is the slots within the targets
    assert not r.plans and [x["id"] for x in r.relax_i18n] == ["relax.slots_gpus"]
    hint = r.relax_i18n[0]["params"]
    users = hint["slots"]
    assert users >= 1 and users < 10 and hint["field"] == "concurrent_users"
    cli, zh = r.relax[0], render(Message.from_json(r.relax_i18n[0]), "zh")
    api = render(Message.from_json(r.relax_i18n[0]), "en", surface="api")
    assert f"--concurrent-users to {users}" in cli and "--requests-per-s" not in cli and "--gpus" in cli
    assert f"请把 --concurrent-users 降到 {users}" in zh and "--requests-per-s" not in zh
    assert "concurrent_users" in api and "requests_per_s" not in api
    # following the hint plans (the old hint, --requests-per-s beside --concurrent-users, was refused)
    assert plan(cat, m, make_request(**{**USERS_4090, "concurrent_users": users}), TODAY).plans
    # and it is the most users these 4 cards keep up with: one more does not plan
    assert not plan(cat, m, make_request(**{**USERS_4090, "concurrent_users": users + 1}), TODAY).plans


def test_a_rate_hint_without_concurrent_users_still_names_the_rate(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"),
             make_request(model="qwen2.5-7b", task="inference", requests_per_s=3000, gpus=1), TODAY)
    assert [x["id"] for x in r.relax_i18n] == ["relax.rate_gpus"] and "--requests-per-s" in r.relax[0]


# ------------------------------------------------------------------------------ 2. config.json migration effort

# the Qwen2.5-7B-Instruct config.json as its repository publishes it (tests/fixtures/hf_configs, the catalog preset
# qwen2.5-7b's dimensions)
QWEN25_7B: dict[str, Any] = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "hf_configs" /
                                         "qwen2.5-7b-instruct.json").read_text(encoding="utf-8"))


def _config(folder: Path, cfg: dict[str, Any]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg))
    return str(folder / "config.json")


@pytest.mark.parametrize("cfg,weeks", [
    ({**QWEN25_7B, "num_hidden_layers": 30}, (2.0, 4.0)),  # named Qwen2.5-7B, but no preset: not on the lists
    ({**QWEN25_7B, "num_hidden_layers": 30, "_name_or_path": "Qwen/Qwen2.5-7B"}, (2.0, 4.0)),
    (QWEN25_7B, (1.0, 2.0)),  # the real Qwen2.5-7B: on the CANN adapted list by its dimensions
])
def test_a_config_model_is_on_the_adapted_list_by_what_it_is_not_its_name(
        cat, tmp_path: Path, cfg: dict[str, Any], weeks: tuple[float, float]) -> None:  # type: ignore[no-untyped-def]
    m = load_model_arg(cat, _config(tmp_path / "Qwen2.5-7B", cfg))
    assert m.source == "user-config" and m.id in ("Qwen2.5-7B", "Qwen/Qwen2.5-7B")
    r = plan(cat, m, make_request(model=m.id, task="lora", tokens=1e7, devices=("ascend-910b",), **ANY), TODAY)
    assert r.plans and all(p.migration_weeks == weeks for p in r.plans)
    mc = migration_cost(cat, m, to_gpu="ascend-910b", saving=50_000.0, today=TODAY)
    assert tuple(mc["engineer_weeks"]) == weeks


# ------------------------------------------------------------------------------ 3. fastest serving is lowest latency

SERVE_72B = dict(model="qwen2.5-72b", task="inference", concurrent_users=50, tpot_s=0.05, top=10, **ANY)


def test_fastest_serving_ranks_by_tpot_then_ttft(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    for extra in ({}, dict(max_gpus=8), dict(hours=720)):
        r = plan(cat, m, make_request(**SERVE_72B, **extra, objective="fastest"), TODAY)
        assert len(r.plans) > 2
        # TPOT first (within 5 %: `_tpot_band`), then cost (was the cost order: TPOT 39.2, 44.4, 41.1, 24.9 ms)
        keys = [(int(_tpot_band(np.array(p.tpot_s))), round(p.total_cost_cny, 2)) for p in r.plans]
        assert keys == sorted(keys), keys
    # the offer does not change the latency: fastest takes the cheapest offer for its cards, as cheapest does
    for p in r.plans[:3]:
        same = plan(cat, m, make_request(**{**SERVE_72B, **extra}, devices=(p.device,), gpus=p.gpus, tp=p.tp,
                                         precision=p.precision, objective="cheapest"), TODAY).plans[0]
        assert (same.offer, same.cost_cny) == (p.offer, pytest.approx(p.cost_cny)), (p.device, p.gpus)


def test_fastest_within_budget_serving_ranks_by_tpot_within_the_budget(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-72b")
    # bf16 only under fastest since the buyer regression of 2026-12-01 (the 72B's own precision): ¥20,000 paid one plan
    r = plan(cat, m, make_request(**SERVE_72B, objective="fastest-within-budget", budget_cny=60_000), TODAY)
    assert len(r.plans) > 2 and all(p.total_cost_cny <= 60_000 for p in r.plans)
    tpots = [p.tpot_s for p in r.plans]
    bands = [int(_tpot_band(np.array(t))) for t in tpots]
    assert bands == sorted(bands), tpots
    fastest = plan(cat, m, make_request(**SERVE_72B, objective="fastest"), TODAY).plans
    assert tpots[0] > fastest[0].tpot_s and fastest[0].total_cost_cny > 60_000  # the budget binds


def test_fastest_serving_job_with_tokens_is_still_soonest_done(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="inference", tokens=1e9, objective="fastest", top=10,
                                  **ANY), TODAY)
    assert len(r.plans) > 2
    done = [p.hours for p in r.plans]
    assert done == sorted(done), done
