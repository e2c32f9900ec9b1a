"""`suanli serve`: the REST API (OpenAPI at /docs) and the web page at / in one process, on SQLite by default."""

from __future__ import annotations

from typing import Annotated

import typer

from suanli.cli.output import console
from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve_cmd(
        host: Annotated[str, typer.Option(help="address to listen on (127.0.0.1: this machine only)")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port")] = 8000,
        workers: Annotated[int, typer.Option(help="uvicorn worker processes")] = 1,
        log_level: Annotated[str, typer.Option(help="uvicorn log level")] = "info",
        allowed_hosts: Annotated[str | None, typer.Option(help="comma-separated Host headers to accept, e.g. "
                                                          "'suanli.example.com,127.0.0.1' (default: any)")] = None,
        budget_s: Annotated[float, typer.Option(help="time budget of one plan/estimate request, s (503 past it)")] = 10.0,
    ) -> None:
        """Serve the API and the web page. SUANLI_DATABASE_URL picks the database (default: SQLite in the data
        directory); SUANLI_API_TOKEN enables the import and update endpoints."""
        if not 0 < port < 65536:
            raise InputError("port", Message("err.is_not_a_tcp_port", port=port))
        if workers < 1:
            raise InputError("workers", Message("err.must_be_at_least"))
        try:
            import uvicorn
        except ImportError:
            raise InputError("serve", Message("err.needs_the_service_extra_pip_install")) from None
        from suanli.api import Settings, create_app
        from suanli.store.settings import database_url, redact_url

        import math
        import os

        if not (math.isfinite(budget_s) and 0 < budget_s <= 3600):
            raise InputError("budget-s", Message("err.must_be_in_seconds_got", budget_s=budget_s))
        hosts = tuple(h.strip() for h in allowed_hosts.split(",") if h.strip()) if allowed_hosts else None
        if hosts:
            os.environ["SUANLI_ALLOWED_HOSTS"] = ",".join(hosts)  # the workers build their app from the environment
        os.environ["SUANLI_COMPUTE_BUDGET_S"] = str(budget_s)
        settings = Settings.from_env()
        console.print(f"suanli: http://{host}:{port}/ (API docs at /docs) · database {redact_url(settings.database_url or database_url())}"
                      f"{' · hosts ' + ','.join(hosts) if hosts else ''}"
                      f" · writes {'enabled' if settings.api_token else 'disabled (no SUANLI_API_TOKEN)'}", highlight=False)
        if workers > 1:
            uvicorn.run("suanli.api.asgi:app", host=host, port=port, workers=workers, log_level=log_level)
        else:
            uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level)
