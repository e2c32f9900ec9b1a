"""Issue 12, fourth pass: gradients accumulated over micro-batches are alive when backward starts — by hand."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.estimate import arch
from suanli.estimate.memory import estimate_memory
from suanli.estimate.workload import make_workload


def test_accumulated_gradients_are_alive_at_the_start_of_backward(cat) -> None:
    m = lookup.model(cat, "qwen-7b")
    kw = dict(task="lora", precision="bf16", batch=1, seq=2048, recompute="full", lora_rank=64,
              lora_targets="all-linear")
    one = estimate_memory(m, make_workload(**kw))
    accum = estimate_memory(m, make_workload(**kw, grad_accum=8))
    adapters = arch.lora_params(m, 64, "all-linear")
    # one micro-batch per step: no gradient exists when backward starts (LoRA has no lm_head gradient);
    # from the second micro-batch on, every fp32 adapter gradient is
    assert one.breakdown_bytes["gradients"] == 0.0
    assert accum.breakdown_bytes["gradients"] == pytest.approx(adapters * 4.0)
    assert accum.breakdown_bytes["activations"] == pytest.approx(one.breakdown_bytes["activations"])
    assert accum.per_gpu_bytes - one.per_gpu_bytes == pytest.approx(adapters * 4.0)


def test_accumulated_gradients_follow_zero_sharding(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    kw = dict(task="full", precision="bf16", gpus=8, batch=1, seq=2048, recompute="full", grad_accum=4)
    z1 = estimate_memory(m, make_workload(**kw, zero=1)).breakdown_bytes["gradients"]
    z2 = estimate_memory(m, make_workload(**kw, zero=2)).breakdown_bytes["gradients"]
    assert z2 == pytest.approx(z1 / 8)  # ZeRO-2 keeps 1/dp of the (accumulated) gradients
