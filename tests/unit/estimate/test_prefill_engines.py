"""Issue 12, prefill: what the TensorRT-LLM v0.9.0 benchmark harness fed and ran, term by term — identical prompt
tokens route as one token through an MoE, and the v0.9.0 Mixtral rows of the FP8 tables are encoded at fp16."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from suanli.catalog import lookup
from suanli.estimate.speed import inference_speed_terms, weight_bytes_read
from suanli.estimate.workload import make_workload

VAL = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "validation" / "published_cases_2026_11.yaml"


def test_identical_tokens_read_only_the_routed_experts(cat) -> None:
    m = lookup.model(cat, "mistralai/Mixtral-8x7B-v0.1")
    kw = dict(task="inference", precision="fp16", input=2048, output=1, engine="trt-llm")
    uniform = inference_speed_terms(m, make_workload(**kw))
    same = inference_speed_terms(m, make_workload(**kw, identical_tokens=True))
    # 2048 distinct tokens touch every expert: 1 − (1 − 2/8)^2048 ≈ 1, so all weights but the embedding look-up
    assert weight_bytes_read(uniform, 2048.0) == pytest.approx(uniform.weights_bytes - uniform.lookup_bytes, rel=1e-9)
    # identical tokens route as one: the dense part plus top_k of the experts, as a single decode token reads
    assert weight_bytes_read(same, 2048.0) == pytest.approx(weight_bytes_read(uniform, 1.0), rel=1e-12)
    assert weight_bytes_read(same, 2048.0) < 0.4 * weight_bytes_read(uniform, 2048.0)


def test_identical_tokens_change_nothing_for_a_dense_model(cat) -> None:
    m = lookup.model(cat, "llama-2-7b")
    kw = dict(task="inference", precision="fp16", input=128, output=1, engine="trt-llm")
    a = inference_speed_terms(m, make_workload(**kw))
    b = inference_speed_terms(m, make_workload(**kw, identical_tokens=True))
    assert weight_bytes_read(a, 128.0) == weight_bytes_read(b, 128.0)


def test_trtllm_v090_mixtral_rows_are_fp16_with_identical_tokens() -> None:
    """TensorRT-LLM added FP8 for Mixtral in 0.10.0 (release notes), and gptSessionBenchmark fills each prompt with
    padId: every v0.9.0 Mixtral row says so, whatever table header it sat under."""
    cases = yaml.safe_load(VAL.read_text(encoding="utf-8"))["cases"]
    rows = [c for c in cases if c["id"].startswith("c2611-trtllm090-") and "mixtral" in c["id"]]
    assert len(rows) == 12
    for c in rows:
        assert c["precision"] == "fp16", c["id"]
        assert c["identical_tokens"] is True, c["id"]
        assert "padId" in c["note"], c["id"]
        if "-fp8-" in c["id"]:
            assert "Added FP8 quantization support for Mixtral" in c["note"], c["id"]
