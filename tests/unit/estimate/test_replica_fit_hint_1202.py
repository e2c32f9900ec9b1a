"""Serving that does not fit names the tp (or ep) one replica needs, as plan's why-not does (buyer review 2026-12-02:
`estimate --model qwen3-235b-a22b --gpu 910b --gpus 8 --precision int8` without --tp ran 8 one-card replicas,
220 GiB of weights a card, "does not fit" and no hint). `estimate.replica_fit_hint`: plan's sizes (NEED_TPS,
EP_SIZES) and batch-1 rule, by the same memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cli_run import run_cli
from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import plan


def _ids(msg: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every (id, params) of a message and the messages nested in it."""
    if isinstance(msg, dict) and set(msg) == {"id", "params"}:
        return [(msg["id"], msg["params"]), *(x for v in msg["params"].values() for x in _ids(v))]
    if isinstance(msg, list):
        return [x for v in msg for x in _ids(v)]
    return []


def _hint(model: str, gpu: str, **kw: Any) -> list[tuple[str, dict[str, Any]]]:
    cat = packaged_catalog()
    m, acc = lookup.model(cat, model), lookup.accelerator(cat, gpu)
    e = estimate(cat, m, acc, make_workload(task="inference", **kw))
    return [x for n in e.notes_i18n if isinstance(n, dict) and n.get("id") == "est.note.replica_needs"
            for x in _ids(n)]


def test_one_card_replicas_of_qwen3_235b_on_910b_say_try_tp_8_or_ep_8() -> None:
    ids = dict(_hint("qwen3-235b-a22b", "910b", gpus=8, precision="int8", engine="vllm-ascend"))
    assert ids["why.serve_need_tp"]["need_tp"] == 8 and ids["why.serve_need_tp"]["tp"] == 1
    assert ids["est.note.try_tp"]["tp"] == 8 and ids["est.note.try_ep"]["ep"] == 8  # vllm-ascend serves EP
    assert "est.note.try_ep" not in dict(_hint("qwen3-235b-a22b", "910b", gpus=8, precision="int8", engine="hf"))


def test_the_cards_needed_are_plans_why_not_figure() -> None:
    # plan: "rtx-4090: does not fit with vLLM: a replica needs 16 cards at tp 16 (at tp 8 ...)"
    cat = packaged_catalog()
    m = lookup.model(cat, "qwen3-235b-a22b")
    res = plan(cat, m, make_request(model=m.id, task="inference", devices=("rtx-4090",), precision=("int8",),
                                    requests_per_s=1, input=1024, output=1024, tpot_s=0.05, ttft_s=2,
                                    offer_kinds=("listing", "index", "reference", "contract")), None)
    plan_need = next(p["need_tp"] for w in res.why_not if w.get("device") == "rtx-4090"
                     for i, p in _ids(w["reason_i18n"]) if i == "why.serve_need_tp")
    ids = dict(_hint("qwen3-235b-a22b", "rtx-4090", gpus=8, tp=8, precision="int8", input=1024, output=1024))
    assert ids["why.serve_need_tp"]["need_tp"] == plan_need == 16
    assert ids["est.note.try_tp_gpus"]["tp"] == ids["est.note.try_tp_gpus"]["gpus"] == 16  # more cards than asked


def test_no_hint_where_one_replica_fits_or_for_training() -> None:
    assert _hint("qwen2.5-7b", "910b", gpus=1) == []  # it fits
    assert _hint("qwen2.5-72b", "h100", gpus=4, tp=4, batch=4096) == []  # batch 1 fits at tp 4: the batch does not


def test_the_cli_prints_the_hint(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                 tmp_path: Path) -> None:
    args = ["estimate", "--model", "qwen3-235b-a22b", "--gpu", "910b", "--gpus", "8", "--precision", "int8"]
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path)
    flat = " ".join(out.split())
    assert code == 0, (out, err)
    assert "a replica needs 8 cards at tp 8 (at tp 1 it needs" in flat and "try --tp 8, or --ep 8" in flat
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert "可试--tp8，或--ep8" in "".join(out.split())
