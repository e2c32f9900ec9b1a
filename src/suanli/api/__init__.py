"""The REST API (FastAPI): `create_app(settings)` builds it; `suanli serve` runs it with uvicorn."""

from __future__ import annotations

from suanli.api.app import Settings, create_app

__all__ = ["Settings", "create_app"]
