"""Offers and their price history; token-protected import and price updates."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, File, Path, Query, Request, Response, UploadFile

from suanli.api.deps import Token, catalog, store_of
from suanli.api.errors import as_field
from suanli.api.guard import UPLOAD_LIMIT
from suanli.api.responses import ImportResultJson, ImportRow, PriceRow, RollbackJson
from suanli.api.schemas import PriceBody
from suanli.catalog import lookup
from suanli.errors import InputError, NotFoundError
from suanli.i18n import Lang, Message, localize
from suanli.views import catalog as views
from suanli.web.messages import request_lang

router = APIRouter(prefix="/api", tags=["prices"])
_NAME = Annotated[str | None, Query(max_length=200)]
_OFFER_ID = Annotated[str, Path(min_length=1, max_length=200)]  # a longer id is a 422 in the one error shape
OFFERS_PAGE = 50  # `suanli offers --limit`'s default
MAX_PAGE = 1000  # the most rows one GET of a list returns
LIST_PAGE = 100  # imports, saved plans, benchmark results per page by default
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description=f"rows to return (default {LIST_PAGE})")]
Offset = Annotated[int, Query(ge=0, le=2**31 - 1, description="rows to skip (paging)")]


@router.get("/offers", response_model=list[views.OfferListJson], response_model_exclude_unset=True)
def offers(request: Request, response: Response, device: _NAME = None, provider: _NAME = None,
           billing_unit: Literal["second", "minute", "hour", "day", "week", "month", "year"] | None = None,
           region: Annotated[Literal["any", "cn", "international"], Query(
               description="cn: Chinese platforms, international: the others, any (default: everything)")] = "any",
           offer_kinds: Annotated[str, Query(max_length=64, description="listing, index, reference "
                                             "(comma-separated) or all (default)")] = "all",
           limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="offers to return (the CLI's 50 by "
                                       "default); X-Total-Count says how many match")] = OFFERS_PAGE,
           offset: Annotated[int, Query(ge=0, le=2**31 - 1, description="offers to skip (paging)")] = 0,
           lang: Annotated[Lang, Depends(request_lang)] = "en",
           ) -> list[dict[str, Any]]:
    """Offers as `suanli offers` lists them: filtered by device, provider, billing unit, region and kind, one
    page at a time (`limit`, `offset`; the X-Total-Count header holds the number that match); `scope_label` words
    what rents, and with `?lang=zh` it and the note are in Chinese."""
    from suanli.catalog import offers as offer_q

    try:
        kinds = offer_q.parse_kinds(offer_kinds)
    except InputError as e:
        raise as_field(e, "offer_kinds") from None  # the query's name, the message (and its Chinese) kept
    cat = catalog(request)
    usable = {o.id for o in offer_q.usable_offers(cat, region, kinds, billing_unit, None)}
    try:
        sel = [o for o in views.select_offers(cat, device, provider, billing_unit) if o.id in usable]
    except NotFoundError as e:
        raise as_field(e, "device") from None
    response.headers["X-Total-Count"] = str(len(sel))
    from suanli.views.dates import as_of

    today = as_of()
    # what rents in words beside the id `scope` (8 卡整机（HCCS；无节点间网络）), the note's and provider's Chinese twins: ?lang=zh;
    # the price's age and staleness as `suanli offers --json` gives them (`offer_row`: the one freshness rule)
    return localize([{**views.offer_json(o), "scope_label": offer_q.scope_label(o),  # type: ignore[no-any-return]
                      "scope_label_i18n": offer_q.scope_message(o).to_json(), "note_zh": o.note_zh,
                      "provider_zh": o.provider_zh,
                      **{k: v for k, v in views.offer_row(o, today).items() if k in ("age_months", "stale")}}
                     for o in sel[offset:offset + limit]], lang)


@router.get("/offers/{offer_id}/history", response_model=list[PriceRow], response_model_exclude_unset=True)
def offer_history(request: Request, offer_id: _OFFER_ID) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = store_of(request).price_history(offer_id=offer_id)
    if not rows:
        raise NotFoundError("offer", offer_id, [o.id for o in catalog(request).offers])
    return rows


@router.get("/prices", response_model=list[PriceRow], response_model_exclude_unset=True)
def prices(request: Request, device: _NAME = None, offer: _NAME = None,
           limit: Annotated[int, Query(ge=1, le=100_000)] = 10_000) -> list[dict[str, Any]]:
    try:
        dev = lookup.accelerator(catalog(request), device).id if device else None
    except NotFoundError as e:
        raise as_field(e, "device") from None
    return store_of(request).price_history(offer_id=offer, device=dev, limit=limit)  # type: ignore[no-any-return]


@router.get("/imports", response_model=list[ImportRow], response_model_exclude_unset=True)
def imports(request: Request, limit: Limit = LIST_PAGE, offset: Offset = 0) -> list[dict[str, Any]]:
    """Imports, oldest first, one page at a time."""
    return store_of(request).imports(limit=limit, offset=offset)  # type: ignore[no-any-return]


@router.post("/offers/import", dependencies=[Token], response_model=ImportResultJson, response_model_exclude_unset=True)
async def import_ep(request: Request, file: Annotated[UploadFile, File(description="CSV or YAML offers file")],
                    format: Literal["csv", "tsv", "yaml", "yml"] | None = None,
                    force: Annotated[bool, Query(description="accept prices outside the device's plausibility band")] = False,
                    ) -> dict[str, Any]:
    """Import an offers file (needs the token; at most 20 MiB): every row is checked, then all or nothing.
    The answer's `import_id` is what `POST /api/imports/{import_id}/rollback` takes."""
    data = await file.read(UPLOAD_LIMIT + 1)
    if len(data) > UPLOAD_LIMIT:
        raise InputError("file", Message("err.larger_than_mib", v=UPLOAD_LIMIT // 2**20))
    import anyio

    store = store_of(request)
    return dict(await anyio.to_thread.run_sync(
        lambda: store.import_offers_bytes(data, file.filename or "upload", fmt=format, via="api", force=force)))


@router.post("/imports/{import_id}/rollback", dependencies=[Token], response_model=RollbackJson)
def rollback_ep(request: Request, import_id: Annotated[int, Path(ge=1, le=2**31 - 1)]) -> dict[str, Any]:
    """Remove exactly the prices one import added (needs the token), as `suanli offers rollback` does: the rows
    stay in the history marked rolled back, and the import records when and how."""
    return dict(store_of(request).rollback_import(import_id, via="api"))


@router.post("/offers/{offer_id}/prices", dependencies=[Token], response_model=ImportResultJson, response_model_exclude_unset=True)
def add_price_ep(request: Request, offer_id: _OFFER_ID, body: PriceBody) -> dict[str, Any]:
    """A new price for an existing offer (needs the token). The date may not be in the future."""
    return dict(store_of(request).add_price(offer_id, body.price_cny, body.date, body.source,
                                            price_cny_max=body.price_cny_max, note=body.note, via="api"))
