"""The first thing every request meets (a pure ASGI middleware, before routing, parsing or spooling):

1. the Host header against `--allowed-hosts` (when given);
2. the API token on every write route — a token-less write is refused before its body is read, so it gets
   401/403, never validation details, and a 300 MB upload without a token is never spooled;
3. the body size per route (Content-Length first, then the bytes actually received): 413 past the limit;
4. security headers on every answer (CSP without inline script on the page and /docs);
5. HEAD answered as GET without the body (RFC 9110 §9.3.2), on every GET route.
"""

from __future__ import annotations

import hmac
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["JSON_BODY_LIMIT", "SECURITY_HEADERS", "UPLOAD_LIMIT", "Guard", "WRITE_ROUTES", "body_limit", "is_write"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

JSON_BODY_LIMIT = 64 * 2**10  # a plan request is ~300 bytes; 64 KiB leaves room for every bounded list
BENCH_BODY_LIMIT = 2 * 2**20  # a benchmark result with its raw samples
UPLOAD_LIMIT = 20 * 2**20  # an offers file (CSV/YAML), 100,000 rows at most
# every route that depends on the token (tests/unit/api/test_review_api.py derives the list from the routes)
WRITE_ROUTES = (
    ("POST", re.compile(r"^/api/offers/import/?$")),
    ("POST", re.compile(r"^/api/offers/[^/]+/prices/?$")),
    ("POST", re.compile(r"^/api/imports/[^/]+/rollback/?$")),
    ("POST", re.compile(r"^/api/bench-results/?$")),
    ("POST", re.compile(r"^/api/plans/?$")),
)
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
     b"connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
     b"form-action 'self'"),
)


def is_write(method: str, path: str) -> bool:
    return any(method == m and rx.match(path) for m, rx in WRITE_ROUTES)


def body_limit(method: str, path: str) -> int:
    if path.startswith("/api/offers/import"):
        return UPLOAD_LIMIT
    if path.startswith("/api/bench-results"):
        return BENCH_BODY_LIMIT
    return JSON_BODY_LIMIT


TOKEN_MESSAGES = {403: "error.api.writes_disabled", 401: "error.api.token"}  # the catalog's ids of the refusals


def token_refusal(api_token: str | None, authorization: str | None, x_api_token: str | None) -> tuple[int, str] | None:
    """None when the token is right; else (status, message in English; `TOKEN_MESSAGES[status]` is its id)."""
    if not api_token:
        return 403, "writes are disabled: the server has no SUANLI_API_TOKEN configured"
    given = x_api_token or (authorization[7:] if authorization and authorization.lower().startswith("bearer ") else None)
    if not given or not hmac.compare_digest(given.encode("utf-8", "replace"), api_token.encode("utf-8")):
        return 401, "missing or wrong API token (send 'Authorization: Bearer TOKEN' or 'X-API-Token')"
    return None


def _without_body(send: Send) -> Send:
    """`send` with every body chunk emptied (a HEAD answer: GET's status and headers, Content-Length included)."""

    async def head(message: Message) -> None:
        await send({**message, "body": b""} if message["type"] == "http.response.body" else message)

    return head


class Guard:
    def __init__(self, app: Callable[..., Awaitable[None]], api_token: str | None,
                 allowed_hosts: tuple[str, ...] | None = None) -> None:
        self.app, self.api_token = app, api_token
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts) if allowed_hosts else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("method") == "HEAD":
            # HEAD is GET without the content (RFC 9110 §9.3.2; general-purpose servers must support it, §9.1):
            # FastAPI's routes take GET only (405 before), so answer as GET with the headers and no body bytes
            scope, send = {**scope, "method": "GET"}, _without_body(send)

        async def send_secure(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((k, v) for k, v in SECURITY_HEADERS if k not in have)]
            await send(message)

        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        method, path = scope.get("method", "GET"), scope.get("path", "/")
        lang = _lang(scope, headers)
        if self.allowed_hosts is not None:
            host = headers.get("host", "").rsplit(":", 1)[0].strip("[]").lower()
            if not any(host == h or (h.startswith("*.") and host.endswith(h[1:])) or h == "*" for h in self.allowed_hosts):
                await _reply(send_secure, 400, f"host {host!r} is not allowed (--allowed-hosts)", "host", lang,
                             ("error.api.host", {"host": repr(host)}))
                return
        if is_write(method, path):
            refusal = token_refusal(self.api_token, headers.get("authorization"), headers.get("x-api-token"))
            if refusal is not None:
                await _reply(send_secure, refusal[0], refusal[1], "token", lang, (TOKEN_MESSAGES[refusal[0]], {}))
                return
        limit = body_limit(method, path)
        declared = headers.get("content-length")
        if declared is not None:
            try:
                n = int(declared)
            except ValueError:
                await _reply(send_secure, 400, "content-length is not a number", "content-length", lang,
                             ("error.api.content_length", {}))
                return
            if n > limit:
                await _reply(send_secure, 413, f"body of {n:,} bytes is larger than {limit:,} bytes allowed on {path}", "body",
                             lang, ("error.api.body_of", {"n": n, "limit": limit, "path": path}))
                return
        if method in ("POST", "PUT", "PATCH"):
            # read the body (bounded) before the app sees it: a chunked body past the limit is refused too
            chunks: list[bytes] = []
            size = 0
            more = True
            while more:
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    return
                chunk = msg.get("body", b"")
                size += len(chunk)
                if size > limit:
                    await _reply(send_secure, 413, f"body larger than {limit:,} bytes allowed on {path}", "body",
                                 lang, ("error.api.body", {"limit": limit, "path": path}))
                    return
                chunks.append(chunk)
                more = bool(msg.get("more_body"))
            body = b"".join(chunks)
            sent = False

            async def replay() -> Message:
                nonlocal sent
                if not sent:
                    sent = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            await self.app(scope, replay, send_secure)
            return
        await self.app(scope, receive, send_secure)


def _lang(scope: Scope, headers: dict[str, str]) -> str:
    """The request's language as the routers take it (`?lang=`, else Accept-Language), read before routing."""
    from urllib.parse import parse_qs

    from suanli.i18n import lang_from_accept_language, normalize_lang

    q = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("lang")
    return normalize_lang(q[0]) if q and q[0] else lang_from_accept_language(headers.get("accept-language"))


async def _reply(send: Send, status: int, message: str, field: str | None, lang: str = "en",
                 said: tuple[str, dict[str, Any]] | None = None) -> None:
    """The error shape of every answer (`api.errors.ErrorBody`); `said`: the message's id and parameters, which give
    `error` in the request's language (English stays `message`) and `error_i18n`."""
    out: dict[str, Any] = {}
    if said is not None:
        from suanli.i18n import Message as Said
        from suanli.i18n import render

        if lang != "en":  # English: the line as it always was
            message = render(Said(said[0], said[1]), lang, "api")
        out["error_i18n"] = {"id": said[0], "params": said[1]}  # in every language, as api.errors.error_json
    from suanli.api.errors import error_body  # the routes' one shape: error_i18n always, each item's `in`

    where = "header" if field in ("token", "host", "content-length") else "body" if field == "body" else None
    body = json.dumps(error_body(message, field, i18n=out.get("error_i18n"), where=where),
                      ensure_ascii=False).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
