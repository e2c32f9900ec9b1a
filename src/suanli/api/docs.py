"""/docs offline: Swagger UI 5 (reads OpenAPI 3.1) from the files the `fastapi-offline` wheel ships, loaded by
an external script so the page's CSP forbids inline script. Nothing is fetched from a CDN."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

__all__ = ["install_docs", "swagger_ui_dir"]

_INIT_JS = """window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis], layout: "BaseLayout", validatorUrl: null});
});
"""

_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><link rel="stylesheet" href="/docs-static/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs-static/favicon.png"></head>
<body><div id="swagger-ui"></div>
<script src="/docs-static/swagger-ui-bundle.js"></script><script src="/docs-init.js"></script></body></html>
"""


def swagger_ui_dir() -> Path:
    return Path(str(resources.files("fastapi_offline") / "static"))


def install_docs(app: FastAPI) -> None:
    app.mount("/docs-static", StaticFiles(directory=swagger_ui_dir()), name="docs-static")
    html = _HTML.format(title=f"{app.title} — docs")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(html)

    @app.get("/docs-init.js", include_in_schema=False)
    def docs_init() -> Response:
        return Response(_INIT_JS, media_type="text/javascript; charset=utf-8")
