"""Buyer review 2026-12-01, item 9: `estimate --model deepseek-r1 --gpu h20 --gpus 8 --tp 4 --ep 2 --batch 11` said
"each card holds 51% of the parameters" beside weights of 80.33 GiB per card, 12.8 % of 671 B at fp8: the note
quoted one tp4 replica's share (`ep_share`), tp times what a card holds. The note now states the card's share as
the memory breakdown counts it (`inference_memory`'s weights item ÷ the whole checkpoint), in both languages; the
training note likewise (`training_memory`)."""

from __future__ import annotations

from typing import Any

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.estimate.memory import ep_share, estimate_memory, weights_bytes
from suanli.estimate.workload import make_workload
from suanli.i18n import Message, render


def _note(mem: Any, msg_id: str) -> Message:
    return next(Message.from_json(n) for n in mem.notes_i18n if n["id"] == msg_id)


def test_serving_note_states_what_one_card_holds() -> None:
    cat = packaged_catalog()
    m, acc = model(cat, "deepseek-r1"), accelerator(cat, "h20")
    w = make_workload(task="inference", precision="fp8", gpus=8, tp=4, ep=2, batch=11, engine="vllm")
    mem = estimate_memory(m, w, acc, cat=cat)
    note = _note(mem, "est.note.serve_expert_parallel")
    card = mem.breakdown_bytes["weights"] / weights_bytes(m, "fp8")
    assert note.params["share"] == pytest.approx(card, rel=1e-12)
    # first principles: a quarter of one replica's share (the routed experts halved), not the replica's 51 %
    assert note.params["share"] == pytest.approx(ep_share(m, 2) / 4, rel=0.01)
    assert 0.125 < card < 0.131 and ep_share(m, 2) > 0.5
    en, zh = render(note, "en"), render(note, "zh")
    assert "each card holds 12.8% of the weights" in en and "51%" not in en
    assert "每张卡持有 12.8% 的权重" in zh and "51%" not in zh
    assert "4 cards" in en and "4 张卡" in zh  # both say the replica's part is split over its tp cards


def test_training_note_states_what_one_card_holds() -> None:
    cat = packaged_catalog()
    m, acc = model(cat, "deepseek-v3"), accelerator(cat, "h100")
    w = make_workload(task="full", precision="bf16", gpus=64, tp=4, pp=2, ep=8, zero=1, batch=1, seq=4096)
    mem = estimate_memory(m, w, acc, cat=cat)
    note = _note(mem, "est.note.expert_parallel")
    card = mem.breakdown_bytes["weights"] / weights_bytes(m, "bf16")
    assert note.params["share"] == pytest.approx(card, rel=1e-12)
    assert note.params["share"] == pytest.approx(ep_share(m, 8) / 8, rel=0.01)  # tp4 × pp2 of the ep rank's share
    assert f"each card holds {card:.1%} of the weights" in render(note, "en")
    assert f"每张卡持有 {card:.1%} 的权重" in render(note, "zh")
