"""Buyer review leftovers (helper C, 2026-12-02), API side.

3. EstimateBody.precision said "default": "bf16" in /openapi.json while an estimate without precision runs the one
   `suanli estimate` picks (estimate.precision.default_precision: an FP8 checkpoint's fp8 where the device runs FP8,
   QLoRA's nf4): the schema states null (nullable, no default listed, as
   every other optional body field) and what null means; an omitted (or null) precision answers as before."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from suanli.i18n import Message, render


def test_estimate_precision_states_the_picked_default(client: TestClient) -> None:
    prop = client.get("/openapi.json").json()["components"]["schemas"]["EstimateBody"]["properties"]["precision"]
    assert prop.get("default") is None and {"type": "null"} in prop["anyOf"], prop  # nullable, as CompareBody's
    assert "default (null): the precision the estimate picks" in prop["description"], prop
    assert "fp8" in prop["description"] and "nf4" in prop["description"], prop
    body = {"model": "deepseek-v3", "gpu": "h200", "gpus": 8, "tp": 8}
    omitted, null = (client.post("/api/estimate", json=b) for b in (body, {**body, "precision": None}))
    assert omitted.status_code == null.status_code == 200, (omitted.text, null.text)
    assert omitted.json()["workload"]["precision"] == "fp8"  # the checkpoint's own, as before
    assert null.json() == omitted.json()
    qlora = client.post("/api/estimate", json={"model": "qwen3-8b", "gpu": "h20", "task": "qlora"})
    assert qlora.status_code == 200 and qlora.json()["workload"]["precision"] == "nf4", qlora.text
    bf16 = client.post("/api/estimate", json={**body, "precision": "bf16"})
    assert bf16.status_code == 200 and bf16.json()["workload"]["precision"] == "bf16", bf16.text


# 4. an estimate's efficiency notes that suanli writes itself (a factor derived from the matmul measurements:
#    catalog.load.derived_matmul_efficiency) stayed English in a zh answer; they are messages (est.derived.*), the
#    English unchanged. A data file's note (efficiency.yaml) is said through its Chinese twin, note_zh (task C 2026-12:
#    tests/unit/i18n/test_data_prose_zh.py), as a message of its own (est.efficiency_note).
@pytest.mark.parametrize(("gpu", "msg_id", "zh"), [("h20", "est.derived.measured", "次实测的中位数"),
                                                   ("h20-141g", "est.derived.inherited", "没有自己的实测"),
                                                   ("h800", "est.derived.median", "款实测设备的中位数")])
def test_derived_efficiency_notes_are_said_in_chinese(client: TestClient, gpu: str, msg_id: str, zh: str) -> None:
    body = {"model": "qwen3-8b", "gpu": gpu}
    answers = {lang: client.post(f"/api/estimate?lang={lang}", json=body) for lang in ("en", "zh")}
    assert all(r.status_code == 200 for r in answers.values()), {k: r.text for k, r in answers.items()}
    en, cn = ({e["metric"]: e for e in r.json()["speed"]["efficiency"]} for r in answers.values())
    assert en["matmul"]["note_i18n"]["id"] == msg_id, en["matmul"]
    assert zh in cn["matmul"]["note"] and "derived" not in cn["matmul"]["note"], cn["matmul"]
    assert en["matmul"]["note"] == render(Message.from_json(en["matmul"]["note_i18n"]), "en")
    assert en["matmul"]["note"].startswith(("derived: median", "inherited from h20 (derived: median"))
    data_notes = [e for e in cn.values() if e["metric"] != "matmul" and e.get("note")]
    assert data_notes and all(e["note_i18n"]["id"] == "est.efficiency_note" for e in data_notes)  # efficiency.yaml's own


# 4 (cont.). An offer's provider has its Chinese twin in the data (provider_zh, "国内小型云服务商（英国《金融时报》调查的
#    四家）"), yet GET /api/offers?lang=zh (the zh page's device detail) and a plan's stale / international / node-offer
#    warnings named it in English; English answers keep the provider as it is.
def test_offer_providers_in_chinese(client: TestClient) -> None:
    from suanli.catalog.load import packaged_catalog

    twins = {o.id: (o.provider, o.provider_zh) for o in packaged_catalog().offers if o.provider_zh}
    assert twins
    for lang, pick in (("zh", 1), ("en", 0)):
        rows = client.get(f"/api/offers?lang={lang}&limit=1000").json()
        got = {r["id"]: r["provider"] for r in rows if r["id"] in twins}
        assert got == {k: v[pick] for k, v in twins.items()}, lang
        assert all("provider_zh" not in r for r in rows)
    body = {"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 1, "devices": ["a100-40g"],
            "offer_kinds": ["listing", "index", "reference", "contract"], "stale_months": 1}
    r = client.post("/api/plan?lang=zh", json=body)
    assert r.status_code == 200, r.text
    stale = [(p["offer"], w) for p in r.json()["plans"] if p["offer"] in twins for w in p["warnings"]
             if w.startswith(f"价格 {p['offer']}（")]  # plan.warn.stale
    assert stale and all(twins[o][1] in w and twins[o][0] not in w for o, w in stale), stale


# 1 (server side). An offer's assumed field was passed as a `field` parameter, which names an input: the API wrote
#    ``cards`` (the field already in backticks, inside the template's) and the page "`“Cards bought”`" (rent-vs-buy's
#    form label, another thing): the offer's column is said as it is, in one pair of backticks, on every surface
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_offers_assumed_column_is_one_code_span(lang: str) -> None:
    for surface in ("cli", "api", "web"):
        out = render(Message("plan.warn.offer_assumed", offer="o", column="cards", note="n"), lang, surface)  # type: ignore[arg-type]
        assert "`cards`" in out and "``" not in out and "“" not in out, (surface, out)
