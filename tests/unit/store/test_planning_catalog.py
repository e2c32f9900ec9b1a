"""Plan time independent of the number of stored offers (issue 14, finding 2): the planner searches the
stored offers reduced to the cheapest per device, billing unit, cards, minimum rental, region, provider, kind
and scope, cached per catalog revision, and its plans are the same as over every offer."""

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
    strip = lambda r: [{k: v for k, v in p.model_dump().items() if k != "rank"} for p in r.plans]  # noqa: E731
    assert strip(a) == strip(b)
