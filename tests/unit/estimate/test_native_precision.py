"""An FP8 checkpoint (DeepSeek-V3/R1: config.json quantization_config quant_method fp8, 128x128 blocks) is served in
FP8 where the device runs FP8 and converted to bf16 with a note elsewhere: one rule
(estimate.precision.default_precision) for estimate, compare, migrate cost and the API (buyer review 2026-12-01)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.hf_config import from_hf_config
from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.estimate.estimate import estimate
from suanli.estimate.precision import default_precision, native_precision_note
from suanli.estimate.workload import make_workload
from suanli.i18n import render
from suanli.plan.compare import compare_devices

CAT = packaged_catalog()


def _stack(acc_id: str):  # type: ignore[no-untyped-def]
    acc = lookup.accelerator(CAT, acc_id)
    return acc, lookup.stack(CAT, acc.stack)


@pytest.mark.parametrize("model", ["deepseek-v3", "deepseek-r1", "deepseek-ai/DeepSeek-R1-0528"])
def test_the_deepseek_presets_record_the_fp8_checkpoint(model: str) -> None:
    assert lookup.model(CAT, model).native_dtype == "fp8"
    assert lookup.model(CAT, "qwen2.5-7b").native_dtype is None


@pytest.mark.parametrize(("device", "task", "want"), [
    ("h200", "inference", "fp8"), ("h20", "inference", "fp8"), ("l40s", "inference", "fp8"),  # Hopper, Ada
    ("a100-80g", "inference", "bf16"), ("ascend-910b", "inference", "bf16"),  # no FP8 tensor cores
    ("h200", "lora", "bf16"), ("h200", "full", "bf16"),  # training stays bf16
])
def test_default_precision_follows_the_checkpoint_where_the_device_runs_it(device: str, task: str, want: str) -> None:
    acc, stack = _stack(device)
    assert default_precision(lookup.model(CAT, "deepseek-v3"), acc, stack, task) == want
    assert default_precision(lookup.model(CAT, "qwen2.5-72b"), acc, stack, task) == "bf16"  # a 16-bit checkpoint


def test_notes_say_converted_asked_or_upcast() -> None:
    m = lookup.model(CAT, "deepseek-v3")
    acc, stack = _stack("ascend-910b")
    n = native_precision_note(m, acc, stack, "inference", "bf16")
    assert n is not None and render(n) == "the checkpoint is FP8; this device runs it converted to bf16 (2x the weights)"
    assert "转换为 bf16" in render(n, "zh")
    h200, hs = _stack("h200")
    asked = native_precision_note(m, h200, hs, "inference", "bf16")
    assert asked is not None and asked.id == "precision.native_fp8.asked"
    assert native_precision_note(m, h200, hs, "inference", "fp8") is None
    assert native_precision_note(m, h200, hs, "inference", "int4") is None  # a requantized checkpoint: its own choice
    up = native_precision_note(m, h200, hs, "lora", "bf16")
    assert up is not None and "upcast to bf16" in render(up)
    assert native_precision_note(lookup.model(CAT, "qwen2.5-7b"), acc, stack, "inference", "bf16") is None


def test_estimate_notes_the_conversion() -> None:
    m = lookup.model(CAT, "deepseek-r1")
    e = estimate(CAT, m, lookup.accelerator(CAT, "ascend-910b"), make_workload(task="inference", gpus=8, tp=8))
    assert any("the checkpoint is FP8" in n for n in e.notes)
    assert any(isinstance(j, dict) and j.get("id") == "precision.native_fp8.converted" for j in e.notes_i18n)


def test_8x_h200_serves_deepseek_in_fp8_by_default() -> None:
    """The buyer's case: `suanli estimate --model deepseek-r1 --gpu h200 --gpus 8 --tp 8` fits in FP8 (127 GiB per
    card) where bf16 does not."""
    r = CliRunner().invoke(app, ["estimate", "--model", "deepseek-r1", "--gpu", "h200", "--gpus", "8", "--tp", "8",
                                 "--json"])
    assert r.exit_code == 0, r.output
    c = json.loads(r.output)
    assert c["workload"]["precision"] == "fp8" and c["memory"]["fits"] is True
    assert 120 < c["memory"]["per_gpu_gib"] < 130
    r = CliRunner().invoke(app, ["estimate", "--model", "deepseek-r1", "--gpu", "h200", "--gpus", "8", "--tp", "8",
                                 "--precision", "bf16", "--json"])
    c = json.loads(r.output)
    assert c["workload"]["precision"] == "bf16" and c["memory"]["fits"] is False
    assert any("--precision bf16 runs it converted" in n for n in c["notes"])


def test_compare_runs_each_device_at_its_default() -> None:
    rows = compare_devices(CAT, lookup.model(CAT, "deepseek-v3"), ["h20", "ascend-910b", "h200"], gpus=8)
    by = {r["device"]: r for r in rows}
    assert by["h200"]["layout"]["precision"] == "fp8" and by["h200"]["fits"] is True
    assert by["h20"]["layout"]["precision"] == "fp8" and "fp8" in by["h200"]["layout"]["label"]
    assert by["ascend-910b"]["layout"]["precision"] == "bf16"
    assert by["ascend-910b"]["precision_note_i18n"]["id"] == "precision.native_fp8.converted"
    assert by["h200"]["precision_note"] is None
    pinned = compare_devices(CAT, lookup.model(CAT, "deepseek-v3"), ["h200", "h20"], gpus=8, precision="bf16")
    assert all(r["layout"]["precision"] == "bf16" for r in pinned)
    dense = compare_devices(CAT, lookup.model(CAT, "qwen2.5-7b"), ["h200", "ascend-910b"])
    assert all(r["layout"]["precision"] == "bf16" and r["precision_note"] is None for r in dense)


def test_migration_serving_saving_uses_the_default_too() -> None:
    from suanli.plan.compare import _serving_workload

    w, layout, _ = _serving_workload(CAT, lookup.model(CAT, "deepseek-v3"), lookup.accelerator(CAT, "h200"), 8)
    assert w.precision == "fp8" and layout["precision"] == "fp8"
    w, layout, _ = _serving_workload(CAT, lookup.model(CAT, "deepseek-v3"), lookup.accelerator(CAT, "ascend-910b"), 8)
    assert w.precision == "bf16"


def test_api_estimate_defaults_like_the_cli() -> None:
    pytest.importorskip("fastapi", reason="the API is the `service` extra; `make test` installs it, so CI runs this")
    from fastapi.testclient import TestClient

    from suanli.api.app import create_app

    client = TestClient(create_app())
    r = client.post("/api/estimate", json={"model": "deepseek-r1", "gpu": "h200", "gpus": 8, "tp": 8})
    assert r.status_code == 200, r.text
    assert r.json()["workload"]["precision"] == "fp8"
    r = client.post("/api/estimate", json={"model": "deepseek-r1", "gpu": "h200", "gpus": 8, "tp": 8,
                                           "precision": "bf16"})
    assert r.json()["workload"]["precision"] == "bf16"


def test_hf_config_reads_the_quantization_config(tmp_path: Path) -> None:
    base = {"model_type": "qwen3", "hidden_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 8,
            "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072, "vocab_size": 1000,
            "max_position_embeddings": 4096}
    assert from_hf_config(base, "x").native_dtype is None
    fp8 = {**base, "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                           "weight_block_size": [128, 128]}}
    assert from_hf_config(fp8, "x").native_dtype == "fp8"
    ct = {**base, "quantization_config": {"quant_method": "compressed-tensors", "config_groups": {
        "group_0": {"weights": {"type": "float", "num_bits": 8}, "targets": ["Linear"]}}}}
    assert from_hf_config(ct, "x").native_dtype == "fp8"
    awq = {**base, "quantization_config": {"quant_method": "awq", "bits": 4}}
    assert from_hf_config(awq, "x").native_dtype is None
    generic = {k: v for k, v in fp8.items() if k != "head_dim"} | {"model_type": "olmo2"}  # the generic reader
    assert from_hf_config(generic, "x").native_dtype == "fp8"


def test_plans_say_the_conversion_and_no_quantization_warning_for_the_checkpoints_own_fp8() -> None:
    import datetime as dt

    from suanli.plan.request import make_request
    from suanli.plan.search import plan

    m = lookup.model(CAT, "qwen3-30b-a3b").model_copy(update={"native_dtype": "fp8"})  # as a *-FP8 config.json reads
    kinds = ("listing", "index", "reference")
    req = make_request(model=m.id, task="inference", requests_per_s=1, devices=("a100-80g",), offer_kinds=kinds)
    r = plan(CAT, m, req, dt.date(2026, 12, 1))
    bf16 = [p for p in r.plans if p.precision == "bf16"]
    assert bf16 and all("precision.native_fp8.converted" in [j["id"] for j in p.warnings_i18n] for p in bf16)
    req = make_request(model=m.id, task="inference", requests_per_s=1, devices=("h200",), precision="fp8",
                       offer_kinds=kinds)
    r = plan(CAT, m, req, dt.date(2026, 12, 1))
    assert r.plans and all(p.precision == "fp8" for p in r.plans)
    assert not any(j["id"] == "plan.warn.quantization" for p in r.plans for j in p.warnings_i18n)
    dense = plan(CAT, lookup.model(CAT, "qwen3-30b-a3b"), req.model_copy(update={"model": "Qwen/Qwen3-30B-A3B"}),
                 dt.date(2026, 12, 1))
    assert any(j["id"] == "plan.warn.quantization" for p in dense.plans for j in p.warnings_i18n)
