from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

try:
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app
except ImportError:  # the service extra is not installed: skip this directory
    collect_ignore_glob = ["test_*.py"]

TOKEN = "test-token-123"


@pytest.fixture(scope="module")
def make_client(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., TestClient]:
    def make(token: str | None = TOKEN, raise_server_exceptions: bool = True) -> TestClient:
        db = tmp_path_factory.mktemp("api") / "suanli.db"
        return TestClient(create_app(Settings(database_url=f"sqlite:///{db}", api_token=token)),
                          raise_server_exceptions=raise_server_exceptions)

    return make


@pytest.fixture(scope="module")
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()


def auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def csv_file(tmp_path: Path) -> Callable[[str], tuple[str, bytes]]:
    def make(body: str, name: str = "offers.csv") -> tuple[str, bytes]:
        return name, ("id,provider,device,cards,billing_unit,price_cny,date,source\n" + body).encode()

    return make
