"""POST /api/migrate/check's and POST /api/migrate's `uses` described a typed "(flash-attn, bitsandbytes, gptq, awq,
fp8, deepspeed, …)" that f004834's triton, apex, xformers and liger-kernel rows were missing from: /openapi.json now
lists the data's library ids (`{libraries}`, migrate.libraries.uses_names, as the CLI's --uses help:
tests/unit/cli/test_uses_help_lists_catalog_b1203.py)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from suanli.migrate.libraries import load_libraries


@pytest.mark.parametrize(("route", "body"), [("/api/migrate/check", "MigrateCheckBody"), ("/api/migrate", "MigrateBody")])
def test_api_uses_description_names_every_catalog_library(client: TestClient, route: str, body: str) -> None:
    spec = client.get("/openapi.json").json()
    text = spec["components"]["schemas"][body]["properties"]["uses"]["description"]
    assert [lib.id for lib in load_libraries().libraries if f"`{lib.id}`" not in text] == [], text
    assert "{libraries}" not in text and "…" not in text
    ref = spec["paths"][route]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.endswith("/" + body)
