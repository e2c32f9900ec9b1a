"""Typed responses (issue 14, finding 10 / Deliver 5): every operation in /openapi.json documents a typed
success schema and the one error shape for its non-2xx answers, and every answer of every endpoint validates
against its response model with no key the model does not name (a new field must be typed, not slip through)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

from suanli.catalog.load import packaged_catalog
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.views import catalog as views
from suanli.views.estimates import EstimateJson
from suanli.views.plans import PlanJson, plan_json

TOKEN = "test-token-123"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
ERROR_CODES = ("400", "401", "403", "404", "405", "413", "422", "500", "503")


def _resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    return schema


def _typed(schema: dict[str, Any] | None, spec: dict[str, Any]) -> bool:
    """A schema that says what is in the answer: an object with named properties, an array of such, or a map
    whose values have a schema. `{}` and a bare `{"type": "object"}` (a dict[str, Any]) are not typed."""
    if not schema:
        return False
    s = _resolve(schema, spec)
    if s.get("type") == "array":
        return _typed(s.get("items"), spec)
    if s.get("type") == "object" or "properties" in s:
        if s.get("properties"):
            return True
        extra = s.get("additionalProperties")
        return isinstance(extra, dict) and bool(extra)
    return False


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m.upper(), p, op) for p, ops in spec["paths"].items() for m, op in ops.items()]


def test_every_operation_has_a_typed_success_schema(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    untyped = []
    for method, path, op in _operations(spec):
        ok = [c for c in op["responses"] if c.startswith("2")]
        assert ok, f"{method} {path}: no 2xx response documented"
        for code in ok:
            schema = op["responses"][code].get("content", {}).get("application/json", {}).get("schema")
            if not _typed(schema, spec):
                untyped.append(f"{method} {path} {code}: {schema}")
    assert not untyped, "untyped success responses:\n" + "\n".join(untyped)


def test_every_error_is_documented_with_the_one_error_shape(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for method, path, op in _operations(spec):
        for code in ERROR_CODES:
            assert code in op["responses"], f"{method} {path}: {code} not documented"
            schema = op["responses"][code]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, code, schema)
    props = spec["components"]["schemas"]["ErrorBody"]["properties"]
    assert {"error", "field", "errors", "relax", "relax_i18n"} <= set(props)


def _extras(value: Any, where: str = "") -> list[str]:
    """Keys kept by a shape (`extra="allow"`) that it does not name, anywhere in a validated answer."""
    out: list[str] = []
    if isinstance(value, BaseModel):
        out += [f"{where}.{k}" for k in (value.__pydantic_extra__ or {})]
        for name in type(value).model_fields:
            out += _extras(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            out += _extras(v, f"{where}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            out += _extras(v, f"{where}.{k}")
    return out


def _requests(client: TestClient, csv_file: Callable[[str], tuple[str, bytes]],
              bench_result_json: Callable[..., dict[str, object]]) -> list[tuple[str, str, Any]]:
    """At least one request per route; answers for (method, route path, JSON)."""
    cat = packaged_catalog()
    out: list[tuple[str, str, Any]] = []

    def get(route: str, url: str, **kw: Any) -> None:
        r = client.get(url, **kw)
        assert r.status_code == 200, (url, r.text[:300])
        out.append(("GET", route, r.json()))

    def post(route: str, url: str, body: Any = None, **kw: Any) -> None:
        r = client.post(url, json=body, **kw) if body is not None else client.post(url, **kw)
        assert r.status_code == 200, (url, body, r.text[:300])
        out.append(("POST", route, r.json()))

    offer = next(o for o in cat.offers if o.kind == "listing")
    post("/api/offers/{offer_id}/prices", f"/api/offers/{offer.id}/prices",
         {"price_cny": offer.price_cny.value, "date": dt.date.today().isoformat(), "source": "typed-test"}, headers=AUTH)
    name, data = csv_file("typed-4090,TypedCloud,rtx-4090,1,hour,2.2,2025-03-01,autodl-pricing\n")
    post("/api/offers/import", "/api/offers/import", files={"file": (name, data)}, headers=AUTH)
    name, data = csv_file("typed-4090-rb,TypedCloud,rtx-4090,1,hour,2.3,2025-03-01,autodl-pricing\n")
    post("/api/offers/import", "/api/offers/import", files={"file": (name, data)}, headers=AUTH)
    post("/api/imports/{import_id}/rollback", f"/api/imports/{out[-1][2]['import_id']}/rollback", headers=AUTH)
    for body in ({"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "name": "typed"},
                 {"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 2, "breakdown": False}):
        post("/api/plans", "/api/plans", body, headers=AUTH)
    post("/api/bench-results", "/api/bench-results", bench_result_json(), headers=AUTH)

    get("/api/health", "/api/health")
    get("/api/info", "/api/info")
    get("/api/accelerators", "/api/accelerators")
    for a in cat.accelerators:
        get("/api/accelerators/{name}", f"/api/accelerators/{a.id}")
    get("/api/models", "/api/models")
    for m in cat.models:
        get("/api/models/{name}", f"/api/models/{m.id}")
    get("/api/sources", "/api/sources")
    get("/api/frameworks", "/api/frameworks")
    for precision in ("bf16", "fp8", "int4"):
        get("/api/value", "/api/value", params={"precision": precision, "region": "any",
                                                "offer_kinds": ["listing", "index", "reference"]})
    get("/api/scenarios", "/api/scenarios")
    for s in client.get("/api/scenarios").json():
        get("/api/scenarios/{scenario_id}", f"/api/scenarios/{s['id']}", params={"region": "any"})
    get("/api/offers", "/api/offers")
    get("/api/offers/{offer_id}/history", "/api/offers/typed-4090/history")
    get("/api/offers/{offer_id}/history", f"/api/offers/{offer.id}/history")
    get("/api/prices", "/api/prices", params={"limit": 100})
    get("/api/imports", "/api/imports")
    get("/api/plans", "/api/plans")
    for p in client.get("/api/plans").json():
        get("/api/plans/{plan_id}", f"/api/plans/{p['id']}")
    get("/api/bench-results", "/api/bench-results")
    get("/api/messages", "/api/messages", params={"lang": "zh"})
    diffusion = next(m.id for m in cat.models if m.kind == "diffusion")
    for body in ({"model": "qwen2.5-7b", "gpu": "rtx-4090"}, {"model": "llama-2-7b", "gpu": "rtx-4090", "method": "seed"},
                 {"model": "qwen2.5-14b", "gpu": "h100", "task": "lora", "tokens": 1e8, "gpus": 8},
                 {"model": diffusion, "gpu": "rtx-4090"}):
        post("/api/estimate", "/api/estimate", body)
    for body in ({"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8},
                 {"model": "qwen2.5-7b", "task": "inference", "requests_per_s": 5, "ttft_s": 1, "tpot_s": 0.05},
                 {"model": "qwen2.5-7b", "task": "inference", "concurrent_users": 50, "tpot_s": 0.0333, "days": 7,
                  "framework": "vllm", "precision": "bf16", "already_on": ["cann"]},
                 {"model": "qwen2.5-72b", "task": "full", "tokens": 1e9, "budget_cny": 1000},
                 {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e8, "region": "any",
                  "offer_kinds": ["listing", "index", "reference"], "breakdown": False}):
        post("/api/plan", "/api/plan", body)
        post("/api/plan", "/api/plan", body, params={"lang": "zh"})
    post("/api/compare", "/api/compare", {"model": "qwen2.5-14b", "devices": ["rtx-4090", "a100-80g", "910b"],
                                          "task": "lora", "gpus": 8, "tokens": 1e8})
    post("/api/tco", "/api/tco", {"gpu": "h100", "hours": 40, "gpus": 8, "tokens_per_s": 1000, "region": "any",
                                  "offer_kinds": ["listing", "index", "reference"]})
    post("/api/migrate", "/api/migrate", {"model": "qwen2.5-14b", "saving": 20000})
    post("/api/rent-vs-buy", "/api/rent-vs-buy", {"gpu": "910b", "cards": 8})
    post("/api/rent-vs-buy", "/api/rent-vs-buy", {"gpu": "l20", "rent_price": 5.0, "tdp_w": 300, "use_pattern": "blocks",
                                                  "server_share": 0})
    post("/api/migrate", "/api/migrate", {"model": "qwen2.5-14b", "region": "any",
                                          "offer_kinds": ["listing", "index", "reference"]})
    post("/api/migrate/check", "/api/migrate/check", {"model": "qwen2.5-7b", "task": "lora", "uses": ["flash-attn"]})
    post("/api/migrate/check", "/api/migrate/check", {"model": "deepseek-v3"}, params={"lang": "zh"})
    return out


def _api_routes() -> dict[tuple[str, str], APIRoute]:
    """(method, path as OpenAPI writes it) -> route, from the app's routers."""
    from suanli.api.routers import bench, catalog, compute, cost, meta, plans, prices
    from suanli.web.messages import router as messages

    out = {}
    for router in (meta.router, catalog.router, prices.router, compute.router, cost.router, plans.router, bench.router,
                   messages):
        for r in router.routes:
            if isinstance(r, APIRoute) and r.include_in_schema:
                out |= {(m, r.path.replace(":path}", "}")): r for m in r.methods}
    return out


@pytest.fixture(scope="module")
def fresh(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


def test_every_answer_validates_against_its_model_with_no_unnamed_key(
        fresh: TestClient, csv_file: Callable[[str], tuple[str, bytes]],
        bench_result_json: Callable[..., dict[str, object]]) -> None:
    routes = _api_routes()
    documented = {(m, p) for m, p, _ in _operations(fresh.get("/openapi.json").json())}
    assert set(routes) == documented, "a router is missing from _api_routes() (or from the app)"
    answers = _requests(fresh, csv_file, bench_result_json)
    missing = set(routes) - {(m, p) for m, p, _ in answers}
    assert not missing, f"routes without a request in this test: {sorted(missing)}"
    problems = []
    for method, path, body in answers:
        route = routes[(method, path)]
        assert route.response_model is not None, f"{method} {path}: no response model"
        value = TypeAdapter(route.response_model).validate_python(body)
        problems += [f"{method} {path}: {x}" for x in _extras(value)]
    assert not problems, "keys the response models do not name:\n" + "\n".join(sorted(set(problems))[:40])


def test_view_shapes_name_every_key_the_views_write() -> None:
    """The CLI's JSON comes from the same view functions: their dicts match the shapes too."""
    from suanli.plan.request import PlanRequest
    from suanli.plan.search import plan

    cat = packaged_catalog()
    for a in cat.accelerators:
        assert not _extras(views.AcceleratorDetail.model_validate(views.accelerator_detail(cat, a)))
    rows = TypeAdapter(list[views.AcceleratorRow]).validate_python(views.accelerator_rows(cat, list(cat.accelerators)))
    assert not _extras(rows)
    for m in cat.models:
        assert not _extras(views.ModelRow.model_validate(views.model_row(m)))
        assert not _extras(views.ModelDetail.model_validate(views.model_detail(m)))
    for o in cat.offers:
        j = views.offer_json(o)
        assert views.OfferJson.model_validate(j).model_dump(mode="json") == j
    qwen = next(x for x in cat.models if x.id.endswith("Qwen2.5-7B-Instruct"))
    for task, kw in (("inference", {}), ("lora", {"tokens": 1e7}), ("full", {"tokens": 1e7, "gpus": 8, "zero": 3})):
        for dev in ("rtx-4090", "h100-sxm", "ascend-910b"):
            acc = next(a for a in cat.accelerators if a.id == dev)
            c = estimate(cat, qwen, acc, make_workload(task=task, **kw)).contract()
            e = EstimateJson.model_validate(c)
            assert not _extras(e), (task, dev, _extras(e))
            assert e.model_dump(mode="json", exclude_unset=True) == c
    r = plan(cat, qwen, PlanRequest(model="qwen2.5-7b", task="lora", tokens=1e8))
    assert not _extras(PlanJson.model_validate(plan_json(r)))


def test_a_shape_missing_a_key_fails_here() -> None:
    """The check above can fail: a key the shape does not name is reported with its path."""
    row = views.model_row(packaged_catalog().models[0])
    assert _extras(views.ModelRow.model_validate({**row, "new_field": 1})) == [".new_field"]
