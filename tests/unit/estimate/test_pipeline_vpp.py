"""Interleaved pipeline (virtual stages, Narayanan et al. 2021 §2.2.2) and context parallelism (Megatron-Core; Liu et
al. 2023, Ring Attention) in the training kernels, term by term, and through the planner (issue 12)."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import training_memory, training_memory_terms
from suanli.estimate.scaling import bus, ring_allgather_s
from suanli.estimate.speed import training_rates, training_speed, training_speed_terms, training_step
from suanli.estimate.workload import make_workload
from suanli.plan.request import PlanRequest, make_request
from suanli.plan.search import plan, plan_workload

F = np.float64


def _step(cat, model: str, gpu: str, **kw):  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, model), lookup.accelerator(cat, gpu)
    w = make_workload(task="pretrain", precision="bf16", seq=4096, **kw)
    t = training_speed_terms(m, w)
    r, _ = training_rates(cat, acc, w)
    k = training_step(t, F(w.tp), F(w.pp), F(w.dp), F(w.ep), np.int64(w.zero), 0, F(w.batch), F(w.grad_accum), r,
                      vpp=F(w.vpp), cp=F(w.cp))
    return t, r, k, w


def test_interleaving_divides_the_bubble_by_v(cat) -> None:
    _, _, k1, _ = _step(cat, "llama-2-13b", "h100-sxm", gpus=16, pp=4, grad_accum=32)
    _, _, k4, _ = _step(cat, "llama-2-13b", "h100-sxm", gpus=16, pp=4, vpp=10, grad_accum=32)
    assert float(k1["compute_s"]) == pytest.approx(float(k4["compute_s"]))
    # (p − 1)/m of the ideal time, (p − 1)/(m·v) interleaved
    assert float(k1["pp_bubble_s"]) == pytest.approx(float(k1["compute_s"]) * 3 / 32)
    assert float(k4["pp_bubble_s"]) == pytest.approx(float(k1["compute_s"]) * 3 / (32 * 10))
    assert float(k4["tokens_per_s"]) > float(k1["tokens_per_s"])


def test_pipeline_sends_are_exposed_in_1f1b_and_v_times_more_but_hidden_when_interleaved(cat) -> None:
    t, r, k1, w = _step(cat, "llama-2-70b", "h100-sxm", gpus=64, tp=4, pp=4, grad_accum=32)
    busbw, lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], True, 1.0, r["cards_per_node"])
    # a send/recv pair across nodes has one rank on each: one NIC's share of the node's (scaling.inter_share)
    msg = 4096 * t.hidden_act_bytes / 4  # b·s·h/t with the scatter/gather optimization
    assert float(k1["pp_p2p_s"]) == pytest.approx(2 * 32 * (lat + msg / busbw))
    # a toy device whose compute is tiny: the interleaved sends (v× as many) show beyond the compute
    slow = {**r, "inter_bw": r["inter_bw"] / 1e4, "intra_bw": r["intra_bw"] / 1e4}
    one = training_step(t, F(4), F(4), F(4), F(1), np.int64(0), 0, F(1), F(32), slow, vpp=F(1))
    five = training_step(t, F(4), F(4), F(4), F(1), np.int64(0), 0, F(1), F(32), slow, vpp=F(5))
    busbw_s, lat_s = bus(slow["intra_bw"], slow["intra_lat"], slow["inter_bw"], slow["inter_lat"], True, 1.0,
                          slow["cards_per_node"])
    sends5 = 2 * 5 * 32 * (lat_s + msg / busbw_s)
    assert float(five["pp_p2p_s"]) == pytest.approx(max(0.0, sends5 - float(five["compute_s"])))
    assert float(one["pp_p2p_s"]) == pytest.approx(sends5 / 5)
    # with H100 links the interleaved sends hide behind the compute
    _, _, k20, _ = _step(cat, "llama-2-70b", "h100-sxm", gpus=64, tp=4, pp=4, vpp=20, grad_accum=32)
    assert float(k20["pp_p2p_s"]) == 0.0


def test_context_parallel_splits_compute_and_reduces_gradients_over_dp_times_cp(cat) -> None:
    t, r, k_cp, w = _step(cat, "meta-llama/Meta-Llama-3-8B", "h100-sxm", gpus=8, cp=2, grad_accum=32)
    _, _, k_dp, _ = _step(cat, "meta-llama/Meta-Llama-3-8B", "h100-sxm", gpus=8, grad_accum=16)
    assert w.dp == 4
    # the same tokens per GPU per step: each rank runs half of every sequence, twice as many micro-batches
    assert float(k_cp["compute_s"]) == pytest.approx(float(k_dp["compute_s"]))
    # gradients are all-reduced over the 8 ranks holding the same weights, as with 8 data-parallel ranks
    assert float(k_cp["dp_s"]) == pytest.approx(float(k_dp["dp_s"]))
    # K/V all-gather forward and backward plus the reduce-scatter of their gradients, per layer and micro-batch,
    # hidden behind the attention core's compute
    busbw, lat = bus(r["intra_bw"], r["intra_lat"], r["inter_bw"], r["inter_lat"], False, 2.0, r["cards_per_node"])
    comm = 3 * t.layers * 32 * ring_allgather_s(4096 * t.kv_bytes_per_token_layer, 2, busbw, lat, r["intra_half"])
    attn = 4096 * 32 * t.attn_flops_per_token / 2 / (r["peak"] * r["eff"])
    assert float(k_cp["cp_s"]) == pytest.approx(max(0.0, comm - attn))
    assert float(k_cp["tokens_per_s"]) == pytest.approx(float(k_dp["tokens_per_s"]), rel=1e-3)


def test_context_parallel_exposes_what_the_attention_does_not_hide(cat) -> None:
    t, r, _, _ = _step(cat, "meta-llama/Meta-Llama-3-8B", "h100-sxm", gpus=8, cp=2, grad_accum=32)
    slow = {**r, "intra_bw": r["intra_bw"] / 1e3}
    k = training_step(t, F(1), F(1), F(4), F(1), np.int64(0), 0, F(1), F(32), slow, cp=F(2))
    busbw, lat = bus(slow["intra_bw"], slow["intra_lat"], slow["inter_bw"], slow["inter_lat"], False, 2.0,
                     slow["cards_per_node"])
    comm = 3 * t.layers * 32 * ring_allgather_s(4096 * t.kv_bytes_per_token_layer, 2, busbw, lat, slow["intra_half"])
    attn = 4096 * 32 * t.attn_flops_per_token / 2 / (slow["peak"] * slow["eff"])
    assert comm > attn
    assert float(k["cp_s"]) == pytest.approx(comm - attn)
    assert float(k["step_s"]) > float(k["compute_s"]) + float(k["cp_s"]) - 1e-12


def test_memory_interleaving_factor_and_context_split(cat) -> None:
    m = lookup.model(cat, "llama-2-70b")
    w = make_workload(task="pretrain", precision="bf16", seq=4096, gpus=64, tp=4, pp=4, grad_accum=32)
    t = training_memory_terms(m, w)
    plain = training_memory(t, 4, 4, 4, 1, 0, 0, 1, 32)
    inter = training_memory(t, 4, 4, 4, 1, 0, 0, 1, 32, vpp=20)
    # Korthikanti et al. 2022 §4.2.3: the interleaved schedule holds (1 + (p − 1)/(p·m)) times the activations
    assert float(inter["activations"]) == pytest.approx(float(plain["activations"]) * (1 + 3 / (4 * 20)))
    cp2 = training_memory(t, 4, 4, 2, 1, 1, 0, 1, 32, cp=2)
    dp4 = training_memory(t, 4, 4, 4, 1, 1, 0, 1, 32)
    assert float(cp2["activations"]) == pytest.approx(float(plain["activations"]) / 2)
    assert float(cp2["logits"]) == pytest.approx(float(plain["logits"]) / 2)
    # the distributed optimizer shards over dp × cp ranks
    assert float(cp2["optimizer"]) == pytest.approx(float(dp4["optimizer"]))


def test_workload_rules(cat) -> None:
    with pytest.raises(InputError, match="pp > 1"):
        make_workload(task="pretrain", gpus=8, vpp=2)
    with pytest.raises(InputError, match="tp × pp × cp"):
        make_workload(task="pretrain", gpus=6, cp=4)
    with pytest.raises(InputError, match="training layouts"):
        make_workload(task="inference", gpus=2, cp=2)
    w = make_workload(task="pretrain", gpus=64, tp=4, pp=4, cp=2)
    assert w.dp == 2
    m, acc = lookup.model(cat, "llama-2-7b"), lookup.accelerator(cat, "h100-sxm")
    with pytest.raises(InputError, match="vpp"):
        estimate(cat, m, acc, make_workload(task="pretrain", gpus=8, pp=4, vpp=3))  # 32 layers, 4 × 3 chunks


def test_estimate_reports_the_new_terms(cat) -> None:
    m, acc = lookup.model(cat, "llama-2-70b"), lookup.accelerator(cat, "h100-sxm")
    w = make_workload(task="pretrain", precision="fp8", seq=4096, gpus=64, tp=4, pp=4, vpp=20, grad_accum=32)
    c = estimate(cat, m, acc, w).contract()
    assert c["workload"]["vpp"] == 20 and c["workload"]["cp"] == 1
    assert {"pp_p2p_s", "cp_comm_s", "pp_bubble_s"} <= set(c["scaling"])
    s = training_speed(cat, m, acc, w)
    assert s.tokens_per_step == 1 * 4096 * 32 * 4
    assert s.comm.exposed_s == pytest.approx(s.step_time_s - s.compute_s)


def pretrain_70b_request(**kw: object) -> PlanRequest:
    """Llama-2-70B pre-training, 1e9 tokens at 4K, global batch 256, up to 64 cards, every region and price kind:
    the request the Megatron layout tests plan (`kw` pins a framework or layout, or sets `top`)."""
    base: dict[str, object] = dict(model="llama-2-70b", task="pretrain", tokens=1e9, seq=4096, global_batch=256,
                                   max_gpus=64, region="any", offer_kinds=("listing", "index", "reference"), top=10)
    return make_request(**{**base, **kw})


def test_planner_searches_virtual_stages_for_megatron_and_re_estimates_them(cat) -> None:
    m = lookup.model(cat, "llama-2-70b")
    req = pretrain_70b_request(framework="megatron", pp=4, vpp=5, top=3)
    r = plan(cat, m, req)
    assert r.plans and all(p.vpp == 5 and p.pp == 4 for p in r.plans)
    for p in r.plans[:2]:
        e = estimate(cat, m, lookup.accelerator(cat, p.device), plan_workload(p, req))
        assert e.training is not None
        assert e.training.train_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)
        assert e.memory.needed_bytes == pytest.approx(p.memory_needed_bytes, rel=1e-9, abs=1.0)
    # unpinned, Megatron may choose 1, 2 or 4 virtual stages; frameworks without the schedule never do
    free = plan(cat, m, pretrain_70b_request())
    assert all(p.vpp in (1, 2, 4) for p in free.plans)
    assert all(p.vpp == 1 for p in free.plans if p.framework not in ("megatron", "mindspeed"))
    with pytest.raises(InputError, match="vpp"):
        plan(cat, m, make_request(model="llama-2-70b", task="pretrain", tokens=1e9, pp=4, vpp=3, region="any"))
