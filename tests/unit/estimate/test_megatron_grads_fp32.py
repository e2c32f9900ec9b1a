"""Megatron-family gradients are fp32 under bf16 (frameworks.yaml bf16_grad_bytes_per_param, source megatron-grad-fp32:
Megatron-LM arguments.py forces accumulate_allreduce_grads_in_fp32 under --bf16; Megatron-Core DDP's grad buffer is
fp32 when grad_reduce_in_fp32; dist_optimizer.md: bf16 params + fp32 grads = 6 + 12/d bytes per parameter with the
distributed optimizer). One field, read by the memory kernel and the gradient all-reduce alike."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import load_catalog
from suanli.estimate import speed as S
from suanli.estimate.estimate import estimate
from suanli.estimate.memory import estimate_memory, grad_bytes_per_param
from suanli.estimate.params import param_count
from suanli.estimate.workload import Workload


@pytest.fixture(scope="module")
def cat():  # type: ignore[no-untyped-def]
    return load_catalog()


def _w(framework: str | None, **kw: object) -> Workload:
    base: dict[str, object] = dict(task="pretrain", precision="bf16", gpus=256, tp=8, zero=1, batch=1, seq=2048)
    base.update(kw)
    return Workload(framework=framework, **base)  # type: ignore[arg-type]


def test_70b_megatron_pretrain_counts_4_byte_gradients(cat) -> None:  # type: ignore[no-untyped-def]
    """The buyer's command: llama-3.3-70b pretrain on 256 x A100-80G, tp 8, ZeRO 1, megatron."""
    m, acc = lookup.model(cat, "llama-3.3-70b"), lookup.accelerator(cat, "a100-80g")
    p = param_count(m).total
    mg = estimate_memory(m, _w("megatron"), acc, cat=cat)
    ds = estimate_memory(m, _w("deepspeed"), acc, cat=cat)
    none = estimate_memory(m, _w(None), acc, cat=cat)
    assert mg.breakdown_bytes["gradients"] == pytest.approx(p * 4.0 / 8)  # fp32, sharded by tp only
    assert ds.breakdown_bytes["gradients"] == pytest.approx(p * 2.0 / 8)  # DeepSpeed unchanged: bf16 gradients
    assert none.breakdown_bytes["gradients"] == ds.breakdown_bytes["gradients"]  # no framework named: as before
    # dist_optimizer.md's table: 6 + 12/d bytes per parameter (2 weights + 4 gradients + 12/d states), per tp shard
    states = mg.breakdown_bytes["weights"] + mg.breakdown_bytes["gradients"] + mg.breakdown_bytes["optimizer"]
    assert states == pytest.approx(p / 8 * (6 + 12 / 32))
    assert any("fp32" in n and "megatron" in n for n in mg.notes)
    assert not any("keeps the gradients in fp32" in n for n in ds.notes)


@pytest.mark.parametrize("fw", ["megatron", "nemo", "mindspeed"])
def test_every_megatron_family_row_cites_fp32_gradients(cat, fw) -> None:  # type: ignore[no-untyped-def]
    row = next(f for f in cat.frameworks if f.id == fw)
    assert row.bf16_grad_bytes_per_param == 4 and row.grad_bytes_source == "megatron-grad-fp32"
    assert grad_bytes_per_param(cat, _w(fw)) == 4.0
    assert grad_bytes_per_param(cat, _w(fw, precision="fp8")) == 4.0  # fp8 training keeps bf16 weights
    assert grad_bytes_per_param(cat, _w(fw, task="full", precision="fp32")) == 4.0


@pytest.mark.parametrize("fw", ["deepspeed", "llama-factory", "peft", "torchtitan", None])
def test_other_frameworks_keep_the_weights_bytes(cat, fw) -> None:  # type: ignore[no-untyped-def]
    task = "full" if fw in ("llama-factory", "peft") else "pretrain"
    assert grad_bytes_per_param(cat, _w(fw, task=task)) == 2.0


def test_lora_adapters_unchanged(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    a = estimate_memory(m, _w("nemo", task="lora", gpus=8, tp=1, zero=0), cat=cat)
    b = estimate_memory(m, _w(None, task="lora", gpus=8, tp=1, zero=0), cat=cat)
    assert a.breakdown_bytes == b.breakdown_bytes


def test_gradient_all_reduce_moves_the_same_bytes(cat) -> None:  # type: ignore[no-untyped-def]
    """One field, both uses: Megatron reduces main_grad in fp32 (grad_reduce_in_fp32), twice the bf16 bytes."""
    m = lookup.model(cat, "llama-3.3-70b")
    p = param_count(m).total
    assert S.training_speed_terms(m, _w("megatron"), cat).grad_comm_bytes == pytest.approx(p * 4.0)
    assert S.training_speed_terms(m, _w("deepspeed"), cat).grad_comm_bytes == pytest.approx(p * 2.0)
    acc = lookup.accelerator(cat, "a100-80g")
    mg = estimate(cat, m, acc, _w("megatron", grad_accum=8)).training
    ds = estimate(cat, m, acc, _w(None, grad_accum=8)).training  # no framework named: 16-bit, as before
    assert mg is not None and ds is not None
    assert mg.comm.dp_s == pytest.approx(2 * ds.comm.dp_s, rel=0.05)  # bandwidth term doubles, latency does not


def _bf16_grads_catalog(cat):  # type: ignore[no-untyped-def]
    """The catalog as it was before megatron-grad-fp32: every framework's gradients in the weights' 2 bytes."""
    return cat.model_copy(update={"frameworks": tuple(
        f.model_copy(update={"bf16_grad_bytes_per_param": None, "grad_bytes_source": None}) for f in cat.frameworks)})


def test_plan_that_fit_at_under_4_percent_headroom_is_now_refused(cat) -> None:  # type: ignore[no-untyped-def]
    """Qwen2.5-14B pre-training on 8 x H20 under Megatron, tp 1, ZeRO 1 (the distributed optimizer), full recompute: with
    2-byte gradients the planner's layout fit at 0.4 % headroom; the fp32 gradients add up to 2 bytes x 14.8 B parameters
    (27.5 GiB) per card, so the same pins are refused, with the per-card need named."""
    from suanli.plan.request import make_request
    from suanli.plan.search import fastest_layout

    m = lookup.model(cat, "qwen2.5-14b")
    req = make_request(model="qwen2.5-14b", task="pretrain", tokens=1e9, gpus=8, framework="megatron", tp=1, pp=1,
                       zero=1, recompute="full", precision="bf16")
    before, _ = fastest_layout(_bf16_grads_catalog(cat), m, req, "h20")
    assert before is not None
    headroom = 1 - before.memory_needed_bytes / before.memory_usable_bytes
    assert 0 <= headroom < 0.04
    now, why = fastest_layout(cat, m, req, "h20")
    assert now is None
    assert "does not fit" in why and "GiB per card" in why
    # the layout that fit now needs the fp32 gradients on top (its peak moves to the end of backward: all gradients, no
    # activations, so the growth is at most the 2 extra bytes per parameter)
    w = Workload(task="pretrain", precision="bf16", gpus=8, framework="megatron", zero=1, recompute="full",
                 batch=before.micro_batch, grad_accum=before.grad_accum, seq=req.seq)
    e = estimate_memory(m, w, lookup.accelerator(cat, "h20"), next(s for s in cat.stacks if s.id == "cuda"), cat)
    assert e.fits is False
    assert 0 < e.needed_bytes - before.memory_needed_bytes <= param_count(m).total * 2.0 + 1
