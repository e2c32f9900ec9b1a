"""Error-message loose ends: a JSON list or boolean refused by "X is not one of …" is echoed as the JSON that was
sent ([1, 2], true), never quoted as if it were text ('[1, 2]', 'True'); and a serving period without a request rate
names the JSON field (`requests_per_s`), not "plan"; a NaN in a benchmark result names its dotted path."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from suanli.errors import InputError, echoed, validation_message
from suanli.i18n import Message, render
from suanli.plan.request import make_request

from .conftest import auth

DEVICES = ["rtx-4090", "a100-80g"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(("sent", "shown"), [([1, 2], "[1, 2]"), (True, "true")])
def test_not_one_of_echoes_json(client: TestClient, lang: str, sent: object, shown: str) -> None:
    r = client.post(f"/api/compare?lang={lang}", json={"model": "qwen2.5-7b", "task": sent, "devices": DEVICES})
    body = r.json()
    assert r.status_code == 422 and body["field"] == "task"
    said = render(Message.from_json(body["error_i18n"]), lang, "api")
    assert said.startswith(shown + " ") and f"'{shown}'" not in said and f'"{shown}"' not in said, said
    if lang == "zh":
        assert body["error"] == f"task: {said}"


def test_not_one_of_text_still_quoted() -> None:
    said = validation_message({"type": "literal_error", "input": "dpo", "ctx": {"expected": "'lora' or 'full'"}})
    assert render(said, "en") == "'dpo' is not one of 'lora' or 'full'"
    assert render(Message("err.is_not_one_of", value=echoed(False), allowed="a"), "en") == "false is not one of a"
    with pytest.raises(InputError, match=r"^objective: 'cheap' is not one of"):  # a call site's own refusal
        make_request(model="x", task="lora", tokens=1e6, objective="cheap")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("url", ["/api/plan", "/api/compare"])
def test_period_without_rate_names_the_json_field(client: TestClient, lang: str, url: str) -> None:
    body = {"model": "qwen2.5-7b", "task": "inference", "hours": 10, **({"devices": DEVICES} if "compare" in url else {})}
    r = client.post(f"{url}?lang={lang}", json=body)
    got = r.json()
    assert r.status_code == 422 and got["field"] == "requests_per_s", got
    assert got["error"].startswith("requests_per_s") and "`concurrent_users`" in got["error"], got["error"]
    assert "plan:" not in got["error"] and "--requests-per-s" not in got["error"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_bench_result_nan_names_its_dotted_path(client: TestClient, lang: str,
                                                 bench_result_json: Callable[..., dict[str, object]]) -> None:
    doc = bench_result_json()
    doc["config"]["batch"] = float("nan")  # type: ignore[index]
    r = client.post(f"/api/bench-results?lang={lang}", content=json.dumps(doc),
                    headers={**auth(), "Content-Type": "application/json"})
    got = r.json()
    assert r.status_code == 422 and got["field"] == "config.batch", got
    assert got["error"] == "config.batch: " + ("must be a finite number (got NaN)" if lang == "en" else "必须是有限数（实际为 NaN）")
