"""`uvicorn suanli.api.asgi:app`: the app built from the environment (used by `suanli serve --workers N`)."""

from __future__ import annotations

from suanli.api.app import create_app

app = create_app()
