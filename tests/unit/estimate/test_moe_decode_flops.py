"""LoRA on an MoE model (buyer review 2026-12-01): `suanli estimate --model qwen3-30b-a3b --gpu h20 --task lora` printed
model FLOPs/token 23.08 G above hardware FLOPs/token 17.0 G. Both terms counted the same active matmul parameters (the
MoE counting was consistent); the model term was the full-training 6N while MFU and the hardware term use LoRA's 4N
(frozen weights: forward 2N + input gradients 2N, Hu et al. 2021 §4.2). The model FLOPs are now the task's."""

from __future__ import annotations

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.estimate import arch
from suanli.estimate.precision import peak_flops_per_s
from suanli.estimate.speed import matmul_params, training_speed
from suanli.estimate.workload import Workload


@pytest.mark.parametrize("name", ["qwen3-30b-a3b", "qwen2.5-7b"])
@pytest.mark.parametrize("task", ["lora", "full"])
def test_model_flops_never_above_hardware_flops(name: str, task: str) -> None:
    cat = packaged_catalog()
    m, acc = model(cat, name), accelerator(cat, "h20")
    w = Workload(task=task, precision="bf16", gpus=1, seq=2048, batch=1)
    s = training_speed(cat, m, acc, w)
    assert s.model_flops_per_token <= s.hardware_flops_per_token * (1 + 1e-12)
    n, attn = matmul_params(m), arch.attention_flops_per_token(m, w.seq)  # active parameters for MoE
    per_n = 4 if task == "lora" else 6
    assert s.model_flops_per_token == pytest.approx(per_n * n + 3 * attn)
    # MFU is the rate of these model FLOPs over the device's dense peak
    peak, _ = peak_flops_per_s(acc, w.precision)
    assert s.mfu == pytest.approx(s.train_tokens_per_s * s.model_flops_per_token / peak)
