"""One error shape for every non-2xx answer, documented in OpenAPI:
`{"error": one line, "field": name or null, "errors": [{"field", "in", "message", …}], "error_i18n": message or null}`
— the same keys whatever the status, the language or who refused (the guard, a route, request validation).

400 the body is not JSON · 401/403 token · 404 unknown name or route · 405 method · 413 body too large ·
415 a body sent as another media type than JSON (text/plain, a form) · 422 bad input (suanli's InputError,
EstimateError, PlanError and pydantic validation alike) · 500 a bug · 503 the planner's time budget is spent.
Bad input never produces a 500.
"""

from __future__ import annotations

import json
import logging
import math
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from suanli.errors import DataFileError, InputError, NotFoundError, SuanliError, echoed, shown_name
from suanli.i18n import Surface
from suanli.views.shape import MessageJson

__all__ = ["ERROR_RESPONSES", "ErrorBody", "Refused", "SafeJSONResponse", "allowed_methods", "as_field", "error_body",
           "error_json", "field_in", "json_named",
           "finite", "install_handlers", "route_methods"]

log = logging.getLogger("suanli.api")
# a whole-body check's line that names its field first: `concurrent_users: …`, or a dotted path into the body
# (`config.batch: …`, BenchResultBody's strict check; a list index as its number, `results.0.x`)
_NAMED = re.compile(r"^([a-z][a-z0-9_]*(?:\.(?:[a-z][a-z0-9_]*|[0-9]+))*): ")
# pydantic's "not an object" for a whole body: with a Content-Type other than JSON FastAPI hands the raw bytes over
_NOT_AN_OBJECT = ("model_attributes_type", "dict_type", "model_type")
_UNPARSED = "There was an error parsing the body"  # fastapi.routing's 400 for a body it could not decode


class ErrorItem(BaseModel):
    model_config = ConfigDict(extra="allow")

    field: str | None = Field(None, description="the field (dotted path) or null")
    message: str | None = Field(None, description="what is wrong with it")
    suggestions: list[str] | None = Field(None, description="404: the closest known names")
    line: int | None = Field(None, description="offer imports: the file's line (null: the file as a whole)")
    in_: str | None = Field(None, alias="in", description="where the field is: body, query, path or header; null "
                            "when the error names no part of the request (an unknown route)")


class ErrorBody(BaseModel):
    """Every non-2xx answer."""

    error: str = Field(description="one line naming the field and what is allowed")
    field: str | None = Field(None, description="the field at fault, or null")
    errors: list[ErrorItem] = Field(default_factory=list, description="every problem found, at least one "
                                    "{field, message} (404: with suggestions)")
    relax: list[str] | None = Field(None, description="POST /api/plan's 422 when neither the budget nor the "
                                    "deadline can be met: what each needs alone, in the request's language")
    relax_i18n: list[MessageJson] | None = Field(None, description="the same hints as messages")
    error_i18n: MessageJson | None = Field(None, description="always present, in every language: `error` without its "
                                           "field as a catalog message (id, params); null only where the line has "
                                           "none (500). `error` itself is in the request's language (`?lang=` or "
                                           "Accept-Language, English by default)")


_DESCRIPTIONS = {
    400: "the body is not valid JSON, or the Host header is not allowed",
    401: "missing or wrong API token",
    403: "writes are disabled (no SUANLI_API_TOKEN configured)",
    404: "unknown name (with the closest names) or route",
    405: "method not allowed on this route",
    413: "request body larger than this route accepts",
    415: "the body was not sent as JSON: send it with `Content-Type: application/json`",
    422: "invalid input: the field and the allowed values",
    500: "internal error (a bug: please report it)",
    503: "the planner's time budget for one request is spent; retry, or narrow the request",
}
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": d} for code, d in _DESCRIPTIONS.items()
}


def finite(obj: Any) -> Any:
    """JSON has no NaN or Infinity: such numbers become null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    if isinstance(obj, BaseModel):
        return finite(obj.model_dump(mode="json"))
    return obj


class SafeJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return json.dumps(finite(content), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def error_body(message: str, field: str | None = None, errors: list[Any] | None = None,
               i18n: dict[str, Any] | None = None, where: str | None = None) -> dict[str, Any]:
    """The one error shape (`ErrorBody`), also the guard's: `errors` always holds at least one {field, in, message}
    (the error itself when no list was given; `where`: the request part holding the field), and `error_i18n` is
    always there, null where the line has no catalog message — so a client reads every answer the same way."""
    items = [{"field": x.get("field"), "in": x.get("in"), **x} for x in (errors or [])] \
        or [{"field": field, "in": where, "message": message}]
    return {"error": message, "field": field, "errors": items, "error_i18n": i18n}


def error_json(status: int, message: str, field: str | None = None, errors: list[Any] | None = None,
               headers: dict[str, str] | None = None, i18n: dict[str, Any] | None = None,
               where: str | None = None) -> SafeJSONResponse:
    """`error_body` as a response."""
    return SafeJSONResponse(error_body(message, field, errors, i18n, where), status_code=status, headers=headers)


def field_in(request: Request, field: str | None, value: str | None = None) -> str | None:
    """Where a field named by suanli's checks sits in the request: path, query, else the body of a request that
    has one; None when it names nothing the request sent. `value`: what was refused — a path parameter holding it is
    where it sits though the check names it otherwise (GET /api/accelerators/h1: field "gpu", in "path")."""
    if not field:
        return None
    if field in request.path_params or (value is not None and field not in request.query_params
                                        and value in request.path_params.values()):
        return "path"
    if field in request.query_params:
        return "query"
    return "body" if request.method in ("POST", "PUT", "PATCH") else "query"


def request_lang_of(request: Request) -> str:
    """The request's language as the routers take it (`web.messages.request_lang`): `?lang=`, else Accept-Language."""
    from suanli.web.messages import request_lang

    return request_lang(request.query_params.get("lang"), request.headers.get("accept-language"))


def surface_of(request: Request) -> Surface:
    """Who asked (`web.messages.request_surface`): the page (`?surface=web`) names inputs by its form labels, any other
    client gets the JSON field names (`i18n.field_name`)."""
    return "web" if request.query_params.get("surface") == "web" else "api"


def _said(request: Request, e: SuanliError) -> tuple[str, dict[str, Any] | None]:
    """An error's line in the request's language (`errors.error_text`) and its message, where the raise site gave one."""
    from suanli.errors import error_text

    said = error_text(e, request_lang_of(request), surface_of(request))
    field = getattr(e, "field", None)
    if isinstance(e, InputError) and field and said.startswith(f"{field}: "):
        said = _prefixed(request, field, said.removeprefix(f"{field}: "))
    return said, (e.i18n.to_json() if e.i18n is not None else None)


def _prefixed(request: Request, field: str, message: str) -> str:
    """An error's one line, `field: message`: the JSON field for API clients; on the page (`?surface=web`) the form
    label in the page's language (“并发用户数”: …), where the page has that field."""
    if surface_of(request) == "web":
        from suanli.i18n import messages, normalize_lang

        cat = messages(normalize_lang(request_lang_of(request)))  # a form's own label first (`field.tco.hours`)
        route = request.url.path.rstrip("/").rsplit("/", 1)[-1]
        field = cat.get(f"field.{route}.{field}") or cat.get(f"field.{field}", field)
    return f"{field}: {message}"


def _bare(request: Request, e: InputError) -> str:
    """The error's message without its "field: " prefix, for `errors[].message` (which names the field apart, as
    request validation's items do)."""
    if e.i18n is not None:
        from suanli.i18n import render

        return render(e.i18n, request_lang_of(request), surface_of(request))
    return str(e).removeprefix(f"{e.field}: ")


def as_field(e: InputError, field: str) -> InputError:
    """The same error naming the request's own field (`to_gpu`, `device`) where the core named its own (`gpu`)."""
    e.field = field
    text = str(e)
    e.args = (f"{field}: {text.split(': ', 1)[1]}" if ": " in text else text,)
    return e


def json_named(e: InputError) -> InputError:
    """The error naming the API's own field where the core named the CLI's flag: the two differ by a dash in every
    multi-word input (`kv-dtype`, `requests-per-s`, `rent-price`, `to-gpu`), and no JSON field or query parameter has
    one, so each is its underscore form (`kv_dtype`). The one rule for every refusal the handlers below answer; the
    CLI names the flag from either (`cli.main._flag_of`)."""
    field = getattr(e, "field", None)
    return as_field(e, field.replace("-", "_")) if isinstance(field, str) and "-" in field else e


def route_methods(app: Any) -> list[tuple[str, set[str], Any]]:
    """(path template, methods, route) of every route, included routers flattened: FastAPI 0.165's
    `include_router` keeps `_IncludedRouter` entries (no `.path`/`.methods`) in `app.router.routes`;
    `fastapi.routing.iter_route_contexts` walks them (older FastAPI: the routes themselves)."""
    try:
        from fastapi.routing import iter_route_contexts  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # FastAPI before the included-router contexts: the routes are flat already
        views: list[Any] = list(app.router.routes)
    else:
        views = list(iter_route_contexts(app.router.routes))
    out = []
    for r in views:
        path, methods = getattr(r, "path", None), getattr(r, "methods", None)
        if isinstance(path, str) and methods:
            out.append((path, {str(m) for m in methods}, getattr(r, "original_route", r)))
    return out


def allowed_methods(request: Request, starlette_allow: str | None) -> list[str]:
    """Every method some route takes on this path: the Allow header Starlette put on the 405 (the first route
    that matched the path) joined with the methods of every other route on it (GET and POST /api/plans are two
    routes)."""
    from starlette.routing import compile_path

    allowed = {m.strip().upper() for m in (starlette_allow or "").split(",") if m.strip()}
    path = request.scope.get("path", request.url.path)
    for template, methods, _ in route_methods(request.app):
        if compile_path(template)[0].match(path):
            allowed |= methods
    if "GET" in allowed:  # the guard answers HEAD wherever GET is (api.guard, RFC 9110 §9.3.2)
        allowed.add("HEAD")
    return sorted(allowed)


class PlanRefused(Exception):
    """No plan for the request, none even with one constraint relaxed: 422 with the relax hints (`relax`, in the
    request's language and naming the page's form fields; `relax_i18n`, the messages)."""

    def __init__(self, message: str, relax: list[str], relax_i18n: list[dict[str, Any]]) -> None:
        self.message, self.relax, self.relax_i18n = message, relax, relax_i18n
        super().__init__(message)


class Refused(Exception):
    """A refusal with its status (401/403 token, 503 busy)."""

    def __init__(self, status: int, message: str, field: str | None = None, i18n: Any = None) -> None:
        self.status, self.message, self.field, self.i18n = status, message, field, i18n
        super().__init__(message)


async def _unknown_name(request: Request, e: RequestValidationError) -> NotFoundError | None:
    """POST /api/plan, /api/plans, /api/compare or /api/estimate whose body pydantic refused: its unknown model or
    device name, if any (`routers.compute.names_first`, in a worker thread: the catalog may load), so that is said
    first, as the CLI says it."""
    import anyio

    from suanli.api.deps import catalog, planning_catalog
    from suanli.api.routers.compute import compare_ep, estimate_ep, names_first, plan_ep
    from suanli.api.routers.plans import save_plan_ep

    endpoint = request.scope.get("endpoint")
    planning = endpoint in (plan_ep, save_plan_ep)  # each endpoint's own catalog and device field
    if not planning and endpoint not in (compare_ep, estimate_ep):
        return None
    devices = "gpu" if endpoint is estimate_ep else "devices"
    refused = {tuple(x["loc"][1:]) for x in e.errors() if len(x.get("loc", ())) > 1 and x["loc"][0] == "body"}
    try:
        await anyio.to_thread.run_sync(lambda: names_first((planning_catalog if planning else catalog)(request),
                                                           e.body, refused, devices))
    except NotFoundError as unknown:
        return unknown
    return None


def install_handlers(app: FastAPI) -> None:
    from suanli.store.importer import OfferImportError

    @app.exception_handler(OfferImportError)
    async def _import_error(request: Request, e: OfferImportError) -> Response:
        text, i18n = _said(request, e)  # the line and each row's problem in the request's language
        lang = request_lang_of(request)
        return error_json(422, text, e.field, [{"in": "body", **x.as_dict(lang)} for x in e.errors], i18n=i18n)

    @app.exception_handler(NotFoundError)
    async def _not_found(request: Request, e: NotFoundError) -> Response:
        json_named(e)
        text, i18n = _said(request, e)
        return error_json(404, text, e.field, [{"field": e.field, "in": field_in(request, e.field, e.name),
                                                "message": _bare(request, e), "suggestions": e.suggestions}], i18n=i18n)

    @app.exception_handler(InputError)
    async def _input(request: Request, e: InputError) -> Response:
        json_named(e)  # the request's field (`kv_dtype`), not the CLI's flag (`kv-dtype`)
        text, i18n = _said(request, e)
        return error_json(422, text, e.field, [{"field": e.field, "in": field_in(request, e.field),
                                                "message": _bare(request, e)}], i18n=i18n)

    @app.exception_handler(DataFileError)
    async def _data(request: Request, e: DataFileError) -> Response:
        # a packaged data file does not load: a fault of suanli's data, not of the request (an offers upload's
        # faults are OfferImportError, 422 above); the file and row go to the log, not to the client
        log.error("data file error on %s %s: %s", request.method, request.url.path, e)
        return error_json(500, "internal error: suanli's packaged data did not load; this is a bug in suanli, "
                          "please report it")

    @app.exception_handler(SuanliError)
    async def _suanli(request: Request, e: SuanliError) -> Response:
        text, i18n = _said(request, e)
        return error_json(422, text, i18n=i18n)

    @app.exception_handler(PlanRefused)
    async def _plan_refused(_: Request, e: PlanRefused) -> Response:
        return SafeJSONResponse({**error_body(e.message), "relax": e.relax, "relax_i18n": e.relax_i18n}, status_code=422)

    @app.exception_handler(Refused)
    async def _refused(request: Request, e: Refused) -> Response:
        lang = request_lang_of(request)
        where = "header" if e.field == "token" else field_in(request, e.field)
        if e.i18n is None or lang == "en":  # English: the refusal's line as it always was; its message all the same
            return error_json(e.status, e.message, e.field, i18n=e.i18n.to_json() if e.i18n is not None else None,
                              where=where)
        from suanli.i18n import render

        return error_json(e.status, render(e.i18n, lang, surface_of(request)), e.field, i18n=e.i18n.to_json(),
                          where=where)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, e: RequestValidationError) -> Response:
        from suanli.errors import validation_message
        from suanli.i18n import Message, render, t

        lang = request_lang_of(request)
        if any(x.get("type") in _NOT_AN_OBJECT and tuple(x.get("loc", ())) == ("body",)
               and isinstance(x.get("input"), bytes | bytearray) for x in e.errors()):
            # a body FastAPI did not read as JSON (its Content-Type is another media type: text/plain, a form): 415
            # saying how to send it, never its raw bytes echoed (`b'model=…'`); RFC 9110 §15.5.16
            media = request.headers.get("content-type", "").split(";", 1)[0].strip()
            said_media = Message("error.v.json_media", media=echoed(media)) if media else Message("error.v.json_media_none")
            bare = render(said_media, lang, surface_of(request))
            return error_json(415, "body: " + bare, "body", [{"field": "body", "in": "body", "message": bare}],
                              i18n=said_media.to_json())
        if any(x.get("type") == "missing" and tuple(x.get("loc", ())) == ("body",) for x in e.errors()):
            # no body at all (an empty POST): one line naming the body and what to send, not "Field required" naming
            # no field (buyer review H, 2026-12-02)
            said_empty = Message("error.v.body_empty")
            bare = render(said_empty, lang, surface_of(request))
            return error_json(422, "body: " + bare, "body", [{"field": "body", "in": "body", "message": bare}],
                              i18n=said_empty.to_json())
        unknown = await _unknown_name(request, e)
        if unknown is not None:  # an unknown model or device said first, before the body's other refusals
            return await _not_found(request, unknown)
        errs = []
        said_first: dict[str, Any] | None = None
        status = 422
        for x in e.errors():
            if x.get("type") == "json_invalid":
                status = 400
            loc = [str(p) for p in x.get("loc", ()) if not str(p).startswith("function-")]
            field = ".".join(loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc) or None
            message = str(x.get("msg", "")).removeprefix("Value error, ")
            if x.get("type") == "json_invalid":  # loc is ("body", character offset): the field is the body
                at = loc[1] if len(loc) > 1 and loc[1].isdigit() else None
                field, message = "body", message + (f" at character {at}" if at is not None else "")
            named = _NAMED.match(message) if field is None else None
            if named:  # a whole-body check that names its field ("concurrent_users: needs tpot_s"): that field
                field, message = named.group(1), message[named.end():]
            elif field is None:  # a whole-body check about one field that its sentence does not start with
                # ("gpus (1) must be a multiple of tp × pp …"): the field it names (`Invalid.field`), as the CLI's flag
                field = getattr((x.get("ctx") or {}).get("error"), "field", None)
            own = getattr((x.get("ctx") or {}).get("error"), "i18n", None) is not None  # a validator's message
            said = validation_message(x)  # else pydantic's generic shape (English keeps pydantic's own sentence);
            # what was sent echoed as `errors.echoed` quotes it (at most 80 characters, JSON), never for a missing field
            generic = said.id.startswith("error.v.")  # a validator's generic shape (a nested field's wrong type):
            if (named and own and not (generic and lang == "en")) or (lang != "en" and said.id != "error.v.other"):
                message = render(said, lang, surface_of(request))  # English keeps its own words as the others do
            if said_first is None:  # error_i18n: the first error's message (English keeps pydantic's own sentence);
                # a long input is not echoed back (a 60 KB name: its first 80 characters)
                said_first = {k: ({n: (shown_name(v) if isinstance(v, str) else v) for n, v in v.items()}
                                  if k == "params" else v)
                              for k, v in (said if said.id != "error.v.other" or lang != "en"
                                           else Message("error.v.other", msg=message)).to_json().items()}
            errs.append({"field": field, "in": loc[0] if loc else None, "message": message})
        first = errs[0] if errs else {"field": None, "message": "invalid request"}
        if status == 400:
            said_json = Message("error.v.json").to_json()
            if lang != "en":
                return error_json(400, "body: " + t("error.v.json", lang), "body", errs, i18n=said_json)
            return error_json(400, "body: not valid JSON (" + str(first["message"]) + ")", "body", errs, i18n=said_json)
        msg = _prefixed(request, first["field"], str(first["message"])) if first["field"] else str(first["message"])
        return error_json(status, msg, first["field"], errs, i18n=said_first)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, e: StarletteHTTPException) -> Response:
        from suanli.i18n import Message, render

        lang = request_lang_of(request)
        if e.status_code == 404:
            said = Message("error.http.no_route", path=request.url.path, openapi="/openapi.json", docs="/docs")
            return error_json(404, render(said, lang, surface_of(request)), None, i18n=said.to_json())
        elif e.status_code == 405:
            allow = allowed_methods(request, (e.headers or {}).get("Allow"))
            said = Message("error.http.method", method=request.method, path=request.url.path, allowed=", ".join(allow))
            return error_json(405, render(said, lang, surface_of(request)), "method", headers={"Allow": ", ".join(allow)},
                              i18n=said.to_json())
        elif e.status_code == 400 and e.detail == _UNPARSED:
            # FastAPI's line for a body json.loads could not even start on (bytes that are not UTF-8: a client
            # sending GBK; nesting past the recursion limit), in English, naming no field: the body, in the request's
            # language, and why (the cause FastAPI raised it from)
            said = Message("error.v.body_not_utf8" if isinstance(e.__cause__, UnicodeDecodeError)
                           else "error.v.body_unreadable")
            bare = render(said, lang, surface_of(request))
            return error_json(400, "body: " + bare, "body", [{"field": "body", "in": "body", "message": bare}],
                              i18n=said.to_json())
        else:
            msg = str(e.detail)
        return error_json(e.status_code, msg, None, headers=getattr(e, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, e: Exception) -> Response:
        log.exception("internal error on %s %s", request.method, request.url.path)
        return error_json(500, "internal error: this is a bug in suanli, please report it "
                          f"({type(e).__name__} on {request.method} {request.url.path})")
