"""Where the store lives: `SUANLI_DATABASE_URL`, else a SQLite file in the data directory.

The data directory is `$SUANLI_HOME` when set, else the platform's user data directory
(`~/.local/share/suanli` on Linux, the same place `suanli.bench.results` keeps its files).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["data_dir", "database_url", "redact_url"]


def data_dir() -> Path:
    home = os.environ.get("SUANLI_HOME")
    if home:
        return Path(home).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("suanli", appauthor=False))


def database_url() -> str:
    """`SUANLI_DATABASE_URL` (e.g. `postgresql+psycopg://user:pw@host/db`), else `sqlite:///<data dir>/suanli.db`."""
    url = os.environ.get("SUANLI_DATABASE_URL")
    if url:
        return url
    return f"sqlite:///{data_dir() / 'suanli.db'}"


def redact_url(url: str) -> str:
    """The URL without its password, for `suanli db info` and logs."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 — an unparsable URL is shown as given minus everything after '@'
        return url.split("@")[-1]
