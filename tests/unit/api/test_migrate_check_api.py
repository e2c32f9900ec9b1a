"""POST /api/migrate/check: `suanli migrate check --json` over HTTP (a buyer's integration asks "will this model run on
Ascend?" without a shell): the same report, its sentences in the request's language, bounded inputs, one error
shape, and never a file read on the server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

pytest.importorskip("torch", reason="migrate check traces with the torch extra")
pytest.importorskip("transformers", reason="migrate check traces with the torch extra")

CHECK = "/api/migrate/check"


@pytest.fixture(scope="module")
def no_token(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(token=None)  # a read: answered on a server with no SUANLI_API_TOKEN


def _ok(c: TestClient, body: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    r = c.post(CHECK, json=body, params={"lang": lang})
    assert r.status_code == 200, r.text[:500]
    return r.json()  # type: ignore[no-any-return]


def test_same_report_as_the_cli(no_token: TestClient) -> None:
    from suanli.migrate.check import as_downloaded, run_check
    from suanli.migrate.coverage import summarize

    got = _ok(no_token, {"model": "qwen2.5-7b", "task": "lora", "uses": ["flash-attn"]})
    report, _ = run_check("qwen2.5-7b", "training", None, ["flash-attn"])
    report = as_downloaded(report, "qwen2.5-7b", "lora")  # the CLI's title: the checkpoint a LoRA job downloads
    assert got["model"] == "Qwen/Qwen2.5-7B"
    cli = dict(summarize(report))
    for key in ("model", "task", "torch_npu_version", "fallback_ops", "non_aten_ops", "verdict", "verdict_text",
                "libraries", "adapted_lists", "migration_weeks", "migration_engineers", "migration_person_weeks"):
        assert got[key] == cli[key], key
    # the same warnings, the API naming its field where the CLI names its flag (98b090c: `uses`, not --uses)
    assert [w.replace("`uses`", "--uses") for w in got["warnings"]] == cli["warnings"]
    assert any("`uses`" in w for w in got["warnings"]) and not any("--uses" in w for w in got["warnings"])
    # the API's sentences name its fields in backticks (`migration_weeks_unadapted`), the CLI's plainly
    assert got["migration_basis"].replace("`", "") == cli["migration_basis"]
    assert got["task"] == "training" and got["verdict"] == "needs-port"  # flash-attn has no NPU build
    assert [o["op"] for o in got["ops"]] == [o["op"] for o in cli["ops"]]
    assert got["verdict_text_i18n"]["id"].startswith("mig.vt.")
    assert len(got["warnings_i18n"]) == len(got["warnings"])
    assert got["adapted_match"]["text_i18n"]["id"] == "mig.match.preset"


def test_chinese_answer(no_token: TestClient) -> None:
    en = _ok(no_token, {"model": "qwen2.5-7b"})
    zh = _ok(no_token, {"model": "qwen2.5-7b"}, "zh")
    assert en["verdict"] == zh["verdict"] == "npu-native"
    assert "NPU 内核" in zh["verdict_text"] and zh["verdict_text"] != en["verdict_text"]
    assert zh["migration_basis"] != en["migration_basis"] and "华为昇腾" in zh["migration_basis"]
    sdpa = next(f for f in zh["fused"] if f["id"] == "npu_fusion_attention")
    assert "注意力" in sdpa["replaces"] and "replaces_zh" not in sdpa  # the data's Chinese twin, shown as replaces
    assert all("{" not in w for w in zh["warnings"])


@pytest.mark.parametrize(("body", "field", "status"), [
    ({"model": "/etc/passwd.json"}, "model", 422),  # a file on the server is never read
    ({"model": "../config.JSON"}, "model", 422),
    ({"model": "no-such-model"}, "model", 404),
    ({"model": "qwen2.5-7b", "task": "train"}, "task", 422),
    ({"model": "qwen2.5-7b", "torch_npu": "9.9"}, "torch_npu", 422),  # no shipped list: the shipped ones named
    ({"model": "qwen2.5-7b", "torch_npu": "latest"}, "torch_npu", 422),
    ({"model": "qwen2.5-7b", "uses": ["flsh-attn"]}, "uses", 422),
    ({"model": "qwen2.5-7b", "uses": ["flash-attn"] * 40}, "uses", 422),
    ({"model": "qwen2.5-7b", "config": {}}, "config", 422),
])
def test_refusals_name_the_field(no_token: TestClient, body: dict[str, Any], field: str, status: int) -> None:
    r = no_token.post(CHECK, json=body)
    assert r.status_code == status, r.text[:300]
    err = r.json()
    assert err["field"] == field and "\n" not in err["error"], err
    if field == "model" and status == 422:
        assert "reads no files" in err["error"] and err["error_i18n"]["id"] == "err.api_model_not_a_file"
    if field == "torch_npu" and body["torch_npu"] == "9.9":
        assert "2.13.0" in err["error"]


def test_zh_refusal(no_token: TestClient) -> None:
    r = no_token.post(CHECK, json={"model": "a.json"}, params={"lang": "zh"})
    assert r.status_code == 422 and "文件名" in r.json()["error"]


def test_documented(no_token: TestClient) -> None:
    spec = no_token.get("/openapi.json").json()
    op = spec["paths"][CHECK]["post"]
    assert "security" not in op  # a read, as POST /api/migrate
    body = spec["components"]["schemas"]["MigrateCheckBody"]["properties"]
    assert set(body) == {"model", "task", "torch_npu", "uses"}
    assert body["model"]["maxLength"] and body["uses"]["maxItems"]


def test_names_the_checkpoint_the_task_downloads(no_token: TestClient) -> None:
    """Training trains the base (Qwen/Qwen2.5-7B), serving serves the -Instruct; a full id typed is kept (the CLI's
    `migrate.check.as_downloaded`, one helper)."""
    assert _ok(no_token, {"model": "qwen2.5-7b", "task": "training"})["model"] == "Qwen/Qwen2.5-7B"
    assert _ok(no_token, {"model": "qwen2.5-7b", "task": "inference"})["model"] == "Qwen/Qwen2.5-7B-Instruct"
    assert _ok(no_token, {"model": "Qwen/Qwen2.5-7B-Instruct", "task": "lora"})["model"] == "Qwen/Qwen2.5-7B-Instruct"
