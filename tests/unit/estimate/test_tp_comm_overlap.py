"""Tensor-parallel communication overlap (issue 12): with sequence parallelism the TP collectives are all-gathers and
reduce-scatters of b·s·h (Korthikanti et al. 2022), which Megatron-Core / Transformer Engine `tp_comm_overlap` and
MindSpeed CoC split into chunks pipelined with their GEMMs (Wang et al., ASPLOS '23): only what the linear GEMMs
cannot hide is exposed. Term by term, through `estimate`, the framework capability and the planner."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.estimate.estimate import estimate
from suanli.estimate.scaling import ring_allreduce_s
from suanli.estimate.speed import training_rates, training_speed, training_speed_terms, training_step
from suanli.estimate.workload import make_workload
from suanli.plan.search import plan, plan_workload

from .test_pipeline_vpp import pretrain_70b_request

F = np.float64


def _k(cat, overlap: bool, r_scale: float = 1.0, **kw):  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "llama-2-70b"), lookup.accelerator(cat, "h100-sxm")
    w = make_workload(task="pretrain", precision="bf16", seq=4096, gpus=64, tp=4, pp=4, vpp=20, grad_accum=32, **kw)
    t = training_speed_terms(m, w)
    r, _ = training_rates(cat, acc, w)
    r = {**r, "intra_bw": r["intra_bw"] * r_scale}
    k = training_step(t, F(w.tp), F(w.pp), F(w.dp), F(w.ep), np.int64(w.zero), 0, F(w.batch), F(w.grad_accum), r,
                      vpp=F(w.vpp), cp=F(w.cp), tp_overlap=np.bool_(overlap))
    return t, r, k, w


def _gemm_s(t, r, w) -> float:  # type: ignore[no-untyped-def]
    """The stage's linear GEMMs (forward + backward, attention core excluded) over the step."""
    return w.seq * w.batch * w.grad_accum * (t.task_flops_per_token - t.attn_flops_per_token) / (w.tp * w.pp) / (
        r["peak"] * r["eff"])


def test_without_overlap_every_tp_collective_is_exposed(cat) -> None:
    t, r, k, w = _k(cat, False)
    comm = 4 * (t.layers / 4) * 32 * ring_allreduce_s(4096 * t.hidden_act_bytes, 4, r["intra_bw"], r["intra_lat"],
                                                    r["intra_half"])
    assert float(k["tp_s"]) == pytest.approx(comm)
    assert float(k["tp_s"]) > 0.5  # the 70B layout's ~0.7 s a step


def test_overlap_exposes_only_what_the_gemms_cannot_hide(cat) -> None:
    t, r, off, w = _k(cat, False)
    _, _, on, _ = _k(cat, True)
    # on NVSwitch the GEMMs of a 70B layer are longer than its collectives: all hidden
    assert _gemm_s(t, r, w) > float(off["tp_s"])
    assert float(on["tp_s"]) == 0.0
    assert float(on["step_s"]) == pytest.approx(float(off["step_s"]) - float(off["tp_s"]))
    assert float(on["compute_s"]) == pytest.approx(float(off["compute_s"]))
    # a link 50x slower: the collectives outlast the GEMMs and the rest shows
    _, r_slow, slow_off, _ = _k(cat, False, r_scale=1 / 50)
    _, _, slow_on, _ = _k(cat, True, r_scale=1 / 50)
    assert float(slow_on["tp_s"]) == pytest.approx(float(slow_off["tp_s"]) - _gemm_s(t, r_slow, w))
    assert 0.0 < float(slow_on["tp_s"]) < float(slow_off["tp_s"])


def test_overlap_changes_nothing_without_tensor_parallelism(cat) -> None:
    m, acc = lookup.model(cat, "llama-2-7b"), lookup.accelerator(cat, "h100-sxm")
    kw = {"task": "pretrain", "precision": "bf16", "seq": 4096, "gpus": 8, "grad_accum": 16}
    a = training_speed(cat, m, acc, make_workload(**kw))
    b = training_speed(cat, m, acc, make_workload(**kw, tp_comm_overlap=True))
    assert a.train_tokens_per_s == b.train_tokens_per_s


def test_estimate_takes_the_flag(cat) -> None:
    m, acc = lookup.model(cat, "llama-2-70b"), lookup.accelerator(cat, "h100-sxm")
    kw = {"task": "pretrain", "precision": "bf16", "seq": 4096, "gpus": 64, "tp": 4, "pp": 4, "vpp": 20,
          "grad_accum": 32}
    off = training_speed(cat, m, acc, make_workload(**kw))
    on = training_speed(cat, m, acc, make_workload(**kw, tp_comm_overlap=True))
    assert off.comm.tp_s > 0.5 and on.comm.tp_s == 0.0
    assert on.train_tokens_per_s > off.train_tokens_per_s


def test_frameworks_that_overlap_are_the_tensor_parallel_ones_with_a_source(cat) -> None:
    fws = {f.id: f for f in cat.frameworks}
    assert fws["megatron"].tp_comm_overlap and fws["mindspeed"].tp_comm_overlap
    # DeepSpeed / FSDP-style frameworks run no tensor parallelism here; serving engines are not training
    for fid in ("deepspeed", "llama-factory", "peft", "vllm"):
        assert not fws[fid].tp_comm_overlap
    assert all(f.tp for f in cat.frameworks if f.tp_comm_overlap)


def test_megatron_plans_assume_overlap_and_re_estimate_with_it(cat) -> None:
    m = lookup.model(cat, "llama-2-70b")
    req = pretrain_70b_request(framework="megatron", tp=4, pp=4, top=3)
    r = plan(cat, m, req)
    assert r.plans and all(p.tp == 4 and p.tp_comm_overlap for p in r.plans)
    for p in r.plans[:2]:
        w = plan_workload(p, req)
        assert w.tp_comm_overlap
        e = estimate(cat, m, lookup.accelerator(cat, p.device), w)
        assert e.training is not None
        assert e.training.train_tokens_per_s == pytest.approx(p.tokens_per_s, rel=1e-9)
    # frameworks without it (DeepSpeed: no tensor parallelism here) never claim it
    free = plan(cat, m, pretrain_70b_request())
    assert all(not p.tp_comm_overlap for p in free.plans if p.framework not in ("megatron", "mindspeed") or p.tp == 1)
