"""Interface fixes after the last review (task ifx), the API's refusals:

1. A refusal names the API's own field, not the CLI's flag: the core names multi-word inputs as the flags spell them
   (`kv-dtype`, `rent-price`, `to-gpu`); the API's handler answers with the JSON field (`kv_dtype`), one rule for all
   (`api.errors.json_named`), while the CLI keeps `--kv-dtype`.
2. pydantic's range and type errors come back as every refusal does, `field: message` in the request's language with
   the limit named: a list sent as text, a string against its pattern, a number past 64 bits for an integer field
   (named by the field's own bound), and a plan body asking to save."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner
from suanli.i18n import messages

_HAN = re.compile(r"[\u4e00-\u9fff]")

# ---- 1. the API names its fields -------------------------------------------------------------------------------

KV_REFUSALS = [  # (gpu, engine, the refusal's message id)
    ("910b", "vllm-ascend", "cap.kv.not_stored"),  # the engine does not store an fp8 KV cache
    ("910b", "sglang", "cap.kv.no_fp8"),  # neither the device nor its stack runs FP8
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("gpu", "engine", "msg_id"), KV_REFUSALS)
def test_kv_dtype_refusal_names_the_json_field(client: TestClient, lang: str, gpu: str, engine: str,
                                               msg_id: str) -> None:
    r = client.post(f"/api/estimate?lang={lang}", json={"model": "qwen2.5-7b", "gpu": gpu, "kv_dtype": "fp8",
                                                         "engine": engine})
    j = r.json()
    assert r.status_code == 422 and j["error_i18n"]["id"] == msg_id, j
    assert j["field"] == "kv_dtype" and j["error"].startswith("kv_dtype: ") and "kv-dtype" not in j["error"], j
    assert j["errors"] == [{**j["errors"][0], "field": "kv_dtype", "in": "body"}], j
    assert j["error"] != client.post("/api/estimate?lang=en" if lang == "zh" else "/api/estimate?lang=zh",
                                     json={"model": "qwen2.5-7b", "gpu": gpu, "kv_dtype": "fp8",
                                           "engine": engine}).json()["error"]  # in the request's language


def test_the_cli_keeps_its_flag(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                tmp_path: Path) -> None:
    code, _, err = run_cli(["estimate", "--model", "qwen2.5-7b", "--gpu", "910b", "--kv-dtype", "fp8", "--engine",
                            "vllm-ascend"], monkeypatch, capsys, tmp_path)
    assert code == 2 and "error: --kv-dtype: engine vllm-ascend does not store the KV cache in fp8" in err, err


@pytest.mark.parametrize(("route", "body", "field"), [
    ("/api/migrate", {"model": "qwen2.5-7b", "from_gpu": "h100", "to_gpu": "h100"}, "to_gpu"),  # was `to-gpu`
    # rent-vs-buy's flags (card-price, server-share, rent-price): mapped by a table in its route before, by the rule now
    ("/api/rent-vs-buy", {"gpu": "a10"}, "card_price"),
    ("/api/rent-vs-buy", {"gpu": "k100"}, "server_share"),
    ("/api/rent-vs-buy", {"gpu": "h100"}, "rent_price"),  # purchases, no cn listing (the H20 has one since offers-7)
])
def test_other_dashed_fields_too(client: TestClient, route: str, body: dict[str, Any], field: str) -> None:
    r = client.post(route, json=body)
    j = r.json()
    assert r.status_code == 422 and j["field"] == field and j["error"].startswith(f"{field}: "), j
    assert j["errors"][0]["field"] == field and j["errors"][0]["in"] == "body", j


def test_one_rule_for_every_dashed_field(make_client: Any) -> None:
    """Any InputError the core raises with a flag's name reaches the client under the field's name, wherever it is
    raised (a route added here raises one no route maps by hand)."""
    from suanli.errors import InputError
    from suanli.i18n import Message

    c = make_client()
    app = c.app

    @app.post("/api/test-ifx")
    def _raise() -> None:
        raise InputError("stale-months", Message("err.must_be_a_positive_number_of", months=-1))

    app.router.routes.insert(0, app.router.routes.pop())  # before the page's catch-all
    j = c.post("/api/test-ifx?lang=zh", json={}).json()
    assert j["field"] == "stale_months" and j["error"].startswith("stale_months: ") and _HAN.search(j["error"]), j
    assert j["errors"][0]["field"] == "stale_months", j


# ---- 2. pydantic's shapes, translated with their limits -----------------------------------------------------------

SHAPES = [  # (route, body, field, message id, what the line must keep)
    ("/api/plan", {"model": "qwen2.5-7b", "gpus": 1e30}, "gpus", "error.v.le", "4,096"),  # was "exceeded maximum size"
    ("/api/plan", {"model": "qwen2.5-7b", "gpus": -1e30}, "gpus", "error.v.ge", "1"),
    ("/api/estimate", {"model": "qwen2.5-7b", "gpu": "h100", "batch": 1e30}, "batch", "error.v.le", "65,536"),
    ("/api/plan", {"model": "qwen2.5-7b", "devices": "h100"}, "devices", "error.v.list", "'h100'"),  # "valid tuple"
    ("/api/migrate", {"model": "qwen2.5-7b", "offer_kinds": "listing"}, "offer_kinds", "error.v.list", "'listing'"),
    ("/api/estimate", {"model": "qwen2.5-7b", "gpu": "h100", "engine_version": "x"}, "engine_version",
     "error.v.pattern", "\\d+"),  # was "String should match pattern"
    ("/api/plan", {"model": "qwen2.5-7b", "save": True}, "save", "error.v.plan_save", "/api/plans"),
    ("/api/estimate", {"model": "qwen2.5-7b", "gpu": "h100", "gpus": -1}, "gpus", "error.v.ge", "1"),
    ("/api/compare", {"model": "qwen2.5-7b", "devices": ["h100", "910b"], "batch": 0}, "batch", "error.v.ge", "1"),
]


@pytest.mark.parametrize(("route", "body", "field", "msg_id", "kept"), SHAPES)
def test_validation_errors_in_chinese_with_their_limit(client: TestClient, route: str, body: dict[str, Any],
                                                       field: str, msg_id: str, kept: str) -> None:
    r = client.post(f"{route}?lang=zh", json=body)
    j = r.json()
    assert r.status_code == 422 and j["field"] == field and j["error_i18n"]["id"] == msg_id, j
    line = j["error"]
    assert line.startswith(f"{field}: ") and _HAN.search(line) and kept in line, line
    assert not re.search(r"Input should|String should|Unable to parse|saving a plan", line), line
    assert j["errors"][0]["message"] == line.removeprefix(f"{field}: ") and j["errors"][0]["in"] == "body", j


def test_the_shapes_have_both_languages() -> None:
    for lang in ("en", "zh"):
        cat = messages(lang)
        for key in ("error.v.pattern", "error.v.int_size", "error.v.plan_save"):
            assert cat[key], (lang, key)


def test_a_number_past_64_bits_without_a_bound() -> None:
    """Where no bound names the range (a query, a row), the integer-size error still has its sentence."""
    from suanli.errors import validation_message
    from suanli.i18n import render

    said = validation_message({"type": "int_parsing_size", "input": 1e30, "ctx": {}, "msg": "Unable to parse"})
    assert said.id == "error.v.int_size" and "1e+30" in render(said, "zh") and _HAN.search(render(said, "zh"))
