"""The message catalog over HTTP, and the request's language, for the API and the page.

- `request_lang`: a FastAPI dependency — `?lang=zh|en` wins, else the best of `Accept-Language`, else en.
  Routers take `lang: Lang = Depends(request_lang)` and render `Message`s with `render(m, lang, "api")`.
- `request_surface`: a FastAPI dependency — `?surface=web` (the page's own requests) names inputs in sentences by the
  page's form labels (“输出 token”); else the API's JSON field names (`output`). One message, its field parameter
  rendered per interface (`i18n.field_name`).
- `router`: `GET /api/messages?lang=zh` returns the whole catalog of one language (the page's labels, units,
  vendor names, memory legend keys, field names, and the planner's sentences) — one catalog for CLI, API and page.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Header, Query, Request, Response

from suanli.i18n import Lang, Surface, lang_from_accept_language, messages, normalize_lang

__all__ = ["request_lang", "request_surface", "router", "stack_names"]


def request_lang(
    lang: Annotated[str | None, Query(description="zh or en; overrides Accept-Language")] = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> Lang:
    if lang:
        return normalize_lang(lang)
    return lang_from_accept_language(accept_language)


def request_surface(
    surface: Annotated[Literal["api", "web"], Query(
        description="how sentences name the request's fields: api (default) by their JSON names (`output`), web by "
                    "the page's form labels in the answer's language (“Output tokens”); the page sends web")] = "api",
) -> Surface:
    return surface


router = APIRouter(tags=["meta"])


@router.get("/api/messages")
def get_messages(request: Request, response: Response, lang: Annotated[Lang, Depends(request_lang)]) -> dict[str, str]:
    """Every user-facing message in one language (`?lang=zh|en` or Accept-Language), by message id; and the
    catalog's software stacks by name (`web.stack.<id>`: 华为昇腾 CANN, its `name_zh`, on the Chinese page)."""
    response.headers["Content-Language"] = "zh-CN" if lang == "zh" else "en"
    response.headers["Vary"] = "Accept-Language"
    return {**messages(lang), **stack_names(request, lang)}


def stack_names(request: Request, lang: Lang) -> dict[str, str]:
    from suanli.api.deps import catalog

    return {f"web.stack.{s.id}": (s.name_zh if lang == "zh" and s.name_zh else s.name) for s in catalog(request).stacks}
