"""Plan hints from the final buyer's review (2026-12-01).

1. DeepSeek-V3 LoRA on 1e8 tokens: every device misses one node and no allowed offer can span nodes (each why-not
   row says so), so the relax line no longer says "raise --max-gpus"; it leads with the lighter task (--task qlora,
   which plans on 8 x H200), then the regions and offer kinds the request leaves out (never those included).
2. The tp head rule and the pin to drop speak each surface's language: the CLI says --tp 8, the page and the API
   (POST /api/estimate, POST /api/plan) the request's field, tp 8."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan

V3_LORA = dict(model="deepseek-v3", task="lora", tokens=1e8)


def _plan(cat, **kw):  # type: ignore[no-untyped-def]
    return plan(cat, lookup.model(cat, str(kw["model"])), make_request(**kw))


# ------------------------------------------------------------------------------------ 1. no offer can span nodes
@pytest.mark.parametrize("extra", [{}, {"devices": ("h200",)}])
def test_no_spanning_offer_leads_with_the_lighter_task_not_more_cards(cat, extra) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **V3_LORA, **extra)
    assert not r.plans
    # the premise: every priced why-not row is the one-node-and-no-span row
    assert all(w["reason_i18n"]["id"] == "why.does_not_fit_node" for w in r.why_not
               if w["reason_i18n"]["id"].startswith("why.does_not_fit"))
    assert [m["id"] for m in r.relax_i18n] == ["relax.no_span_lighter"]
    msg = Message.from_json(r.relax_i18n[0])
    en, zh = render(msg, "en"), render(msg, "zh")
    assert "raise --max-gpus" not in en and "cannot help" in en
    if extra:  # only what has an H200 offer that spans nodes (buyer review 7): index rows, no other region's
        assert "--region any" not in en and en.index("--task qlora") < en.index("--offer-kinds all")
    else:
        assert en.index("--task qlora") < en.index("--region any") < en.index("--offer-kinds all")
    assert "调高 --max-gpus 没有用" in zh and "把 --task 改为 qlora" in zh and ("--region any" in zh) != bool(extra)
    # what it suggests plans
    assert _plan(cat, **{**V3_LORA, "task": "qlora"}, **extra).plans


def test_no_spanning_offer_never_suggests_what_the_request_includes(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, **V3_LORA, devices=("h200",), region="any")
    assert not r.plans and [m["id"] for m in r.relax_i18n] == ["relax.no_span_lighter"]
    text = render(Message.from_json(r.relax_i18n[0]), "en")
    assert "--region any" not in text and "--offer-kinds all" in text and "raise --max-gpus" not in text
    # with the index rows an H200 cluster spans nodes: it plans
    assert _plan(cat, **V3_LORA, devices=("h200",), offer_kinds=("listing", "index", "reference")).plans


def test_more_cards_still_suggested_where_an_offer_spans_nodes(cat) -> None:  # type: ignore[no-untyped-def]
    # Llama-3.1-405B full training at 8 cards: a spanning offer exists, so more cards is the answer
    r = _plan(cat, model="llama-3.1-405b", task="full", tokens=1e8, max_gpus=8, region="any",
              offer_kinds=("listing", "index", "reference"))
    assert not r.plans
    assert not any(m["id"].startswith("relax.no_span") for m in r.relax_i18n)
    # nor the instance-size hint (58c221c): the card limit binds, not an instance's size
    assert not any(m["id"].startswith("relax.train_instance") for m in r.relax_i18n)


# ------------------------------------------------------------------------------ 2. tp: flag on the CLI, field on the API
def test_pinned_tp_pin_to_drop_is_a_flag_on_the_cli_and_the_field_on_the_page(cat) -> None:  # type: ignore[no-untyped-def]
    r = _plan(cat, model="qwen2.5-7b", task="pretrain", tokens=1e9, tp=8, framework="megatron")
    assert [m["id"] for m in r.relax_i18n] == ["relax.drop_pin"]
    msg = Message.from_json(r.relax_i18n[0])
    assert "drop --framework megatron, --tp 8" in render(msg, "en")
    assert "去掉 --framework megatron、--tp 8" in render(msg, "zh")
    web_en, web_zh = render(msg, "en", "web"), render(msg, "zh", "web")
    assert "--" not in web_en and "tp 8" in web_en and "“Framework” megatron" in web_en
    assert "--" not in web_zh and "tp 8" in web_zh
    why = next(w for w in r.why_not if w["reason_i18n"]["id"] == "why.tp_heads")
    reason = Message.from_json(why["reason_i18n"])
    assert "--tp 8 must divide" in render(reason, "en") and "--tp 8 须同时整除" in render(reason, "zh")
    assert "tp 8 must divide" in render(reason, "en", "web") and "--tp" not in render(reason, "zh", "web")
    assert "--tp" not in render(reason, "en", "api") and "`tp` 8 须同时整除" in render(reason, "zh", "api")


@pytest.fixture
def client():  # type: ignore[no-untyped-def]
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it, so CI runs this")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    return TestClient(create_app(Settings(database_url="sqlite:///:memory:", api_token=None)))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_api_estimate_tp_refusal_names_the_field(client, lang) -> None:  # type: ignore[no-untyped-def]
    r = client.post(f"/api/estimate?lang={lang}", json={"model": "qwen2.5-7b", "gpu": "h100-sxm", "task": "inference",
                                                        "gpus": 8, "tp": 8, "engine": "vllm"})
    assert r.status_code == 422 and r.json()["field"] == "tp"
    message = r.json()["errors"][0]["message"]
    assert "--tp" not in message and ("`tp` 8 must divide" in message if lang == "en" else "`tp` 8 须" in message)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_api_plan_pin_to_drop_names_the_field(client, lang) -> None:  # type: ignore[no-untyped-def]
    r = client.post(f"/api/plan?lang={lang}", json={"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 5,
                                                    "tp": 8})
    assert r.status_code == 200 and not r.json()["plans"]
    relax = r.json()["relax"][0]
    assert "--tp" not in relax and ("drop `tp` 8" in relax if lang == "en" else "去掉 `tp` 8" in relax)  # the JSON field
    rows = [w["reason"] for w in r.json()["why_not"] if w["reason_i18n"]["id"].startswith("why.tp_heads")]
    assert rows and not any("--tp" in x for x in rows)
