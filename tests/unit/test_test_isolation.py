"""Code review: golden and unit tests read the user's own database (`make test` used ~/.local/share/suanli; only
.ci/run set a temporary SUANLI_HOME). tests/conftest.py now gives every session its own data directory."""

from __future__ import annotations

import os
from pathlib import Path


def test_the_tests_never_read_the_users_data_directory() -> None:
    from platformdirs import user_data_dir

    from suanli.store.settings import data_dir

    home = os.environ.get("SUANLI_HOME")
    assert home and Path(home).name.startswith("suanli-home")  # the session's temporary directory
    assert data_dir() == Path(home) != Path(user_data_dir("suanli", appauthor=False))
    assert "SUANLI_DATABASE_URL" not in os.environ
