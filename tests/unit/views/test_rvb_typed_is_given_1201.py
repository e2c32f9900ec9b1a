"""Buyer review 2026-12-01, item 10: `rent-vs-buy --gpu l20 --server-share 0 --utilization 0.5` said "assumed: 50%
use … the default share" of a value the buyer typed (0.51 said "as given"): the assumptions compared the value with
the default instead of asking whether it was typed. A typed input is "as given" at any value, the default's too,
for every assumption the answer lists (PUE, electricity, operations, years, use) — in the CLI's text in both
languages, its --json, and POST /api/rent-vs-buy (a field sent); one left out stays the assumed or cited default."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli
from fastapi.testclient import TestClient

from suanli.api import Settings, create_app
from suanli.catalog.load import packaged_assumptions, packaged_catalog
from suanli.views.rent_vs_buy import DEFAULT_UTILIZATION, rent_vs_buy_answer

TYPED = ["utilization", "years", "pue", "electricity", "ops"]
_A = packaged_assumptions()
DEFAULTS = {"utilization": DEFAULT_UTILIZATION, "years": _A.amortization_years.value, "pue": _A.pue.value,
            "electricity": _A.electricity_cny_per_kwh.value, "ops": 0.0}


def _status(assumptions: list[dict[str, object]]) -> dict[str, object]:
    return {a["key"]: a["status"] for a in assumptions}


def test_view_says_a_typed_default_as_given() -> None:
    def answer(given: tuple[str, ...]) -> dict[str, object]:
        return _status(rent_vs_buy_answer(packaged_catalog(), "l20", DEFAULTS["utilization"], "spread",
                                          DEFAULTS["years"], DEFAULTS["pue"], DEFAULTS["electricity"], DEFAULTS["ops"],
                                          server_share=0.0, given=given).json["assumptions"])

    untyped = answer(())
    assert all(untyped[k] in ("assumed", "cited") for k in TYPED), untyped
    assert answer(tuple(TYPED)) == {**untyped, **dict.fromkeys(TYPED, "given")}
    assert answer(("utilization",)) == {**untyped, "utilization": "given"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_typed_default_is_as_given(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--lang", lang, "rent-vs-buy", "--gpu", "l20", "--server-share", "0"]
    code, out, err = run_cli([*base, "--utilization", "0.5"], monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert ("- 50% use (4,380 h a year), as given (--utilization)" if lang == "en"
            else "- 利用率 50%（每年 4,380 小时），按输入（--utilization）") in out.splitlines(), out
    code, out, err = run_cli(base, monkeypatch, capsys, tmp_path)  # not typed: the assumed default, said so
    assert code == 0, err
    assert ("- assumed: 50% use (4,380 h a year): the default share" if lang == "en"
            else "- 假设：利用率 50%（每年 4,380 小时）：") in out, out
    assert "as given (--utilization)" not in out and "按输入（--utilization）" not in out


def test_cli_json_every_typed_default_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import json

    args = [x for k in TYPED for x in (f"--{k}", f"{DEFAULTS[k]:g}")]
    code, out, err = run_cli(["rent-vs-buy", "--gpu", "l20", "--server-share", "0", *args, "--json"], monkeypatch,
                             capsys, tmp_path)
    assert code == 0, err
    got = _status(json.loads(out)["assumptions"])
    assert all(got[k] == "given" for k in TYPED), got
    assert got["host_w"] == "assumed"  # not typed


def test_api_field_sent_at_its_default_is_given(tmp_path: Path) -> None:
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 's.db'}")))
    sent = client.post("/api/rent-vs-buy", json={"gpu": "l20", "server_share": 0, **DEFAULTS})
    left = client.post("/api/rent-vs-buy", json={"gpu": "l20", "server_share": 0})
    assert sent.status_code == left.status_code == 200, (sent.text, left.text)
    s, u = _status(sent.json()["assumptions"]), _status(left.json()["assumptions"])
    assert all(s[k] == "given" for k in TYPED) and all(u[k] in ("assumed", "cited") for k in TYPED), (s, u)
    zh = client.post("/api/rent-vs-buy?lang=zh", json={"gpu": "l20", "server_share": 0, "utilization": 0.5}).json()
    text = next(a["text"] for a in zh["assumptions"] if a["key"] == "utilization")
    assert text == "利用率 50%（每年 4,380 小时），按输入（`utilization`）", text
