"""Plan time independent of the number of stored offers (issue 14, finding 2): the planner searches the
stored offers less those it could never choose (`catalog.offers.planning_offers`: of rows alike in everything it
reads, one goes only where another is at least as fresh and cheaper), cached per catalog revision, and its plans are
the same as over every offer; the CLI searches the same, so both choose the same offer."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from suanli.catalog import lookup  # noqa: E402
from suanli.plan.request import make_request  # noqa: E402
from suanli.plan.search import plan  # noqa: E402
from suanli.store import open_store  # noqa: E402


def test_many_imported_offers_do_not_change_plans_or_grow_the_search(tmp_path: Path) -> None:
    import inspect

    st = open_store(f"sqlite:///{tmp_path / 's.db'}")
    rows = ["id,provider,device,cards,billing_unit,price_cny,date,source,region"]
    for i in range(3000):  # three providers repeating one shape at many prices (all within the plausible band)
        rows.append(f"bulk-{i},Bulk{i % 3},rtx-4090,1,hour,{1.2 + (i % 500) / 100:.2f},2026-01-01,bulk,cn")
    force = {"force": True} if "force" in inspect.signature(st.import_offers_bytes).parameters else {}
    st.import_offers_bytes("\n".join(rows).encode(), "bulk.csv", **force)
    full, reduced = st.catalog(), st.planning_catalog()
    n_full = sum(o.device == "rtx-4090" for o in full.offers)
    n_reduced = sum(o.device == "rtx-4090" for o in reduced.offers)
    assert n_full >= 3000 and n_reduced <= n_full - 2990
    assert st.planning_catalog() is reduced  # cached per revision
    req = make_request(model="qwen2.5-7b", task="lora", tokens=1e8, devices=("rtx-4090", "a100-80g"), region="any")
    m = lookup.model(full, "qwen2.5-7b")
    a, b = plan(full, m, req), plan(reduced, m, req)
    # the rows' reasons count the offers the search priced ("N offers price it"), which the reduced catalog prunes
    # by design; every other field, the chosen offer included, is the same
    strip = lambda r: [{k: v for k, v in p.model_dump().items() if k not in ("rank", "reason", "reason_i18n")}  # noqa: E731
                       for p in r.plans]
    assert strip(a) == strip(b) and [p.offer for p in a.plans] == [p.offer for p in b.plans]


def test_cli_and_api_choose_the_same_offer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Code review: the API's reduced catalog kept one row per shape whatever its date, so a stale ¥0.50 row hid
    two fresh ones that the CLI (every row) chose from. Both now search `catalog.offers.planning_offers`."""
    import json
    import os
    import subprocess
    import sys

    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    env = {**os.environ, "SUANLI_HOME": str(tmp_path), "SUANLI_TODAY": "2026-12-01"}
    env.pop("SUANLI_DATABASE_URL", None)
    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    f = tmp_path / "offers.csv"
    f.write_text("id,provider,device,cards,billing_unit,price_cny,date,source,source_title\n"
                 "t-a,TestCloud,rtx-4090,1,hour,1.90,2026-11-20,t-src,Test list\n"
                 "t-b,TestCloud,rtx-4090,1,hour,1.20,2026-11-20,t-src,Test list\n"
                 "t-c,TestCloud,rtx-4090,1,hour,0.50,2023-01-10,t-old,Old list\n", encoding="utf-8")

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        r = subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        return r

    cli("offers", "import", str(f))
    args = {"model": "qwen2.5-7b", "task": "lora", "tokens": 1e7, "gpus": 1, "devices": ["rtx-4090"]}
    mine = json.loads(cli("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "1e7", "--gpus", "1",
                          "--gpu", "rtx-4090", "--json").stdout)
    client = TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'suanli.db'}")))
    r = client.post("/api/plan", json=args)
    assert r.status_code == 200, r.text
    api = r.json()
    assert mine["plans"][0]["offer"] == api["plans"][0]["offer"] == "t-b"  # the cheapest fresh price
    assert mine["plans"][0]["cost_cny"] == pytest.approx(api["plans"][0]["cost_cny"])


def test_a_stale_row_never_hides_a_fresh_one() -> None:
    """`planning_offers` keeps every row the planner could choose on some day: a row goes only where another of its
    shape is at least as fresh and cheaper; a cheaper but older row stays beside the fresher one."""
    from suanli.catalog.load import packaged_catalog
    from suanli.catalog.offers import planning_offers
    from suanli.catalog.schema import Offer

    base = {"provider": "T", "device": "rtx-4090", "cards": 1, "billing_unit": "hour", "source": "t"}
    rows = [Offer.model_validate({**base, "id": i, "price_cny": {"value": p, "source": "t"}, "date": d}) for i, p, d in (
        ("a", 1.9, "2026-11-20"), ("b", 1.2, "2026-11-20"), ("c", 0.5, "2023-01-10"), ("d", 2.0, "2022-01-01"),
        ("e", 1.2, "2026-11-20"))]
    other = Offer.model_validate({**base, "id": "f", "price_cny": {"value": 3.0, "source": "t"}, "date": "2026-11-20", "max_cards_per_order": 8})
    cat = packaged_catalog().model_copy(update={"offers": (*rows, other)})
    assert [o.id for o in planning_offers(cat).offers] == ["b", "c", "f"]
