"""`suanli compare` lays each device out as the planner would on exactly --gpus cards (a buyer's review: it ran
tp 1, no recompute, ZeRO 0, so 8× H200 "could not" serve a 72B and 8× 4090 "could not" LoRA a 14B), pins kept,
and each row's numbers are `suanli estimate`'s for the layout it names."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.estimate.memory import weights_bytes
from suanli.plan.compare import compare_devices
from suanli.plan.cost import job_hours_on_offer
from suanli.plan.request import make_request
from suanli.plan.search import fastest_layout

ALL_KINDS = ("listing", "index", "reference")


def _estimate_flags(row: dict[str, Any], task: str, tokens: float | None) -> dict[str, Any]:
    """The `suanli estimate` flags that reproduce a compare row, read off the row's layout."""
    lay = row["layout"]
    flags: dict[str, Any] = dict(task=task, gpus=lay["gpus"], tp=lay["tp"], precision=lay["precision"],
                                 batch=lay["batch"], tokens=tokens, flash_attention=lay["flash_attention"])
    if task == "inference":
        flags["engine"] = lay["engine"]
    else:
        # the framework too: its gradient bytes (frameworks.yaml bf16_grad_bytes_per_param) and efficiency rows
        flags.update(pp=lay["pp"], vpp=lay["vpp"], ep=lay["ep"], zero=lay["zero"], recompute=lay["recompute"],
                     grad_accum=lay["grad_accum"], tp_comm_overlap=lay["tp_comm_overlap"], framework=lay["framework"])
    return flags


def _agrees_with_estimate(cat: Any, model: str, rows: list[dict[str, Any]], task: str, tokens: float | None) -> None:
    m = lookup.model(cat, model)
    for r in rows:
        e = estimate(cat, m, lookup.accelerator(cat, r["device"]), make_workload(**_estimate_flags(r, task, tokens)))
        c = e.contract()
        assert r["memory_per_gpu_bytes"] == pytest.approx(c["memory"]["per_gpu_bytes"], rel=1e-12)
        assert r["fits"] == c["memory"]["fits"]
        tok = c["speed"].get("train_tokens_per_s") or c["speed"].get("output_tokens_per_s")
        assert r["tokens_per_s"] == pytest.approx(tok, rel=1e-12)
        # the hours billed: compute and set-up (`total_hours`), the download at the chosen offer's own rate
        t = c["time"]
        offer = next((o for o in cat.offers if o.id == r["offer"]), None)
        dl_h = (t.get("setup_breakdown_hours") or t.get("first_serve_breakdown_hours") or {}).get("download_h", 0.0)
        dl_b = weights_bytes(m, "bf16" if task != "inference" else r["layout"]["precision"])
        want = (None if not (r["fits"] and tokens) else t.get("total_hours", t["hours"]) if offer is None
                else job_hours_on_offer(offer, t.get("total_hours", t["hours"]), dl_b, dl_h))
        assert r["hours"] == (pytest.approx(want, rel=1e-12) if want is not None else None)


def test_72b_serves_on_8_h200_and_h20_sharded(cat) -> None:  # type: ignore[no-untyped-def]
    rows = compare_devices(cat, lookup.model(cat, "qwen2.5-72b"), ["h20", "910b", "h200"], "inference", 8)
    for r in rows:
        assert r["fits"] is True, r["device"]
        lay = r["layout"]
        assert lay["tp"] > 1 and lay["tp"] * lay["dp"] == 8 and r["layout_note"] is None
        assert r["memory_per_gpu_bytes"] < r["memory_capacity_bytes"]
    _agrees_with_estimate(cat, "qwen2.5-72b", rows, "inference", None)


def test_lora_14b_fits_8_4090_like_plan(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-14b")
    rows = compare_devices(cat, m, ["rtx-4090", "a100-80g"], "lora", 8, tokens=1e8, region="any", kinds=ALL_KINDS)
    assert [r["fits"] for r in rows] == [True, True]
    # the layout is the planner's fastest on exactly 8 cards of each device
    for r in rows:
        lay, _ = fastest_layout(cat, m, make_request(model="qwen2.5-14b", task="lora", tokens=1e9, gpus=8), r["device"])
        assert lay is not None
        assert (r["layout"]["tp"], r["layout"]["pp"], r["layout"]["zero"], r["layout"]["recompute"],
                r["layout"]["batch"], r["layout"]["grad_accum"]) == (lay.tp, lay.pp, lay.zero, lay.recompute,
                                                                    lay.micro_batch, lay.grad_accum)
        assert r["tokens_per_s"] == pytest.approx(lay.tokens_per_s, rel=1e-9)
        assert r["cost_cny"] is not None
    _agrees_with_estimate(cat, "qwen2.5-14b", rows, "lora", 1e8)


def test_full_72b_on_8_cards_shards_and_says_why_it_does_not_fit(cat) -> None:  # type: ignore[no-untyped-def]
    rows = compare_devices(cat, lookup.model(cat, "qwen2.5-72b"), ["h100", "h800"], "full", 8)
    for r in rows:  # 72 B × 16 bytes of weights, gradients and Adam states over 8 cards: > 80 GB each
        assert r["fits"] is False and r["layout_note"] and "does not fit" in r["layout_note"]
        assert r["memory_per_gpu_bytes"] < 200 * 2**30  # sharded (it printed 1,084 GiB/card unsharded)
    ok = compare_devices(cat, lookup.model(cat, "qwen2.5-7b"), ["h100", "h800"], "full", 8, tokens=1e8)
    assert all(r["fits"] for r in ok)
    _agrees_with_estimate(cat, "qwen2.5-7b", ok, "full", 1e8)


def test_pins_are_kept_and_wrong_ones_named(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    rows = compare_devices(cat, m, ["h100", "a100-80g"], "full", 8, zero=1, tp=2, recompute="selective")
    for r in rows:
        assert (r["layout"]["tp"], r["layout"]["zero"], r["layout"]["recompute"]) == (2, 1, "selective")
        assert r["layout"]["pinned"] == ["recompute", "tp", "zero"]
    served = compare_devices(cat, m, ["h100", "a100-80g"], "inference", 4, tp=4)
    assert {r["layout"]["tp"] for r in served} == {4}
    with pytest.raises(InputError) as e:
        compare_devices(cat, m, ["h100", "a100-80g"], "inference", 8, pp=2)
    assert e.value.field == "pp"
    with pytest.raises(InputError) as e:
        compare_devices(cat, m, ["h100", "a100-80g"], "lora", 8, batch=4)
    assert e.value.field == "batch"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(devices=st.lists(st.sampled_from(["rtx-4090", "a100-80g", "h100", "h20", "910b", "l20"]), min_size=2,
                        max_size=3, unique=True),
       task=st.sampled_from(["inference", "lora", "full"]), gpus=st.sampled_from([1, 2, 4, 8]),
       model=st.sampled_from(["qwen2.5-7b", "qwen2.5-14b"]))
def test_compare_rows_are_estimates_of_their_layout(cat, devices, task, gpus, model) -> None:  # type: ignore[no-untyped-def]
    tokens = 1e7
    rows = compare_devices(cat, lookup.model(cat, model), devices, task, gpus, tokens=tokens)
    for r in rows:
        assert r["layout"]["gpus"] == gpus
    _agrees_with_estimate(cat, model, rows, task, tokens)

