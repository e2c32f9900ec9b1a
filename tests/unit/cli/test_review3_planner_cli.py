"""Buyer's review 2026-12-01 (third pass), items 2-7 on the CLI and the API: a diffusion model's plan refused in
one line naming estimate and scenarios (API: routes and fields); a batch job's assumptions without the serving
period and its amount named generated tokens; an inference estimate that does not fit says none (JSON: runs false);
one naming rule for config files; the H20's unpriced note and the relax hint from the rows that exist; chunked
prefill's score memory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from suanli.catalog.hf_config import config_model_name

QWEN3_MOE = ('{"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048, '
             '"intermediate_size": 6144, "moe_intermediate_size": 768, "num_hidden_layers": 48, '
             '"num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "vocab_size": 151936, '
             '"num_experts": 128, "num_experts_per_tok": 8, "max_position_embeddings": 40960, '
             '"torch_dtype": "bfloat16", "tie_word_embeddings": false, "rope_theta": 1000000.0, '
             '"rms_norm_eps": 1e-06, "norm_topk_prob": true}')


def _run(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUANLI_TODAY": "2026-12-01", "COLUMNS": "200"}
    if home is not None:
        env["SUANLI_HOME"] = str(home)
        env.pop("SUANLI_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def _client():  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi", reason="the service extra (CI installs it)")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    return TestClient(create_app(Settings(database_url="sqlite://", api_token=None)))


def test_diffusion_plan_is_refused_in_one_line_naming_what_to_use() -> None:
    r = _run("plan", "--model", "sdxl", "--task", "inference", "--requests-per-s", "1")
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "suanli estimate --model" in lines[0] and "suanli scenarios" in lines[0]
    assert "use --task inference" not in r.stderr  # the old, contradictory hint


def test_diffusion_plan_api_names_routes_and_fields_not_flags() -> None:
    r = _client().post("/api/plan", json={"model": "sdxl", "task": "inference", "requests_per_s": 1})
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == "model"
    assert "POST /api/estimate" in body["error"] and "GET /api/scenarios" in body["error"]
    assert "--" not in body["error"] and "suanli " not in body["error"]


def test_batch_job_has_no_serving_period_and_names_generated_tokens() -> None:
    args = ("plan", "--model", "qwen2.5-7b", "--task", "inference", "--tokens", "1e8", "--input", "1000", "--output",
            "300")
    r = _run(*args)
    assert r.returncode == 0, r.stderr
    assert "serving period" not in r.stdout and "billed on top" not in r.stdout
    assert "100,000,000 generated (output) tokens" in r.stdout
    assert "in the job's hours and cost" in r.stdout
    zh = _run("--lang", "zh", *args)
    assert "生成 100,000,000 个（输出）token" in zh.stdout and "服务时长" not in zh.stdout
    # a serving request keeps its period
    serve = _run("plan", "--model", "qwen2.5-7b", "--task", "inference", "--requests-per-s", "1")
    assert "serving period 730.0 h" in serve.stdout  # a calendar month (units.HOURS_PER_MONTH)


def test_inference_that_does_not_fit_prints_no_speed() -> None:
    args = ("estimate", "--model", "qwen3-30b-a3b", "--gpu", "rtx-4090", "--batch", "1")
    r = _run(*args)
    assert r.returncode == 0, r.stderr
    assert "does not fit" in r.stdout and "speed: none" in r.stdout
    assert "decode_tokens_per_s" not in r.stdout and "time to first serve" not in r.stdout
    import json

    j = json.loads(_run(*args, "--json").stdout)
    assert j["runs"] is False and j["memory"]["fits"] is False and j["speed"]["decode_tokens_per_s"] > 0
    fits = json.loads(_run("estimate", "--model", "qwen2.5-7b", "--gpu", "h100", "--json").stdout)
    assert fits["runs"] is True
    api = _client().post("/api/estimate", json={"model": "qwen3-30b-a3b", "gpu": "rtx-4090", "batch": 1}).json()
    assert api["runs"] is False


def test_one_naming_rule_for_config_files(tmp_path: Path) -> None:
    assert config_model_name({}, "/tmp/cfgs/qwen3moe.json") == "qwen3moe"
    assert config_model_name({}, "models/Qwen3-30B-A3B/config.json") == "Qwen3-30B-A3B"
    assert config_model_name({"_name_or_path": "Qwen/Qwen3-30B-A3B"}, "/x/y.json") == "Qwen/Qwen3-30B-A3B"
    assert config_model_name({"_name_or_path": "/root/ckpt/my-model/"}, "/x/y.json") == "my-model"
    d = tmp_path / "cfgs"
    d.mkdir()
    f = d / "qwen3moe.json"
    f.write_text(QWEN3_MOE, encoding="utf-8")
    plan = _run("plan", "--model", str(f), "--task", "lora", "--tokens", "1e8")
    model = _run("model", str(f))
    assert plan.stdout.startswith("Plan qwen3moe ·"), plan.stdout[:200]
    assert model.stdout.startswith("qwen3moe "), model.stdout[:200]


def test_h20_notes_follow_the_rows_that_exist(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy", reason="the store needs the `service` extra (SQLAlchemy); `make test` installs it, so CI runs this")
    # the H20 141GB: index rows only (the 96 GB H20 was this example until offers-7.yaml listed it)
    before = _run("offers", "--device", "h20-141g", home=tmp_path)
    assert "no Chinese H20 141GB listing" in before.stdout
    # the relax hint names the kinds the device has rows of in the region (index), not the seeds' references
    r = _run("plan", "--model", "qwen2.5-7b", "--task", "inference", "--requests-per-s", "1", "--gpu", "h20-141g",
             home=tmp_path)
    assert "--offer-kinds listing,index to include the index prices" in r.stdout
    assert "listing,reference" not in r.stdout
    f = tmp_path / "h20.csv"
    f.write_text("id,provider,device,cards,billing_unit,price_cny,date,source,region\n"
                 "my-h20,Acme,h20-141g,1,hour,9.5,2026-11-30,acme quote,cn\n", encoding="utf-8")
    assert _run("offers", "import", str(f), home=tmp_path).returncode == 0
    after = _run("offers", "--device", "h20-141g", home=tmp_path)
    assert "Acme" in after.stdout and "no Chinese H20 141GB listing" not in after.stdout
