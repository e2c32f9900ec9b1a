"""One second-hand rule (procurement review M2, finding 3): every offer priced from a third party's source (a
scraper's files, a user's notes, an index, a dataset, a post quoting the platform: `Source.third_party`) is
`second_hand` and is named "quoted via a third party" (zh 转引) wherever a plan, rent-vs-buy or a cost answer cites
it — the 云擎天下 listings read from CMIS's scraper files as the AutoDL ones read from a user's notes."""

from __future__ import annotations

from urllib.parse import urlparse

from suanli.catalog.load import load_catalog
from suanli.catalog.offers import is_second_hand, rent_message
from suanli.catalog.schema import Catalog
from suanli.i18n import render
from suanli.plan.compare import offer_facts

# sources whose own publisher states the figure (the row's provider names that publication): not third parties
OWN_FIGURE = {
    "xinghai-4090-promo": "the platform's own advertisement",
    "cnbeta-1449972": "cnBeta's own report of the market level (provider: market, cnBeta)",
    "zhitaoyun-2153110": "the survey itself is the provider (market survey, zhitaoyun)",
}


def _host(url: str) -> str:
    return urlparse(url).netloc.lower().removeprefix("www.")


def _sources(cat: Catalog, o) -> set[str]:  # type: ignore[no-untyped-def]
    return {o.source, *(v.source for v in o.price_cny.values),
            *((v.source for v in o.price_cny_max.values) if o.price_cny_max else ())}


def test_every_offer_with_a_third_party_source_is_marked_and_says_so() -> None:
    cat = load_catalog()
    marked = [o for o in cat.offers if any(getattr(cat.sources.get(s), "third_party", False) for s in _sources(cat, o))]
    assert len(marked) >= 40
    for o in marked:
        assert o.second_hand and is_second_hand(o), o.id
        assert "quoted via a third party" in render(rent_message(o)), o.id
        assert "转引" in render(rent_message(o), "zh"), o.id
        assert offer_facts(o)["second_hand"] is True, o.id
    for o in cat.offers:  # and nothing else is
        if o not in marked:
            assert not o.second_hand and "转引" not in render(rent_message(o), "zh"), o.id


def test_the_omniyq_listings_read_from_cmis_files_carry_the_mark() -> None:
    cat = load_catalog()
    omniyq = [o for o in cat.offers if o.id.startswith("omniyq-")]
    assert omniyq and all(o.source.startswith("cmis-audit-") for o in omniyq)
    for o in omniyq:
        assert render(rent_message(o), "zh").endswith("，转引）"), o.id


def test_a_source_read_from_someone_elses_page_is_a_third_party() -> None:
    """The data guard: a price source that is a file in someone's repository (`owner/repo:path`), or a page on
    another host than the offer's own, is marked `third_party` unless its publisher states the figure itself."""
    cat = load_catalog()
    for o in cat.offers:
        for sid in _sources(cat, o):
            src = cat.sources.get(sid)
            if src is None or not src.url or sid in OWN_FIGURE:
                continue
            elsewhere = not src.url.startswith("http") or not o.url or _host(src.url) != _host(o.url)
            if elsewhere:
                assert src.third_party, f"{o.id}: source {sid} ({src.url}) is read through a third party"
