"""The why-not's instance sizes count cards with the plural rule (buyer review 2026-12-02, task B.4: "holds 1
card(s)", "has 4 card(s)"): every English message saying '{largest} card(s)' now says '{largest:/card/cards}'."""

from __future__ import annotations

from suanli.i18n import Message, messages, render


def test_no_largest_cards_with_s() -> None:
    assert [k for k, v in messages("en").items() if "{largest} card(s)" in v] == []


def test_one_and_four_cards() -> None:
    one = render(Message("why.train_no_instance", largest=1, cards=8), "en")
    assert "holds 1 card:" in one and "card(s)" not in one, one
    four = render(Message("why.serve_replica", framework="vllm", need="x", largest=4), "en")
    assert "has 4 cards " in four and "card(s)" not in four, four
