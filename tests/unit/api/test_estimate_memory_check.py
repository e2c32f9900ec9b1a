"""POST /api/estimate says what `suanli estimate` prints about a tight fit (2026-12-01 closing note, defect 2):
'fits (tight)' / 'likely short', the headroom and the validated memory error and bias it is judged against, as typed
fields of the one view (`views.estimates.estimate_json`) that `suanli estimate --json` prints too, documented in the
OpenAPI schema; compare rows carry plan's needed / usable memory (defect 1)."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.estimate.estimate import pooled_bias
from suanli.plan.search import error_rule, memory_headroom_pct

R1 = {"model": "deepseek-r1", "gpu": "h20", "gpus": 8, "tp": 8, "precision": "int8"}
CHECK = ("fits_tight", "likely_short", "memory_group", "memory_headroom_pct", "memory_error_pct", "memory_bias_pct",
         "memory_warning", "memory_warning_i18n", "memory_likely_short", "memory_likely_short_i18n")


def _cli(*args: str) -> dict:  # type: ignore[type-arg]
    out = CliRunner().invoke(app, ["estimate", *args, "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)  # type: ignore[no-any-return]


def test_api_estimate_has_the_clis_memory_check(client: TestClient, wide_memory_bands) -> None:  # type: ignore[no-untyped-def]
    """DeepSeek-R1 int8 on 8 H20: 8.7 % headroom under CUDA's inference-memory |error| (12 % before 59baae9, pinned:
    `wide_memory_bands`), the bias −12 % exceeding it: likely short, in the API as in the CLI (the API had none of
    these fields)."""
    api = client.post("/api/estimate", json=R1).json()
    cli = _cli("--model", "deepseek-r1", "--gpu", "h20", "--gpus", "8", "--tp", "8", "--precision", "int8")
    assert {k: api[k] for k in CHECK} == {k: cli[k] for k in CHECK}
    assert api["fits_tight"] is True and api["likely_short"] is True and api["memory_group"] == "inference-memory"
    m = api["memory"]
    assert api["memory_headroom_pct"] == memory_headroom_pct(m["needed_bytes"], m["usable_bytes"])
    bands = wide_memory_bands
    assert api["memory_error_pct"] == error_rule(bands, "cuda", "inference-memory", True)[0]
    pb = pooled_bias(bands, "cuda", "inference-memory")
    assert pb is not None and api["memory_bias_pct"] == pb.bias_pct
    # the rule the fields state: tight under the error, short where the bias exceeds the headroom
    assert api["memory_headroom_pct"] < api["memory_error_pct"] and -api["memory_bias_pct"] > api["memory_headroom_pct"]
    assert api["memory_likely_short_i18n"]["id"] == "plan.reason.memory_likely_short"


def test_api_estimate_with_room_and_in_chinese(client: TestClient) -> None:
    roomy = client.post("/api/estimate", json={"model": "qwen2.5-7b", "gpu": "h100-sxm"}).json()
    assert roomy["fits_tight"] is False and roomy["likely_short"] is False and roomy["memory_warning"] is None
    assert roomy["memory_headroom_pct"] > roomy["memory_error_pct"]
    tight = {"model": "qwen2.5-7b", "task": "lora", "gpu": "a100-40g", "batch": 1, "seq": 2048}
    en = client.post("/api/estimate", json=tight).json()
    zh = client.post("/api/estimate?lang=zh", json=tight).json()
    assert en["fits_tight"] and not en["likely_short"] and en["memory_group"] == "training-memory"
    assert "headroom" in en["memory_warning"] and "余量" in zh["memory_warning"]
    assert zh["memory_warning_i18n"] == en["memory_warning_i18n"]


def test_openapi_documents_the_memory_check(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    props = schema["EstimateJson"]["properties"]
    for k in CHECK:
        assert k in props, k
    assert "memory_error_pct" in props["fits_tight"]["description"]
    row = schema["CompareRow"]["properties"]
    assert {"memory_needed_bytes", "memory_usable_bytes", "memory_pool_note"} <= set(row)


def test_api_compare_rows_have_plans_memory_figure(client: TestClient) -> None:
    rows = client.post("/api/compare", json={"model": "qwen2.5-7b", "devices": ["rtx-4090", "a100-80g"],
                                             "batch": 8}).json()
    cat = packaged_catalog()
    assert lookup.accelerator(cat, rows[0]["device"]).id == "rtx-4090"
    est = _cli("--model", "qwen2.5-7b", "--gpu", "rtx-4090", "--batch", "8", "--engine", "vllm")
    assert rows[0]["memory_needed_bytes"] == est["memory"]["needed_bytes"]
    assert rows[0]["memory_usable_bytes"] == est["memory"]["usable_bytes"]
    assert rows[0]["memory_pool_note"].startswith("vllm reserves 90% of the card")
