"""Pin a catalog offers file's rows to the quotes they were read from (the one check tests/unit/catalog's offers data
tests each wrote): every row named in `pinned` and no other, each with its device, cards, billing unit, date, price and
the quoted words in its price's note. Importable from every test: tests/conftest.py puts its folder on sys.path."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pytest


def assert_pinned(rows: Iterable[Any], pinned: Mapping[str, tuple[Any, ...]]) -> None:
    """`pinned`: offer id → (device, cards, billing unit, date, price in yuan, words its price note quotes)."""
    rows = list(rows)
    assert {o.id for o in rows} == set(pinned)
    for o in rows:
        device, cards, unit, price, date, words = pinned[o.id]
        assert (o.device, o.cards, o.billing_unit, o.date) == (device, cards, unit, date), o.id
        (value,) = o.price_cny.values
        assert value.value == pytest.approx(price), o.id
        assert words in (value.note or ""), o.id
