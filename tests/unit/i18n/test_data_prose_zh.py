"""The data files' prose in Chinese (task C, 2026-12): every packaged offer `note`, efficiency row `note` and scenario
`assumption` has its Chinese twin beside it (`note_zh`, `assumption_zh`), faithful (the numbers of the English kept,
the project's zh terms), and a Chinese answer says it: GET /api/offers?lang=zh and POST /api/estimate?lang=zh give the
twin where the English answer keeps the English. A row with no twin falls back to English (`note_message` is None)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from suanli.catalog.load import packaged_catalog, read_yaml
from suanli.catalog.schema import EfficiencyFactor
from suanli.i18n import Message, localize, render
from suanli.plan.scenarios import Scenario

from ..cli.test_zh_render_1201 import FORBIDDEN

SCENARIOS = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "scenarios.yaml"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_SCALED = re.compile(r"(\d+(?:\.\d+)?)([MB])\b")  # 100M / 1B tokens: 1 亿 / 10 亿 in Chinese (万/亿 counts)
_CN_SCALED = re.compile(r"(\d+(?:[.,]\d+)*) ?([万亿])")


def _lost_numbers(en: str, zh: str) -> set[str]:
    """The numbers of `en` that `zh` does not have, as written or (a count in M/B) as the same count in 万/亿."""
    counts = {round(float(n.replace(",", "")) * {"万": 1e4, "亿": 1e8}[u]) for n, u in _CN_SCALED.findall(zh)}
    said = {f"{n}{u}" for n, u in _SCALED.findall(en) if round(float(n) * {"M": 1e6, "B": 1e9}[u]) in counts}
    rest = _SCALED.sub(lambda m: "" if m.group(0) in said else m.group(0), en)
    return set(_NUMBER.findall(rest)) - set(_NUMBER.findall(zh))


def _prose() -> dict[str, list[tuple[str, str, str | None]]]:
    """(id, English, Chinese) of each prose field the task covers, by kind; every row that has the English."""
    cat = packaged_catalog()
    scenarios = [Scenario.model_validate(s) for s in (read_yaml(SCENARIOS) or {})["scenarios"]]
    return {
        "offer": [(o.id, o.note, o.note_zh) for o in cat.offers if o.note],
        # a derived row (catalog.load.derived_matmul_efficiency) says its note as a message of its own
        "efficiency": [(f.id, f.note, f.note_zh) for f in cat.efficiency if f.note and f.note_i18n is None],
        "scenario": [(s.id, s.assumption, s.assumption_zh) for s in scenarios],
    }


@pytest.mark.parametrize("kind", ["offer", "efficiency", "scenario"])
def test_every_packaged_note_has_its_chinese_twin(kind: str) -> None:
    rows = _prose()[kind]
    assert len(rows) >= {"offer": 40, "efficiency": 40, "scenario": 14}[kind], "the check would cover too few rows"
    assert [i for i, _, zh in rows if not zh] == []
    assert [i for i, _, zh in rows if zh and not _CJK.search(zh)] == []  # Chinese, not the English copied


@pytest.mark.parametrize("kind", ["offer", "efficiency", "scenario"])
def test_chinese_twins_keep_the_numbers_and_the_project_terms(kind: str) -> None:
    """Faithful: every number of the English (prices, sizes, dates, errors, ids' digits) is in the Chinese, and the
    Chinese uses the project's one word per concept (参考文章, 区域, 批大小 …: test_zh_render_1201.FORBIDDEN)."""
    rows = [(i, en, zh) for i, en, zh in _prose()[kind] if zh]
    lost = [(i, sorted(_lost_numbers(en, zh))) for i, en, zh in rows]
    assert [x for x in lost if x[1]] == []
    assert [(i, w) for i, _, zh in rows for w in FORBIDDEN if w.lower() in zh.lower()] == []


def test_offers_api_says_the_note_in_the_request_language() -> None:
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it, so CI runs this")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    c = TestClient(create_app(Settings(database_url="sqlite:///:memory:", api_token=None)))
    twins = {o.id: (o.note, o.note_zh) for o in packaged_catalog().offers if o.note}
    for lang, pick in (("zh", 1), ("en", 0)):
        rows = c.get(f"/api/offers?lang={lang}&limit=1000").json()
        got = {r["id"]: r["note"] for r in rows if r["id"] in twins}
        assert got and got == {k: twins[k][pick] for k in got}, lang
        assert all("note_zh" not in r for r in rows)


def test_estimate_api_says_every_efficiency_note_in_chinese() -> None:
    """Every efficiency row an estimate used, a data file's (efficiency.yaml, diffusion.yaml) or a derived one, carries
    its note as a message: in Chinese the note is the twin, in English the data file's text as it is."""
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it, so CI runs this")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    c = TestClient(create_app(Settings(database_url="sqlite:///:memory:", api_token=None)))
    data = {f.id: f for f in packaged_catalog().efficiency if f.note_i18n is None}
    seen: set[str] = set()
    for body in ({"model": "qwen2.5-7b", "gpu": "h20", "engine": "sglang"},
                 {"model": "qwen2.5-7b", "gpu": "910b", "engine": "vllm-ascend"},
                 {"model": "llama-2-7b", "gpu": "h100-sxm", "gpus": 8, "task": "full"}):
        en, zh = (c.post(f"/api/estimate?lang={lang}", json=body) for lang in ("en", "zh"))
        assert en.status_code == zh.status_code == 200, (en.text, zh.text)
        rows = zip(en.json()["speed"]["efficiency"], zh.json()["speed"]["efficiency"], strict=True)
        for e, z in rows:
            assert e["factor_id"] == z["factor_id"] and e["note_i18n"] is not None, e
            assert _CJK.search(z["note"]) and not re.search(r"\b(?:fitted|measured|the|of)\b", z["note"]), z
            f = data.get(e["factor_id"])
            if f is not None:
                seen.add(f.id)
                assert (e["note"], z["note"]) == (f.note, f.note_zh)
    assert {"step-overhead-sglang", "step-overhead-davinci-vllm", "collective-overhead"} <= seen, seen


def test_a_note_without_chinese_is_said_in_english() -> None:
    """`note_message` is the one place the language is chosen: the twin where there is one, else None (the English
    note as it is), a derived row's own message unchanged."""
    base: dict[str, Any] = {"id": "x", "metric": "decode_bandwidth", "value": 0.5, "source": "assumed", "note": "as is"}
    assert EfficiencyFactor.model_validate(base).note_message is None
    twin = EfficiencyFactor.model_validate({**base, "note_zh": "原样"}).note_message
    assert twin is not None
    assert (render(Message.from_json(twin), "en"), render(Message.from_json(twin), "zh")) == ("as is", "原样")
    answer = {"note": "as is", "note_i18n": twin}
    assert localize(answer, "zh")["note"] == "原样" and localize(answer, "en")["note"] == "as is"
    own = {"id": "est.derived.measured", "params": {"n": 3}}
    assert EfficiencyFactor.model_validate({**base, "note_zh": "原样", "note_i18n": own}).note_message == own
