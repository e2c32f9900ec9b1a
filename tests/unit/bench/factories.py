"""Builders of benchmark results for the bench tests (no torch needed). conftest.py puts this folder on
sys.path, so test modules `from factories import ...`."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from suanli.bench.backends import BackendInfo
from suanli.bench.calibrate import DevicePeaks, decode_bytes_per_step, prefill_flops_per_token
from suanli.catalog.hf_config import from_hf_config
from suanli.catalog.schema import ModelArch
from suanli.bench.models import ModelInfo
from suanli.bench.results import (
    AccuracyResult,
    BandwidthResult,
    BenchResult,
    MatmulResult,
    Microbench,
    RunConfig,
    Throughput,
)

__all__ = ["ARCH", "MODEL", "PEAKS", "arch_of", "small_result", "synthetic"]


def small_result(i: int = 0) -> BenchResult:
    """A tiny CPU result with fixed numbers (store and listing tests)."""
    return BenchResult(
        id=f"20260101T00000{i}Z-abc{i}",
        created_at=dt.datetime(2026, 1, 1, 0, 0, i, tzinfo=dt.UTC),
        backend=BackendInfo(backend="cpu", device="cpu", device_name="test cpu", memory_kind="process-peak-rss"),
        model=ModelInfo(
            name="m",
            kind="preset",
            key="m",
            architecture="LlamaForCausalLM",
            random_weights=True,
            params=10,
            weight_bytes=40,
            precision="fp32",
            num_layers=1,
            hidden_size=4,
            num_attention_heads=1,
            num_kv_heads=1,
            head_dim=4,
            vocab_size=2,
        ),
        config=RunConfig(
            device="cpu", model="m", precision="fp32", batch=1, input_tokens=4, output_tokens=3, warmup=0, repeats=1
        ),
        throughput=Throughput(
            prefill_tokens=4,
            prefill_time_s=0.5,
            prefill_tokens_per_s=8.0,
            ttft_s=0.6,
            decode_steps=2,
            decode_tokens=2,
            decode_time_s=1.0,
            decode_tokens_per_s=2.0,
            decode_step_latency_s=0.5,
            peak_memory_bytes=1000,
            memory_kind="process-peak-rss",
        ),
    )


PEAKS = DevicePeaks(
    device="test-gpu",
    memory_bandwidth_bytes_per_s=2.0e12,
    dense_flops_per_s={"bf16": 400e12, "fp32": 50e12},
    source="synthetic",
)
MODEL = ModelInfo(
    name="m",
    kind="preset",
    key="m",
    architecture="LlamaForCausalLM",
    random_weights=True,
    params=7_000_000_000,
    weight_bytes=14_000_000_000,
    precision="bf16",
    num_layers=32,
    hidden_size=4096,
    num_attention_heads=32,
    num_kv_heads=8,
    head_dim=128,
    vocab_size=32000,
)


# the architecture behind MODEL (a Llama-2-7B-like shape with 8 KV heads), as calibration rebuilds it
ARCH = from_hf_config({"model_type": "llama", "vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
                       "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                       "tie_word_embeddings": False}, name="m")


def arch_of(r: BenchResult) -> ModelArch | None:
    """`fit_efficiency`'s architecture look-up for the synthetic results."""
    return ARCH if r.model.name == "m" else None


def synthetic(
    decode_eff: float,
    mfu: float,
    matmul_eff: float,
    copy_eff: float,
    batch: int = 4,
    i: int = 0,
    accelerator: str = "test-gpu",
    passed: bool = True,
) -> BenchResult:
    """A result whose speeds are exactly the given fractions of PEAKS."""
    cfg = RunConfig(
        device="cuda:0",
        model="m",
        precision="bf16",
        batch=batch,
        input_tokens=512,
        output_tokens=128,
        warmup=1,
        repeats=3,
    )
    base = BenchResult(
        id=f"r{i}",
        created_at=dt.datetime(2026, 1, 1 + i, tzinfo=dt.UTC),
        command=f"cmd {i}",
        accelerator=accelerator,
        backend=BackendInfo(
            backend="cuda", device="cuda:0", device_name="Test GPU", memory_kind="device-max-allocated"
        ),
        model=MODEL,
        config=cfg,
        throughput=Throughput(
            prefill_tokens=1,
            prefill_time_s=1,
            prefill_tokens_per_s=1,
            ttft_s=1,
            decode_steps=127,
            decode_tokens=1,
            decode_time_s=1,
            decode_tokens_per_s=1,
            decode_step_latency_s=1,
            peak_memory_bytes=1,
            memory_kind="device-max-allocated",
        ),
    )
    assert PEAKS.memory_bandwidth_bytes_per_s is not None
    steps_per_s = decode_eff * PEAKS.memory_bandwidth_bytes_per_s / decode_bytes_per_step(base, ARCH)
    prefill_tps = mfu * PEAKS.dense_flops_per_s["bf16"] / prefill_flops_per_token(base, ARCH)
    tp = base.throughput.model_copy(
        update={"decode_tokens_per_s": steps_per_s * batch, "prefill_tokens_per_s": prefill_tps}
    )
    micro = Microbench(
        matmul=[
            MatmulResult(precision="bf16", n=8192, flops_per_call=2 * 8192**3, time_s=1, tflops=matmul_eff * 400),
            MatmulResult(precision="fp8", n=8192, flops_per_call=2 * 8192**3, time_s=1, tflops=1.0),
        ],
        bandwidth=BandwidthResult(
            buffer_bytes=2**30,
            bytes_per_call=2**31,
            time_s=1,
            bytes_per_s=copy_eff * PEAKS.memory_bandwidth_bytes_per_s,
        ),
    )
    acc = AccuracyResult(
        passed=passed,
        verdict="x",
        reference_id="ref",
        reference_device="cpu",
        reference_precision="fp32",
        precision="bf16",
        n_tokens=256,
        perplexity=1,
        reference_perplexity=1,
        perplexity_rel_diff=0,
        max_abs_logit_diff=0,
        max_logit_rel_diff=0,
        tolerance_logit_rel=0.05,
        tolerance_perplexity_rel=0.03,
        tolerance_source="assumed",
    )
    return base.model_copy(update={"throughput": tp, "micro": micro, "accuracy": acc})


SUITE_RUN_ID = "20261201T000000Z-0a5f1b"
SUITE_HF_CONFIG = {"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4,
                   "num_key_value_heads": 2, "intermediate_size": 512, "vocab_size": 1000}


def suite_case_doc() -> dict[str, Any]:
    """One `bench suite` case record as JSON (decode of tiny-llama on an H100 SXM), as the suite writes it: the tests
    edit it (a hand-edited or hostile file) before writing it into a result folder."""
    from suanli.bench.suite import CaseRecord, Environment, SuiteCase

    env = Environment(date=dt.datetime(2026, 12, 1, tzinfo=dt.UTC), host="h", python="3.12", platform="linux",
                      suanli_version="0", torch="2.5", transformers="4.50", peft="0.14", backend="cuda",
                      device="cuda:0", device_name="NVIDIA H100 80GB HBM3", memory_kind="device-max-allocated")
    rec = CaseRecord(
        run_id=SUITE_RUN_ID, status="ok", command="suanli bench suite out", environment=env, accelerator="h100-sxm",
        case=SuiteCase(id="decode-tiny-b1-loop", kind="inference", phase=2, shape="tiny", model="tiny-llama",
                       measure="decode", mode="loop", input_tokens=64, output_tokens=16),
        hf_config=dict(SUITE_HF_CONFIG), metrics={"decode_tokens_per_s": 100.0, "peak_memory_bytes": 1000,
                                                   "memory_kind": "device-max-allocated"},
        bench_result=synthetic(0.5, 0.4, 0.8, 0.9, accelerator="h100-sxm"))
    doc: dict[str, Any] = json.loads(rec.model_dump_json())
    return doc
