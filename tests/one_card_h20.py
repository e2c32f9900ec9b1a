"""The catalog as it was before AutoDL's H20 listing (offers-7.yaml, 2026-12-02): the H20's only offers were
优云智算's 1-card index row, so it is the catalog's device rented one card per instance with a published price.
Tests of that mechanism (why-not 'needs N cards in one instance', verdicts on separate 1-card instances) run on it,
so they keep pinning the mechanism while the packaged data moves on."""

from __future__ import annotations

from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Catalog

AUTODL_H20 = "autodl-h20-hour-2026-08"


def one_card_h20(cat: Catalog | None = None) -> Catalog:
    """`cat` (default: the packaged catalog) without AutoDL's multi-card H20 listing."""
    cat = cat or packaged_catalog()
    assert any(o.id == AUTODL_H20 for o in cat.offers), "the listing moved: update this helper"
    return cat.model_copy(update={"offers": tuple(o for o in cat.offers if o.id != AUTODL_H20)})
