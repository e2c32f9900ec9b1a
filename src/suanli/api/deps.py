"""What the routers share: the store, the settings, the catalog of this request, the token check and the
bounded runner that gives the planner (and the other compute endpoints) a per-request time budget."""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio
from fastapi import Depends, Request, Security
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from suanli.api.errors import Refused, route_methods
from suanli.api.guard import TOKEN_MESSAGES, token_refusal
from suanli.catalog.schema import Catalog

__all__ = ["API_TOKEN_HEADER", "BEARER", "PlanCache", "Token", "catalog", "planning_catalog", "run_bounded", "settings_of",
           "store_of", "token_routes"]

T = TypeVar("T")


def store_of(request: Request) -> Any:
    return request.app.state.store


def settings_of(request: Request) -> Any:
    return request.app.state.settings


def catalog(request: Request) -> Catalog:
    """The packaged catalog with the store's current offers (every offer: listings, history, tco), and the
    calibration file's factors as `suanli estimate` applies them (`views.estimates.calibrated`)."""
    from suanli.views.estimates import calibrated

    return calibrated(store_of(request).catalog())


def planning_catalog(request: Request) -> Catalog:
    """The catalog the planner searches: the stored offers less those the planner could never choose
    (`catalog.offers.planning_offers`, the rule the CLI applies too; cached per revision), so plan time does not grow
    with imports; with the calibration file's factors, as `catalog`."""
    from suanli.views.estimates import calibrated

    return calibrated(store_of(request).planning_catalog())


# the token's two headers as OpenAPI security schemes, so /openapi.json says which operations need it (`security`
# on exactly the routes that depend on `Token`) and /docs has an Authorize button; auto_error=False: they only
# describe, the refusal stays `token_refusal`'s (the guard's 401/403 in the one error shape, before the body is read)
BEARER = HTTPBearer(scheme_name="bearerToken", auto_error=False,
                    description="SUANLI_API_TOKEN as `Authorization: Bearer TOKEN` (writes only)")
API_TOKEN_HEADER = APIKeyHeader(name="X-API-Token", scheme_name="apiTokenHeader", auto_error=False,
                                description="SUANLI_API_TOKEN as `X-API-Token: TOKEN`, instead of the bearer header")


def require_token(request: Request, _bearer: Annotated[HTTPAuthorizationCredentials | None, Security(BEARER)] = None,
                  _header: Annotated[str | None, Security(API_TOKEN_HEADER)] = None) -> None:
    """Checked again here (the guard middleware refuses first, before the body is read), on the headers as sent."""
    refusal = token_refusal(settings_of(request).api_token, request.headers.get("authorization"),
                            request.headers.get("x-api-token"))
    if refusal is not None:
        from suanli.i18n import Message

        raise Refused(refusal[0], refusal[1], "token", Message(TOKEN_MESSAGES[refusal[0]]))


Token = Depends(require_token)


def token_routes(app: Any) -> list[tuple[str, str]]:
    """(method, path template) of every route that depends on the token: the writes, which the app's description
    lists and whose OpenAPI operations carry `security`."""
    out = []
    for template, methods, route in route_methods(app):
        stack = list(getattr(getattr(route, "dependant", None), "dependencies", []) or [])
        while stack:
            d = stack.pop()
            if getattr(d, "call", None) is require_token:
                out += [(m, template) for m in sorted(methods)]
                break
            stack.extend(getattr(d, "dependencies", []) or [])
    return sorted(out, key=lambda mt: mt[1])


class PlanCache:
    """Identical plan requests against the same catalog revision on the same date return the stored answer (LRU)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: collections.OrderedDict[tuple[Any, ...], dict[str, Any]] = collections.OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        with self._lock:
            v = self._d.get(key)
            if v is not None:
                self._d.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
            return v

    def put(self, key: tuple[Any, ...], value: dict[str, Any]) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._d[key] = value
            self._d.move_to_end(key)
            while len(self._d) > self.size:
                self._d.popitem(last=False)


async def run_bounded(request: Request, fn: Callable[[], T], what: str = "plan") -> T:
    """Run `fn` in a worker thread within the settings' time budget. At most `compute_slots` such jobs run at
    once; a job still waiting for a slot when its budget is spent never starts, and the client gets 503
    rather than a connection held open while the search runs on."""
    st = settings_of(request)
    slots: threading.BoundedSemaphore = request.app.state.compute_slots
    budget = float(st.compute_budget_s)
    deadline = time.monotonic() + budget
    abandoned = threading.Event()

    def job() -> T:
        if not slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise _Late()
        try:
            if abandoned.is_set():
                raise _Late()
            return fn()
        finally:
            slots.release()

    with anyio.move_on_after(budget):
        try:
            return await anyio.to_thread.run_sync(job, abandon_on_cancel=True)
        except _Late:
            pass
    abandoned.set()
    raise Refused(503, f"{what}: not answered within this server's budget of {budget:g} s per request "
                  "(the server is busy or the request is very large); retry, or narrow it (fewer devices, "
                  "a smaller max_gpus)", None)


class _Late(Exception):
    pass
