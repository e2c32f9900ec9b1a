"""Buyer review 2026-12-01 (issue 11's acceptance: the output says exactly which figure is missing and that it is not
public): a device's why-not names every reason that applies, most fundamental first (no framework runs the task,
each unpublished figure, no public price), in the table and as a list in --json / the API, English and Chinese.
Before, `--task pretrain --domestic-only` said only "no framework ..." for K100, MLU590 and C500 while `--task full`
listed their missing memory size, bandwidth and price."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.plan.request import make_request
from suanli.plan.search import plan, why_not_reasons

PRETRAIN = dict(model="qwen2.5-7b", task="pretrain", tokens=2e10, domestic_only=True)
ARGS = ["plan", "--model", "qwen2.5-7b", "--task", "pretrain", "--tokens", "2e10", "--domestic-only"]


def _why(cat, **kw):  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, str(kw["model"])), make_request(**kw))
    return {w["device"]: w for w in r.why_not}


def _ids(w) -> list[str]:  # type: ignore[no-untyped-def]
    return [x["id"] for x in w["reasons_i18n"]]


def test_pretrain_names_the_framework_and_every_missing_figure_and_the_price(cat) -> None:  # type: ignore[no-untyped-def]
    why = _why(cat, **PRETRAIN)
    assert _ids(why["hygon-k100"]) == ["why.no_framework", "why.no_memory_size", "why.no_bandwidth", "why.unpriced"]
    # the MLU590's only compute figure is INT8 (seed-003): its 16-bit peak is a missing figure too
    assert _ids(why["mlu590"]) == ["why.no_framework", "why.no_peak", "why.unpriced"]
    assert _ids(why["metax-c500"]) == ["why.no_framework", "why.unpriced"]
    assert _ids(why["kunlunxin-p800"]) == ["why.no_framework", "why.no_memory_size", "why.no_bandwidth",
                                           "why.no_peak", "why.unpriced"]
    # a priced device with its figures published: the framework alone
    assert _ids(why["mtt-s4000"]) == ["why.no_framework"]
    for w in why.values():  # the sentence is the list joined; the list's texts are its messages rendered
        assert w["reason"] == "; ".join(w["reasons"])
        assert w["reasons"] == [render(Message.from_json(x)) for x in w["reasons_i18n"]]


def test_full_fine_tuning_lists_the_same_figures_without_the_framework(cat) -> None:  # type: ignore[no-untyped-def]
    why = _why(cat, **{**PRETRAIN, "task": "full"})
    assert _ids(why["hygon-k100"]) == ["why.no_memory_size", "why.no_bandwidth", "why.unpriced"]
    assert _ids(why["mlu590"]) == ["why.no_peak", "why.unpriced"]
    assert _ids(why["metax-c500"]) == ["why.unpriced"]


def test_one_reason_is_a_list_of_one_and_asked_exclusions_stay_alone(cat) -> None:  # type: ignore[no-untyped-def]
    why = _why(cat, **PRETRAIN)
    assert _ids(why["h800"]) == ["why.not_domestic"]  # the request excluded it: no catalog gaps listed beside
    assert why_not_reasons(Message("why.no_price")) == [Message("why.no_price")]


def test_a_pin_is_not_offered_as_the_way_out_for_a_device_that_also_lacks_a_price(cat) -> None:  # type: ignore[no-untyped-def]
    r = plan(cat, lookup.model(cat, "qwen2.5-7b"),
             make_request(model="qwen2.5-7b", task="pretrain", tokens=2e10, devices=["hygon-k100"],
                          framework="megatron"))
    assert not r.plans
    assert [x["id"] for x in r.why_not[0]["reasons_i18n"]][0] == "why.fw_stack"
    assert "why.unpriced" in [x["id"] for x in r.why_not[0]["reasons_i18n"]]
    # dropping --framework cannot give a plan: the K100 has no price and no published memory figures
    assert all(x["id"] != "relax.drop_pin" for x in r.relax_i18n), r.relax


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_table_gives_each_reason_a_line_at_80_columns(lang, monkeypatch, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_cli(["--lang", lang, *ARGS], monkeypatch, capsys, tmp_path, columns=80)
    assert code == 0
    lines = out.splitlines()
    assert all(len(x) <= 80 for x in lines)
    k100 = next(i for i, x in enumerate(lines) if x.startswith("hygon-k100 "))  # the id whole, not cut
    row = [lines[k100]] + [x for x in lines[k100 + 1:k100 + 12]]
    row = row[:next((j for j, x in enumerate(row[1:], 1) if x[:1].strip()), len(row))]  # up to the next device
    text = " ".join(x[16:].strip() for x in row)
    if lang == "en":
        starts = ["no framework in the catalog runs pre-training on Hygon DTK", "no published memory size;",
                  "no published memory bandwidth;", "no public Hygon K100 rental price"]
    else:
        starts = ["型号库中没有能在海光 DTK", "没有公开的显存容量；", "没有公开的显存带宽；", "没有公开的海光 K100 租用价格"]
    # each reason starts a line of its own, in order
    heads = [x[16:].strip() for x in row if any(x[16:].strip().startswith(s[:8]) for s in starts)]
    assert len(heads) == 4 and all(h.startswith(s[:8]) for h, s in zip(heads, starts)), row
    for s in starts:
        assert s.rstrip(";；").replace(" ", "") in text.replace(" ", ""), (s, text)
    for dev in ("mlu590", "metax-c500", "kunlunxin-p800"):
        assert any(x.startswith(dev + " ") for x in lines), dev


def test_cli_json_and_api_give_the_list(monkeypatch, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    from fastapi.testclient import TestClient

    from suanli.api.app import create_app

    code, out, _ = run_cli([*ARGS, "--json"], monkeypatch, capsys, tmp_path)
    assert code == 0
    w = {x["device"]: x for x in json.loads(out)["why_not"]}["metax-c500"]
    assert w["reasons"][0].startswith("no framework in the catalog runs pre-training")
    assert w["reasons"][1].startswith("no public MetaX C500 rental price")
    body = {"model": "qwen2.5-7b", "task": "pretrain", "tokens": 2e10, "domestic_only": True}
    r = TestClient(create_app()).post("/api/plan?lang=zh", json=body)
    assert r.status_code == 200, r.text
    w = {x["device"]: x for x in r.json()["why_not"]}["hygon-k100"]
    assert [x["id"] for x in w["reasons_i18n"]] == ["why.no_framework", "why.no_memory_size", "why.no_bandwidth",
                                                     "why.unpriced"]
    assert w["reasons"][1:3] == ["没有公开的显存容量", "没有公开的显存带宽"]
    assert w["reasons"][0].startswith("型号库中没有")
