"""Buyer review 2026-12-03 (task G): estimate's replica hints on an Ascend 910C counted dies as cards.
`estimate --model deepseek-r1 --gpu 910c --gpus 8 --tp 8 --ep 2 --batch 25 --input 512 --output 2000` said "try --tp
16 --gpus 32": tp16 × ep2 is 32 dies, 16 cards (--gpus counts cards, the workload ranks: `catalog.ranks.ranks_of`),
so 32 rented 64 dies; and "(32 cards, 16 a node)" for a replica of 32 dies on 8-card (16-die) nodes. The hints and
notes now say cards where they count cards, dies beside (`_dies` wordings, `catalog.ranks.dies_wording`), memory
per die; the suggested --gpus is the cards (`whole_cards`), and running it works. Other devices: unchanged."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cli_run import run_cli
from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, messages, render

R1 = ["estimate", "--model", "deepseek-r1", "--batch", "25", "--input", "512", "--output", "2000"]
DIES_IDS = ("est.note.expert_parallel_dies", "est.note.serve_expert_parallel_dies", "est.note.replica_spans_nodes_dies",
            "est.note.tp_spans_nodes_dies", "est.note.replica_at_dies", "est.note.try_tp_gpus_dies",
            "est.note.try_ep_dies", "est.note.try_ep_gpus_dies")


def _notes(gpu: str, **kw: Any) -> dict[str, Message]:
    """Every note (and the messages nested in one) of a serving estimate of DeepSeek-R1, by id."""
    cat = packaged_catalog()
    e = estimate(cat, lookup.model(cat, "deepseek-r1"), lookup.accelerator(cat, gpu),
                 make_workload(task="inference", batch=25, input=512, output=2000, **kw))
    out: dict[str, Message] = {}

    def walk(msg: Any) -> None:
        if isinstance(msg, Message):
            out[msg.id] = msg
            for v in msg.params.values():
                walk(v)

    for n in [*e.memory.notes_i18n, *e.notes_i18n]:
        if isinstance(n, dict):
            walk(Message.from_json(n))
    return out


def _flat(out: str) -> str:
    return " ".join(out.split())


def test_the_910c_hint_names_the_cards_and_its_command_runs(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = [*R1, "--gpu", "910c", "--gpus", "8", "--tp", "8", "--ep", "2"]
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path)
    flat = _flat(out)
    assert code == 0, (out, err)
    assert "it needs 87.7 GiB per die, 57.6 usable of 64): try --tp 16 --gpus 16 (16 cards, 32 dies)" in flat
    assert "--gpus 32" not in flat and "per card" not in flat
    # the suggested flags, run: 16 cards of 32 dies hold tp16 × ep2, and the replica fits
    tried = re.search(r"try (--tp \d+) (--gpus \d+)", flat)
    assert tried is not None
    run = [*R1, "--gpu", "910c", "--ep", "2", *tried.group(1).split(), *tried.group(2).split()]
    code, out, err = run_cli(run, monkeypatch, capsys, tmp_path)
    assert code == 0, (out, err)
    assert "16× Huawei Ascend 910C (32 dies)" in _flat(out) and "Memory per die — fits" in _flat(out)
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path)
    assert "每芯粒需要87.7GiB" in "".join(out.split()) and "（16张卡，32个芯粒）" in "".join(out.split())


def test_the_910c_hint_in_cards_without_an_ep() -> None:
    # one die a rank: tp 32 is 32 dies, 16 cards (the 910C's --gpus 8 is 16 dies)
    n = _notes("910c", gpus=16)
    assert n["why.serve_need_tp_dies"].params["need_tp"] == 32
    assert n["est.note.try_tp_gpus_dies"].params == {"field": "tp", "tp": 32, "gpus_field": "gpus", "gpus": 16,
                                                      "ranks": 32}


def test_a_910c_replica_across_nodes_says_cards_and_dies() -> None:
    n = _notes("910c", precision="int8", gpus=32, tp=16, ep=2)  # --gpus 16: 32 dies
    spans = n["est.note.replica_spans_nodes_dies"]
    assert (spans.params["nodes"], spans.params["cards"], spans.params["ranks"], spans.params["per_node"],
            spans.params["node_ranks"]) == (2, 16, 32, 8, 16)
    assert "spans 2 nodes (16 cards, 32 dies; 8 cards, 16 dies, a node)" in render(spans)
    assert "跨 2 个节点（16 张卡，32 个芯粒；每节点 8 张卡，16 个芯粒）" in render(spans, "zh")
    wide = _notes("910c", precision="int8", gpus=32, tp=32)["est.note.tp_spans_nodes_dies"]
    assert "tp 32 (dies) is wider than one node of 8 cards (16 dies)" in render(wide)
    ep = n["est.note.serve_expert_parallel_dies"]
    assert "each die holds 3.2% of the weights" in render(ep) and "its 16 dies, 8 cards" in render(ep)
    assert "每个芯粒持有 3.2% 的权重" in render(ep, "zh") and "16 个芯粒，即 8 张卡" in render(ep, "zh")


def test_the_910c_ep_try_says_cards_and_dies(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    args = ["estimate", "--model", "qwen3-235b-a22b", "--gpu", "910c", "--gpus", "2", "--precision", "int8"]
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path)
    assert code == 0, (out, err)
    assert ("try --tp 8 --gpus 4 (4 cards, 8 dies), or --ep 8 --gpus 4 (expert parallel: 4 cards, 8 dies, a replica)"
            in _flat(out))


def test_a_910c_training_ep_note_is_per_die() -> None:
    cat = packaged_catalog()
    e = estimate(cat, lookup.model(cat, "qwen3-30b-a3b"), lookup.accelerator(cat, "910c"),
                 make_workload(task="full", gpus=16, ep=8, zero=1, batch=1, seq=2048))
    ids = {n["id"] for n in e.memory.notes_i18n}
    assert "est.note.expert_parallel_dies" in ids and "est.note.expert_parallel" not in ids


def test_other_devices_say_what_they_said() -> None:
    # H20: an 8-card node, a tp8 × ep2 group over two of them; A100: the hint's --gpus are the ranks, as before
    n = _notes("h20", precision="fp8", gpus=16, tp=8, ep=2)
    assert not any(i.endswith("_dies") for i in n)
    spans = n["est.note.replica_spans_nodes"]
    assert spans.params["cards"] == 16 and spans.params["per_node"] == 8 and "ranks" not in spans.params
    assert "one serving replica spans 2 nodes (16 cards, 8 a node)" in render(spans)
    assert "each card holds" in render(n["est.note.serve_expert_parallel"])
    a100 = _notes("a100-80g", precision="int8", gpus=8, tp=4)
    assert not any(i.endswith("_dies") for i in a100)
    assert "GiB per card" in render(a100["why.serve_need_tp"])
    assert a100["est.note.try_tp_gpus"].params == {"field": "tp", "tp": 16, "gpus_field": "gpus", "gpus": 16}


@pytest.mark.parametrize("msg_id", DIES_IDS)
def test_every_dies_wording_stands_beside_its_base(msg_id: str) -> None:
    base = msg_id.removesuffix("_dies")
    for lang, die, card in (("en", "die", "per card"), ("zh", "芯粒", "每卡")):
        text, was = messages(lang)[msg_id], messages(lang)[base]
        assert die in text and card not in text and "each card" not in text and "每张卡持有" not in text
        # the base's placeholders all kept: the same figures, the dies beside
        assert set(re.findall(r"\{(\w+)", was)) <= set(re.findall(r"\{(\w+)", text)), (lang, msg_id)
