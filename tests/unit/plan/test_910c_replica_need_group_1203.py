"""Buyer review 2026-12-03 (task J.4): on a 910C plan's why-not folded an expert-parallel group into the tp — the
smallest replica tp8 × ep2 read "a replica needs 16 dies at tp 16". It now names the group in cards with its dies
(`why.serve_need_ep_dies`, `labels.replica_words`), as a one-die device's `why.serve_need_ep` does."""

from __future__ import annotations

from typing import Any

import numpy as np

from suanli.i18n import render
from suanli.plan.search import _replica_need

AT: dict[str, Any] = {"tp": 8, "need_gib": 81.7, "usable_gib": 57.6, "cap_gib": 64.0}


class _Dev:  # the two things _replica_need reads of a device: its dies and its wording
    def __init__(self, dies: int) -> None:
        self.dies = dies

    def said(self, msg_id: str) -> str:
        return f"{msg_id}_dies" if self.dies > 1 else msg_id


def _need(tp: int, ep: int, dies: int) -> Any:
    grid = {"small_tp": np.array([float(tp)]), "small_ep": np.array([float(ep)])}
    return _replica_need(grid, np.array([0]), _Dev(dies), AT)  # type: ignore[arg-type]


def test_910c_group_is_named_as_a_group_in_cards_and_dies() -> None:
    m = _need(8, 2, 2)
    assert m.id == "why.serve_need_ep_dies"
    assert render(m) == ("a replica needs a group of 8 cards (16 dies) sharing experts (tp8 × ep2) (at tp 8 it needs "
                         "81.7 GiB per die, 57.6 usable of 64)")
    assert "tp 16" not in render(m)
    assert render(m, "zh").startswith("一个副本需要一组共享专家的 8 卡（16 个芯粒）副本组（tp8 × ep2）")


def test_other_replicas_are_as_they_were() -> None:
    assert render(_need(16, 1, 2)).startswith("a replica needs 16 dies at tp 16 (at tp 8 it needs 81.7 GiB per die")
    one = _need(8, 2, 1)
    assert one.id == "why.serve_need_ep" and one.params["cards"] == 16
    assert render(one).startswith("a replica needs a group of 16 cards sharing experts (tp8 × ep2)")
