"""`suanli estimate` (text and --json) and POST /api/estimate name the checkpoint the job downloads, as `suanli plan`
does (ckpt task, 2026-12-01: `estimate --model qwen2.5-7b --task lora` showed Qwen/Qwen2.5-7B-Instruct where plan
showed Qwen/Qwen2.5-7B). One rule, `catalog.lookup.checkpoint_id`: serving an -Instruct/-Chat preset names the tuned
checkpoint; pretrain, full, lora and qlora its base where one is published; a tuned name typed keeps the tuned one."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.views.estimates import EstimateJson

INSTRUCT = "Qwen/Qwen2.5-7B-Instruct"
BASE = "Qwen/Qwen2.5-7B"


def _cli(*args: str) -> str:
    out = CliRunner().invoke(app, ["--lang", "en", *args], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    return out.output


def _shown(client: TestClient, model: str, task: str) -> tuple[str, dict, dict]:  # type: ignore[type-arg]
    """(the text header's first field, the --json model, the API's model) for one estimate on one A100."""
    args = ("estimate", "--model", model, "--task", task, "--gpu", "a100-80g")
    header = _cli(*args).splitlines()[0].split(" · ")[0].strip()
    js = json.loads(_cli(*args, "--json"))
    api = client.post("/api/estimate", json={"model": model, "task": task, "gpu": "a100-80g"})
    assert api.status_code == 200, api.text
    assert EstimateJson.model_validate(js).model.id == js["model"]["id"]  # the typed contract carries it
    return header, js["model"], api.json()["model"]


def test_serving_names_the_instruct_checkpoint(client: TestClient) -> None:
    header, js, api = _shown(client, "qwen2.5-7b", "inference")
    assert header == js["id"] == api["id"] == INSTRUCT
    assert js["preset"] == api["preset"] == INSTRUCT


@pytest.mark.parametrize("task", ["pretrain", "full", "lora", "qlora"])
def test_training_names_the_base_checkpoint(client: TestClient, task: str) -> None:
    header, js, api = _shown(client, "qwen2.5-7b", task)
    assert header == js["id"] == api["id"] == BASE
    assert js["preset"] == api["preset"] == INSTRUCT  # the architecture still comes from the preset
    assert js["params"] == api["params"]


def test_a_tuned_name_typed_keeps_the_tuned_checkpoint(client: TestClient) -> None:
    header, js, api = _shown(client, "qwen2.5-7b-instruct", "lora")
    assert header == js["id"] == api["id"] == INSTRUCT
    header, js, api = _shown(client, "glm-4-9b", "qlora")
    assert header == js["id"] == api["id"] == "THUDM/glm-4-9b"


def test_without_a_published_base_training_keeps_the_preset(client: TestClient) -> None:
    header, js, api = _shown(client, "llama-3.3-70b", "lora")  # Meta published no Llama 3.3 base
    assert header == js["id"] == api["id"] == js["preset"] == "meta-llama/Llama-3.3-70B-Instruct"
    header, js, api = _shown(client, "llama-3.1-8b", "lora")  # the preset is the base already
    assert header == js["id"] == api["id"] == "meta-llama/Llama-3.1-8B"


@pytest.mark.parametrize(("model", "task"), [("qwen2.5-7b", "lora"), ("qwen2.5-72b", "qlora"),
                                             ("qwen2.5-7b", "pretrain"), ("qwen2.5-7b-instruct", "lora")])
def test_estimate_and_plan_name_the_same_checkpoint(model: str, task: str) -> None:
    plan = json.loads(_cli("plan", "--model", model, "--task", task, "--tokens", "1e8", "--json"))
    est = json.loads(_cli("estimate", "--model", model, "--task", task, "--gpu", "a100-80g", "--json"))
    assert plan["model"] == est["model"]["id"]
    assert est["model"]["id"] == lookup.checkpoint_id(lookup.model(packaged_catalog(), model), task, model)
