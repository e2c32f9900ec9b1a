"""Issue 12, prefill (2026-12-01): the facts the held-out GLM-4 transformers TTFT rows and llama.cpp A100 PCIe prompt
rows are estimated on, pinned so a later change to them is deliberate. No estimator change came of this pass (see
docs/validation-log.md): these tests record what the model assumes for those runs, term by term."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from suanli.catalog import lookup
from suanli.estimate.speed import inference_rates, inference_speed_terms, inference_step
from suanli.estimate.workload import make_workload

DATA = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation"


def _cases(name: str, prefix: str) -> list[dict]:
    doc = yaml.safe_load((DATA / name).read_text(encoding="utf-8"))
    return [c for c in doc["cases"] if c["id"].startswith(prefix)]


def test_glm4_ttft_rows_are_one_token_through_sdpa() -> None:
    """GLM-4's remote code (modeling_chatglm.py) takes SDPA's is_causal path when no padding mask is built, which the
    stress test's all-ones mask does not trigger: a fused kernel, no score matrix; TTFT is the prefill's first token."""
    rows = [c for c in _cases("published_engines.yaml", "eng-glm4-9b-hf-bf16-in") if c["group"] == "prefill-speed"]
    assert len(rows) == 4
    for c in rows:
        assert c["engine"] == "hf" and c["output"] == 1 and c["batch"] == 1 and c["holdout"] is True
        assert "flash_attention" not in c or c["flash_attention"], c["id"]  # fused attention: unset means on


def test_hf_prefill_has_no_score_traffic_with_flash_and_pays_the_step_overhead_once(cat) -> None:
    m = lookup.model(cat, "THUDM/glm-4-9b-chat")
    acc = lookup.accelerator(cat, "a100-80g")
    w = make_workload(task="inference", precision="bf16", input=1000, output=1, engine="hf")
    t = inference_speed_terms(m, w)
    assert t.prefill_score_bytes_per_token == 0.0
    r, _ = inference_rates(cat, acc, w)
    k = inference_step(t, np.float64(1), np.float64(1), np.float64(1), r)
    no_overhead = inference_step(t, np.float64(1), np.float64(1), np.float64(1), {**r, "overhead": 0.0})
    assert float(k["prefill_s"]) - float(no_overhead["prefill_s"]) == pytest.approx(r["overhead"], rel=1e-9)


def test_llamacpp_a100_roof_is_the_datasheet_fp16_rate(cat) -> None:
    """llama.cpp's cuBLAS path computes in F16 (CUBLAS_COMPUTE_16F); on the A100 the FP16-accumulate and
    FP32-accumulate tensor rates are the same 312 TFLOPS, so the roof is the datasheet's dense FP16 figure."""
    m = lookup.model(cat, "llama-2-7b")
    w = make_workload(task="inference", precision="fp16", input=512, output=1, engine="llama.cpp", flash_attention=False)
    for dev in ("a100-80g-pcie", "a100-80g"):
        acc = lookup.accelerator(cat, dev)
        r, _ = inference_rates(cat, acc, w)
        assert r["peak"] == pytest.approx(acc.specs.fp16_dense_tflops.value * 1e12, rel=1e-9)
    assert inference_speed_terms(m, w).prefill_score_bytes_per_token > 0.0  # no flash attention in March 2024


def test_llamacpp_a100_rows_run_without_flash_attention() -> None:
    rows = _cases("published_holdout.yaml", "hold-llamacpp-a100-pcie-llama2-7b-f16-pp")
    assert {c["input"] for c in rows} == {512, 2048, 8192}
    for c in rows:
        assert c["engine"] == "llama.cpp" and c["flash_attention"] is False and c["holdout"] is True
