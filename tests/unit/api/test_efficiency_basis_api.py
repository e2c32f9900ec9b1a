"""POST /api/estimate says where each efficiency factor came from, as `suanli estimate --json` does (task G2):
`basis`, `basis_devices` and `provenance` (rendered by ?lang= from `provenance_i18n`), decided by
`estimate.efficiency.basis`."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from suanli.cli.main import app

BODY = {"model": "qwen2.5-7b", "gpu": "h800", "task": "inference"}


def _matmul(out: dict) -> dict:  # type: ignore[type-arg]
    return next(x for x in out["speed"]["efficiency"] if x["metric"] == "matmul")  # type: ignore[no-any-return]


def test_api_says_family_median_like_the_cli(client: TestClient) -> None:
    api = client.post("/api/estimate", json=BODY).json()
    r = CliRunner().invoke(app, ["estimate", "--model", "qwen2.5-7b", "--gpu", "h800", "--task", "inference", "--json"])
    assert r.exit_code == 0, r.output
    cli = json.loads(r.output)
    assert [_matmul(api)[k] for k in ("basis", "basis_devices", "provenance", "provenance_i18n", "source")] == [
        _matmul(cli)[k] for k in ("basis", "basis_devices", "provenance", "provenance_i18n", "source")]
    assert _matmul(api)["basis"] == "family-median" and _matmul(api)["basis_devices"] == ["h100-sxm", "h20", "h200"]
    assert _matmul(api)["provenance"] == "family median of h100-sxm, h20, h200, source meas-zzc-db"


def test_api_renders_provenance_in_chinese(client: TestClient) -> None:
    zh = client.post("/api/estimate?lang=zh", json=BODY).json()
    assert _matmul(zh)["provenance"] == "同系列 h100-sxm、h20、h200 实测的中位数，来源 meas-zzc-db"
    own = client.post("/api/estimate?lang=zh", json={**BODY, "gpu": "h100-sxm"}).json()
    assert _matmul(own)["basis"] == "measured" and _matmul(own)["provenance"] == "h100-sxm 实测，来源 meas-zzc-db"
