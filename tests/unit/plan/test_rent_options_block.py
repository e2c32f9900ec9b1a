"""`rent_options` (rent-vs-buy's offer choice, `rent_for`) prices a card-hour as rent-vs-buy shows it: the year's bill ÷
the cards that bill rents (`cards_rented`), not ÷ the offer's cards — for a block rented whole (`min_cards_per_order`
above the offer's cards: SMM's 32 A100 nodes, 256 cards, '整租') the two disagreed 32-fold (consistency fix
2026-12-01)."""

from __future__ import annotations

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.plan.compare import rent_for, rent_options
from suanli.units import HOURS_PER_MONTH, HOURS_PER_YEAR


def test_a_whole_block_offer_is_priced_per_card_it_rents() -> None:
    cat = packaged_catalog()
    opts = rent_options(cat, "a100-80g", HOURS_PER_YEAR, "cn", ("listing", "index"))
    block = [t for t in opts if (t[1].min_cards_per_order or 0) > t[1].cards]
    assert block, "the catalog's block offer (SMM, 256 cards rented whole)"
    for price, o, bill in opts:
        assert bill.cards_rented >= o.cards
        assert price == pytest.approx(bill.cost_cny / (bill.cards_rented * HOURS_PER_YEAR), rel=1e-12)
    price, o, bill = block[0]
    assert bill.cards_rented == 256
    # 12 months of ¥31,500 per 8-card node: ¥31,500 ÷ 8 ÷ 730 h per card-hour (was 32 times that, ÷ 8 cards only)
    assert price == pytest.approx(31_500 / 8 / HOURS_PER_MONTH, rel=1e-9)


def test_rent_for_quotes_the_figure_rent_vs_buy_shows() -> None:
    cat = packaged_catalog()
    found = rent_for(cat, "a100-80g", HOURS_PER_YEAR, "cn", ("listing", "index"))
    assert found is not None
    price, _, bill = found
    assert price * HOURS_PER_YEAR == pytest.approx(bill.cost_cny / bill.cards_rented, rel=1e-12)
