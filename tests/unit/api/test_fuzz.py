"""Schema fuzzing of the API with hypothesis: whatever the body or path, the answer is never a 500."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from suanli.api.schemas import CompareBody, EstimateBody, MigrateBody, MigrateCheckBody, PlanBody, PriceBody, TcoBody

AUTH = {"Authorization": "Bearer test-token-123"}

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**12, 10**12), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 1, 2, 8, -1, 1e8, 1e30, 1e308, 0.5, "", "lora", "inference", "full", "qlora", "bf16", "int4",
                     "rtx-4090", "910b", "h100", "qwen2.5-7b", "llama-2-7b", "cheapest", "fastest", "2026-01", "x" * 300]),
    st.text(max_size=20),
)
values = st.one_of(scalars, st.lists(scalars, max_size=5), st.dictionaries(st.text(max_size=5), scalars, max_size=3))


def bodies(model: type, base: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    keys = list(model.model_fields)
    return st.builds(
        lambda extra, unknown: {**base, **extra, **unknown},
        st.dictionaries(st.sampled_from(keys), values, max_size=6),
        st.dictionaries(st.text(min_size=1, max_size=8), scalars, max_size=1),
    )


@pytest.fixture(scope="module")
def fuzz_client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(raise_server_exceptions=False)


CASES = [
    ("/api/estimate", EstimateBody, {"model": "qwen2.5-7b", "gpu": "rtx-4090"}, 60),
    ("/api/plan", PlanBody, {"model": "qwen2.5-0.5b", "task": "lora", "tokens": 1e6, "max_gpus": 8}, 25),
    ("/api/compare", CompareBody, {"model": "qwen2.5-7b", "devices": ["rtx-4090", "910b"]}, 40),
    ("/api/tco", TcoBody, {"gpu": "h100", "hours": 10}, 60),
    ("/api/migrate", MigrateBody, {"model": "qwen2.5-7b", "saving": 1000}, 40),
    ("/api/migrate/check", MigrateCheckBody, {"model": "qwen2.5-0.5b"}, 20),
    ("/api/offers/seed000-rtx4090-hour/prices", PriceBody, {"price_cny": 1.0, "date": "2026", "source": "fuzz"}, 40),
]


@pytest.mark.parametrize(("path", "model", "base", "n"), CASES, ids=[c[0] for c in CASES])
def test_post_never_500(fuzz_client: TestClient, path: str, model: type, base: dict[str, Any], n: int) -> None:
    @settings(max_examples=n, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(body=st.one_of(bodies(model, base), values))
    def run(body: Any) -> None:
        r = fuzz_client.post(path, json=body, headers=AUTH)
        assert r.status_code < 500, (body, r.text)
        assert "error" in r.json() if r.status_code >= 400 else True

    run()


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(seg=st.text(min_size=1, max_size=30).filter(lambda s: s.strip("./") != ""),
       q=st.dictionaries(st.sampled_from(["device", "vendor", "market", "precision", "billing_unit", "limit",
                                          "min_memory_gib", "offer", "accelerator"]), st.text(max_size=10), max_size=3))
def test_get_never_500(fuzz_client: TestClient, seg: str, q: dict[str, str]) -> None:
    from urllib.parse import quote

    s = quote(seg, safe="")
    for path in (f"/api/accelerators/{s}", f"/api/models/{s}", f"/api/offers/{s}/history", f"/api/plans/{s}",
                 "/api/accelerators", "/api/offers", "/api/prices", "/api/value", "/api/bench-results"):
        r = fuzz_client.get(path, params=q)
        assert r.status_code < 500, (path, q, r.text)


def test_import_fuzz_never_500(fuzz_client: TestClient) -> None:
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(content=st.one_of(st.binary(max_size=200), st.text(max_size=300).map(str.encode),
                             st.lists(st.lists(st.sampled_from(["x", "1", "rtx-4090", "hour", "2026", "", "-1", "1e400", '"']),
                                               min_size=8, max_size=8), max_size=4).map(
                                 lambda rows: ("id,provider,device,cards,billing_unit,price_cny,date,source\n"
                                               + "\n".join(",".join(r) for r in rows)).encode())),
           name=st.sampled_from(["f.csv", "f.yaml", "f.yml", "f.tsv", "f.txt", "f"]))
    def run(content: bytes, name: str) -> None:
        r = fuzz_client.post("/api/offers/import", files={"file": (name, content)}, headers=AUTH)
        assert r.status_code < 500, (name, content, r.text)

    run()
