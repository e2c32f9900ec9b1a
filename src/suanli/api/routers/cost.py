"""POST /api/rent-vs-buy: `suanli rent-vs-buy --json` over HTTP, the same computation (`views.rent_vs_buy`, which
calls the core's `plan.cost.rent_vs_buy`), within the per-request time budget (503 past it)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import ConfigDict, Field

from suanli.api.deps import catalog, run_bounded
from suanli.api.responses import OfferFacts
from suanli.api.schemas import JsonBody, OfferKinds, Region
from suanli.catalog.load import packaged_assumptions
from suanli.i18n import Lang, Surface, localize
from suanli.plan.cost import RentVsBuyTotals  # the core's totals, one declaration (duplicates D13)
from suanli.units import MIN_UTILIZATION
from suanli.views.bounds import MAX_NAME_CHARS
from suanli.views.shape import MessageJson, Shape
from suanli.web.messages import request_lang, request_surface

__all__ = ["RentVsBuyAnswer", "RentVsBuyBody", "router"]

router = APIRouter(prefix="/api", tags=["compute"])
_ASSUME = packaged_assumptions()  # the CLI's defaults (assumptions.yaml), each with its source


class RentVsBuyBody(JsonBody):
    """The options of `suanli rent-vs-buy`, with its defaults; the bounds are the core's (`plan.cost.rent_vs_buy`)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    help_commands = ("rent-vs-buy",)

    gpu: str = Field("rtx-4090", min_length=1, max_length=MAX_NAME_CHARS, description="device id or alias")
    utilization: float = Field(0.5, ge=MIN_UTILIZATION, le=1, description="share of the year the card works "
                               "(hours in use ÷ 8,760; 0.001–1)")
    use_pattern: Literal["spread", "blocks"] = Field("spread", description="spread: some use every month (a monthly "
                                                     "offer is rented all year); blocks: whole months")
    years: float = Field(_ASSUME.amortization_years.value, gt=0, le=50, description="amortization years")
    pue: float = Field(_ASSUME.pue.value, ge=1, le=5, description="data-centre PUE")
    electricity: float = Field(_ASSUME.electricity_cny_per_kwh.value, ge=0, le=100, description="CNY per kWh")
    ops: float = Field(0.0, ge=0, le=1e8, description="operations CNY per card per year")
    card_price: float | None = Field(None, gt=0, le=1e8, description="CNY per card (default: catalog purchase)")
    server_share: float | None = Field(None, ge=0, le=1e8, description="server CNY per card (default: catalog)")
    rent_price: float | None = Field(None, gt=0, le=1e5, description="CNY per card-hour in use, billed linearly "
                                     "(default: the cheapest way to rent a card for a year, any billing unit)")
    tdp_w: float | None = Field(None, gt=0, le=1e5, description="card power in W (default: the catalog's TDP)")
    host_w: float | None = Field(None, ge=0, le=1e5, description="host power per card in W: the card's share of its "
                                 "server's CPUs, memory, NICs and fans (default: the catalog's whole-server figure, "
                                 "else the catalog's assumed host_power_share of the TDP)")
    cards: int | None = Field(None, ge=1, le=4096, description="cards you buy: up to one server's (its non-card "
                              "hardware is shared by them; default: the catalog server's cards) or a multiple of the "
                              "device's cards per node, whole servers")
    subsidy: float = Field(0.0, ge=0, lt=1, description="share of the rent a local compute subsidy refunds (domestic "
                           "devices; rent side only, as tco applies it)")
    region: Region = "cn"
    offer_kinds: OfferKinds = ("listing",)


class FreshRentOffer(Shape):
    offer: str
    provider: str
    date: str
    rent_cny_per_card_hour: float


class FreshRentRange(Shape):
    """A close verdict (rent and own at full use within 10 %, assumed): break-even at the cheapest and dearest fresh
    price for a card-year."""

    margin: float
    offers: list[FreshRentOffer]
    break_even_at_lowest: float | None
    break_even_at_highest: float | None


class RvbAssumption(Shape):
    """One input of the answer that no price quote gives (`views.rent_vs_buy.assumptions`)."""

    key: Literal["pue", "electricity", "ops", "years", "utilization", "host_w"]
    value: float
    unit: str = Field(description="what value is in: '' (PUE), CNY/kWh, CNY/card-year, years, share of the year, W/card")
    status: Literal["assumed", "cited", "given"] = Field(description="assumed: a default no source states (text says "
                                                         "why); cited: a sourced default; given: the request's own")
    assumed: bool = Field(description="status is assumed")
    source: str = Field(description="'assumed', the catalog source id of a cited default, or the field when given")
    field: str = Field(description="the request field that changes it")
    text: str = Field(description="the entry in words")
    text_i18n: MessageJson


class RentVsBuyAnswer(Shape):
    """POST /api/rent-vs-buy: `suanli rent-vs-buy --json`, its sentences in the request's language."""

    rent_cny_per_year_full_use: float
    buy_cny_per_year: float
    capex_cny: float = Field(description="capex per card: the card and its server share (totals: all cards)")
    power_cny_per_year_full_use: float
    running_cny_per_year: float = Field(description="power at this use and operations, per card-year")
    power_w_per_card: float = Field(description="watts a card draws with its host share: card TDP + host_w_per_card")
    host_w_per_card: float = Field(description="the card's share of its server's non-card draw (CPUs, memory, NICs, "
                                   "fans), W; assumptions' host_w says whether cited or assumed")
    break_even_utilization: float | None = Field(description="share of the year above which owning is cheaper; null "
                                                 "when it never is (break_even_note says why)")
    break_even_note: str
    break_even_note_i18n: MessageJson | dict[str, Any]
    rent_at_utilization_cny: float = Field(description="renting one card for the year at this use")
    buy_at_utilization_cny: float = Field(description="owning one card for the year at this use")
    cheaper: str = Field(description="rent or buy, at this use")
    utilization: float
    use_pattern: str
    hours_in_use: float
    rent_at_utilization_offer: str | None
    rent_at_utilization_billing_unit: str | None
    rent_at_utilization_units: int | None
    rent_at_utilization_cards: int | None
    rent_at_utilization_note: str
    rent_at_utilization_note_i18n: MessageJson | dict[str, Any]
    commitment_note: str | None = Field(description="a minimum term longer than the year: what it commits to")
    commitment_note_i18n: MessageJson | None = None
    years: float
    resale_value_cny: float
    region: str
    offer_kinds: list[str]
    rent_cny_per_card_hour: float = Field(description="the year's rent ÷ 8,760 h, or rent_price")
    rent_from: str = Field(description="the offer and bill the year's rent comes from, or the rent_price given")
    rent_from_i18n: MessageJson | None = Field(None, description="rent_from as a message (id, params)")
    rent_offer: OfferFacts | None = None
    rent_billing_unit: str | None = None
    rent_cny_per_card_year: float | None = None
    rent_notes: list[str] = Field(default_factory=list, description="the rent's bill in words: 'N separate instances, "
                                  "not one N-card job' when no offer holds the cards bought as one job (tco's note, "
                                  "plan's rule offers.can_rent), a block rented whole")
    rent_notes_i18n: list[MessageJson] = Field(default_factory=list, description="rent_notes as messages")
    card_cny: float
    card_from: str | None = Field(description="where card_cny comes from: the card_price given, a purchase row, or a "
                                  "server's price ÷ its cards")
    card_from_i18n: MessageJson | None = Field(None, description="card_from as a message (id, params)")
    server_share_cny: float | None
    server_share_note: str | None
    server_share_note_i18n: MessageJson | None = None
    server_cards: int | None
    fresh_rent_range: FreshRentRange | None
    totals: RentVsBuyTotals
    rent_at_utilization_offer_facts: OfferFacts | None = None
    subsidy: float = Field(0.0, description="share of the rent the subsidy refunds (0: none; never the purchase)")
    gross_rent_at_utilization_cny: float | None = Field(None, description="rent_at_utilization_cny before the subsidy")
    subsidy_note: str | None = Field(None, description="the subsidy in words: share, gross → net")
    subsidy_note_i18n: MessageJson | None = None
    servers: int | None = Field(None, description="whole servers bought when cards is a multiple of a server's")
    card_price_id: str | None = Field(None, description="the catalog purchase row of the card price (null: typed)")
    card_price_date: str | None = Field(None, description="that row's date (null: typed or none)")
    server_price_id: str | None = Field(None, description="the catalog purchase row of the server price")
    server_price_date: str | None = Field(None, description="that row's date (null: typed or none)")
    purchase_notes: list[str] = Field(default_factory=list, description="a purchase price older than 12 months (rent "
                                      "offers' staleness rule) and the catalog row's own note (low confidence)")
    purchase_notes_i18n: list[MessageJson] = Field(default_factory=list, description="purchase_notes as messages")
    rent_vs_price: str | None = Field(None, description="the card bought (card + server share) in months of this "
                                      "rent at full use, how a multi-card offer's price became a card's, and the "
                                      "purchase and rent dates")
    rent_vs_price_i18n: MessageJson | None = None
    assumptions: list[RvbAssumption] = Field(description="every input no price quote gives — PUE, electricity, ops, "
                                             "years, utilization, host_w — as used: assumed (and why), cited or "
                                             "given")


@router.post("/rent-vs-buy", response_model=RentVsBuyAnswer, response_model_exclude_unset=True)
async def rent_vs_buy_ep(request: Request, body: RentVsBuyBody, lang: Annotated[Lang, Depends(request_lang)] = "en",
                         surface: Annotated[Surface, Depends(request_surface)] = "api") -> dict[str, Any]:
    """Per card per year: renting against owning (capex ÷ years, power = TDP × PUE × price, operations), the
    break-even utilization, the offer the rent comes from and any commitment, and the totals for `cards` × `years`;
    `suanli rent-vs-buy --json`, its sentences in the request's language (`?lang=` or Accept-Language)."""
    from suanli.views.dates import as_of
    from suanli.views.rent_vs_buy import rent_vs_buy_answer

    def run() -> dict[str, Any]:
        # the core names the CLI's flags (rent-price); the answer the request's fields (rent_price: errors.json_named)
        return rent_vs_buy_answer(catalog(request), body.gpu, body.utilization, body.use_pattern, body.years,
                                  body.pue, body.electricity, body.ops, body.card_price, body.server_share,
                                  body.rent_price, body.tdp_w, body.cards, body.region, tuple(body.offer_kinds),
                                  as_of(), body.subsidy, body.host_w,
                                  # a field sent is "as given" in the assumptions, at its default value too
                                  given=body.model_fields_set).json

    return localize(await run_bounded(request, run, "rent-vs-buy"), lang, surface)  # type: ignore[no-any-return]
