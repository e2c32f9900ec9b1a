"""QLoRA and FSDP-LoRA training memory as the frameworks run it (issue 12, memory).

- `bnb_saves_inputs`: bitsandbytes MatMul4Bit keeps each 4-bit linear's input for backward (`ctx.tensors = (A, B)`),
  which a frozen 16-bit linear does not: per token and layer h + a·d + h + f elements beyond the same LoRA in bf16.
- `fsdp_mixed_units`: FSDP1 units mixing frozen and LoRA weights have a whole-numel gradient, kept unsharded under
  no_sync gradient accumulation and reduce-scattered to 1/dp otherwise; the all-frozen root (embedding, lm_head) none.
Both are workload flags read by the one training kernel, so the planner's terms are the estimate's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model
from suanli.estimate.memory import estimate_memory, training_memory, training_memory_terms
from suanli.estimate.params import param_count
from suanli.estimate.workload import RECOMPUTE, make_workload

VAL = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation" / "published.yaml"


@pytest.fixture(scope="module")
def llama7b():  # type: ignore[no-untyped-def]
    return model(packaged_catalog(), "llama-2-7b")


def test_bnb_inputs_add_exactly_the_quantized_linears_inputs(llama7b) -> None:  # type: ignore[no-untyped-def]
    kw = dict(task="qlora", precision="nf4", batch=1, seq=1304, lora_rank=8, lora_targets="q,v")
    plain = estimate_memory(llama7b, make_workload(**kw))
    bnb = estimate_memory(llama7b, make_workload(**kw, bnb_saves_inputs=True))
    h, f, layers = 4096, 11008, 32
    expected = (h + h + h + f) * 2 * 1304 * layers  # bf16 inputs of QKV, o_proj, gate/up (shared), down
    added = bnb.per_gpu_bytes - plain.per_gpu_bytes
    assert added == pytest.approx(expected, rel=1e-9)
    assert expected / 1e9 == pytest.approx(1.944, abs=0.001)  # the hand figure of the validation log
    # the flag means nothing for bf16 LoRA (no 4-bit linears)
    lora = dict(kw, task="lora", precision="bf16")
    assert estimate_memory(llama7b, make_workload(**lora, bnb_saves_inputs=True)).per_gpu_bytes == \
        estimate_memory(llama7b, make_workload(**lora)).per_gpu_bytes


def test_bnb_inputs_under_full_recompute_only_one_layer(llama7b) -> None:  # type: ignore[no-untyped-def]
    kw = dict(task="qlora", precision="nf4", batch=1, seq=1024, recompute="full")
    added = (estimate_memory(llama7b, make_workload(**kw, bnb_saves_inputs=True)).per_gpu_bytes
             - estimate_memory(llama7b, make_workload(**kw)).per_gpu_bytes)
    assert added == pytest.approx((3 * 4096 + 11008) * 2 * 1024, rel=1e-9)


def test_fsdp_mixed_units_gradient(llama7b) -> None:  # type: ignore[no-untyped-def]
    p = param_count(llama7b)
    blocks_bf16 = (p.total - p.embedding - p.lm_head) * 2.0
    kw = dict(task="lora", precision="bf16", gpus=2, zero=3, batch=1, seq=1304, lora_rank=8, lora_targets="q,v",
              recompute="full", fsdp_mixed_units=True)
    acc = estimate_memory(llama7b, make_workload(**kw, grad_accum=128))
    one = estimate_memory(llama7b, make_workload(**kw))
    lora_grads = 4_194_304 * 4.0
    # no_sync: the whole unsharded gradient of every decoder layer; synced each step: reduce-scattered to 1/dp
    assert acc.breakdown_bytes["gradients"] == pytest.approx(blocks_bf16 + lora_grads, rel=1e-9)
    assert one.breakdown_bytes["gradients"] == pytest.approx((blocks_bf16 + lora_grads) / 2, rel=1e-9)
    # without FSDP (zero < 2) the flag changes nothing
    ddp = dict(kw, zero=0)
    assert estimate_memory(llama7b, make_workload(**ddp, grad_accum=4)).per_gpu_bytes == \
        estimate_memory(llama7b, make_workload(**dict(ddp, fsdp_mixed_units=False), grad_accum=4)).per_gpu_bytes


def test_kernel_over_arrays_matches_estimate(llama7b) -> None:  # type: ignore[no-untyped-def]
    """The planner calls the same kernel on arrays of layouts: same figure as the estimate."""
    import numpy as np

    w = make_workload(task="lora", precision="bf16", gpus=4, zero=3, batch=1, seq=1304, lora_rank=8,
                      lora_targets="q,v", recompute="full", fsdp_mixed_units=True, grad_accum=32)
    t = training_memory_terms(llama7b, w)
    parts = training_memory(t, np.array([1]), np.array([1]), np.array([4]), np.array([1]), np.array([3]),
                            np.array([RECOMPUTE.index("full")]), np.array([1]), np.array([32]))
    total = sum(float(v[0]) for v in parts.values())
    assert total == pytest.approx(estimate_memory(llama7b, w).per_gpu_bytes, rel=1e-9)


def test_litgpt_cases_state_the_flags() -> None:
    cases = {c["id"]: c for c in yaml.safe_load(VAL.read_text(encoding="utf-8"))["cases"]}
    for cid in ("litgpt-llama-2-7b-qlora-nf4dq-mb1-1gpu-mem", "litgpt-llama-2-13b-qlora-nf4dq-mb1-1gpu-mem"):
        assert cases[cid]["bnb_saves_inputs"] is True
        assert "ctx.tensors = (A, B)" in cases[cid]["note"]
    for cid, ga in (("litgpt-llama-2-7b-lora-mb1-2gpu-mem", 128), ("litgpt-llama-2-7b-lora-mb4-2gpu-mem", 32),
                    ("litgpt-llama-2-13b-lora-mb1-4gpu-mem", 128)):
        assert cases[cid]["fsdp_mixed_units"] is True and cases[cid]["grad_accum"] == ga
        assert "no_sync" in cases[cid]["note"]
    # torchtune's QLoRA does not run bitsandbytes (torchao NF4 weights): no flag
    engines = yaml.safe_load((VAL.parent / "published_engines.yaml").read_text(encoding="utf-8"))["cases"]
    tt = next(c for c in engines if c["id"] == "eng-torchtune-llama-3.1-8b-qlora-4090-mem")
    assert not tt.get("bnb_saves_inputs", False)
