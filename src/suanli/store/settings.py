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


_SECRET_PARAMS = ("password", "passwd", "pwd", "pass", "secret", "token", "key", "sslpassword", "credential",
                  "auth")


def _secret_param(name: str) -> bool:
    n = name.lower()
    return any(w in n for w in _SECRET_PARAMS) and n not in ("sslkey_file",)


def redact_url(url: str, hide_path: bool = False) -> str:
    """The URL without secrets, for `suanli db info`, the `serve` banner, /api/info and logs: the user-info
    password and every query parameter whose name says password, secret, token or key are replaced by ***
    (`postgresql://u:pw@h/db` and `postgresql://u@h/db?password=pw` alike). `hide_path`: a SQLite file is
    shown by its name only (no host directory)."""
    from urllib.parse import parse_qsl, quote, urlencode, urlsplit

    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            userinfo, hostport = netloc.rsplit("@", 1)
            user = userinfo.split(":", 1)[0]
            netloc = f"{user}:***@{hostport}" if ":" in userinfo else f"{user}@{hostport}"
        query = urlencode([(k, "***" if _secret_param(k) else v) for k, v in parse_qsl(parts.query, keep_blank_values=True)],
                          safe="*/:")
        path = parts.path
        if hide_path and parts.scheme.startswith("sqlite") and path not in ("", "/", "/:memory:"):
            path = "/…/" + quote(path.rstrip("/").rsplit("/", 1)[-1])
        return f"{parts.scheme}://{netloc}{path}" + (f"?{query}" if query else "")
    except ValueError:  # unparsable: show only the scheme
        return url.split(":", 1)[0] + "://***"
