"""Storage tests. tests/integration/test_postgres.py runs these same functions against a real PostgreSQL
by overriding the `store_url` fixture; here they run on a SQLite file in a tmp dir."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")

from suanli.catalog.load import packaged_catalog  # noqa: E402
from suanli.store import OfferImportError, Store, open_store  # noqa: E402

HEADER = "id,provider,device,cards,billing_unit,price_cny,date,source,source_title\n"


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'suanli.db'}"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _counts(st: Store) -> dict[str, Any]:
    return st.info()["counts"]


def test_open_migrates_seeds_once(store_url: str) -> None:
    st = open_store(store_url)
    info = st.info()
    assert info["revision"] == info["head"] is not None
    assert len(info["catalog_versions"]) == 1
    assert info["catalog_versions"][0]["data_sha256"] == info["packaged_catalog_sha256"]
    n = len(packaged_catalog().offers)
    assert info["counts"]["offers"] == n and info["counts"]["price_history"] == n
    again = open_store(store_url)
    assert again.info()["counts"] == info["counts"] and len(again.info()["catalog_versions"]) == 1
    assert sorted(st.catalog().offers, key=lambda o: o.id) == sorted(packaged_catalog().offers, key=lambda o: o.id)


def test_models_match_migrations(store_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from suanli.store.models import Base

    st = open_store(store_url)
    with st.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_new_catalog_version_keeps_history(store_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    st = open_store(store_url)
    before = _counts(st)
    import suanli.store.db as db

    monkeypatch.setattr(db, "catalog_data_sha256", lambda *a: "f" * 64)
    st2 = open_store(store_url)
    assert len(st2.info()["catalog_versions"]) == 2
    assert _counts(st2)["price_history"] == before["price_history"]  # unchanged prices are not duplicated


def test_import_csv_twice_changes_nothing(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    f = _write(tmp_path / "offers.csv", HEADER + "acme-4090,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme-2026,Acme list\n"
               "acme-h100x8,Acme,H100 SXM,8,hour,180,2026-05-01,acme-2026,\n")
    r1 = st.import_offers(f)
    assert (r1["rows"], r1["new_prices"], r1["new_offers"], r1["new_sources"]) == (2, 2, 2, 1)
    snap = _counts(st)
    r2 = st.import_offers(f)
    assert (r2["new_prices"], r2["unchanged"], r2["import_id"]) == (0, 2, None)
    assert _counts(st) == snap
    offers = {o.id: o for o in st.catalog().offers}
    assert offers["acme-h100x8"].device == "h100-sxm"  # alias resolved to the catalog id
    assert offers["acme-4090"].price_cny.value == 1.99 and offers["acme-4090"].price_cny.chosen.source == "acme-2026"
    src = st.catalog().sources["acme-2026"]
    assert src.title == "Acme list" and src.kind == "price-list"


def test_import_never_overwrites_history(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    old = _write(tmp_path / "may.csv", HEADER + "acme-4090,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme-may,\n")
    new = _write(tmp_path / "june.csv", HEADER + "acme-4090,Acme,rtx-4090,1,hour,1.49,2026-06-01,acme-june,\n")
    st.import_offers(old)
    st.import_offers(new)
    st.import_offers(old)  # an older file again: nothing changes, the newer price stays current
    hist = st.price_history(offer_id="acme-4090")
    assert [(h["date"], h["price_cny"], h["source"]) for h in hist] == [
        ("2026-05-01", 1.99, "acme-may"), ("2026-06-01", 1.49, "acme-june")]
    assert {o.id: o for o in st.catalog().offers}["acme-4090"].price_cny.value == 1.49
    r = st.add_price("acme-4090", 1.29, "2026-07-01", "acme-july")
    assert r["new_prices"] == 1
    assert len(st.price_history(offer_id="acme-4090")) == 3
    assert {o.id: o for o in st.catalog().offers}["acme-4090"].price_cny.value == 1.29


def test_malformed_csv_changes_nothing_and_names_line(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    snap = _counts(st)
    f = _write(tmp_path / "bad.csv", HEADER + "ok-1,Acme,rtx-4090,1,hour,1.99,2026-05-01,acme,\n"
               "bad-1,Acme,rtx-9999,1,hour,1.99,2026-05-01,acme,\n"
               "bad-2,Acme,rtx-4090,two,hour,1.99,2026-05-01,acme,\n"
               "bad-3,Acme,rtx-4090,1,fortnight,1.99,2026-05-01,acme,\n"
               "bad-4,Acme,rtx-4090,1,hour,1.99,May 2026,acme,\n")
    with pytest.raises(OfferImportError) as e:
        st.import_offers(f)
    msg = str(e.value)
    assert msg.startswith(f"{f}, line 3, field device: unknown gpu 'rtx-9999'")
    assert [(x.line, x.field) for x in e.value.errors] == [(3, "device"), (4, "cards"), (5, "billing_unit"), (6, "date")]
    assert "\n" not in msg
    assert _counts(st) == snap


def test_yaml_import_and_line_numbers(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    good = _write(tmp_path / "b.yaml", """
sources:
  - {id: bcloud-2026, title: "B Cloud price list", kind: price-list, date: 2026-04-01}
offers:
  - {id: b-910b-month, provider: B Cloud, device: 910b, cards: 8, billing_unit: month, price_cny: 60000,
     date: 2026-04-01, source: bcloud-2026}
  - id: b-910b-hour
    provider: B Cloud
    device: ascend-910b
    cards: 1
    billing_unit: hour
    price_cny: {value: 9.5, source: bcloud-2026}
    date: 2026-04
    source: bcloud-2026
""")
    r = st.import_offers(good)
    assert (r["new_prices"], r["new_sources"]) == (2, 1)
    assert st.catalog().sources["bcloud-2026"].title == "B Cloud price list"
    snap = _counts(st)
    bad = _write(tmp_path / "bad.yml", "offers:\n  - {id: x, provider: P, device: rtx-4090, cards: 1, billing_unit: hour,\n"
                 "     price_cny: 1, date: 2026-01, source: s}\n  - id: y\n    provider: P\n    device: rtx-4090\n"
                 "    cards: 0\n    billing_unit: hour\n    price_cny: 1\n    date: 2026-01\n    source: s\n")
    with pytest.raises(OfferImportError) as e:
        st.import_offers(bad)
    assert (e.value.errors[0].line, e.value.errors[0].field) == (4, "cards")
    assert _counts(st) == snap


def test_import_errors_for_whole_file(store_url: str, tmp_path: Path) -> None:
    st = open_store(store_url)
    cases = {
        "a.csv": ("id,provider,device,cards,billing_unit,price,date,source\n", (1, "price")),
        "b.csv": ("", (None, None)),
        "c.yaml": ("offers: [\n", (None, None)),
        "d.yaml": ("colours: []\n", (1, "colours")),
        "e.csv": ("id,provider,device,cards,billing_unit,price_cny,date,source\nx,P,rtx-4090,1,hour,-3,2026,s\n", (2, "price_cny")),
    }
    for name, (text, (line, field)) in cases.items():
        with pytest.raises(OfferImportError) as e:
            st.import_offers(_write(tmp_path / name, text))
        if line is not None:
            assert (e.value.errors[0].line, e.value.errors[0].field) == (line, field), name
    from suanli.errors import DataFileError

    with pytest.raises(DataFileError, match="format"):
        st.import_offers(_write(tmp_path / "f.txt", "x"))
    (tmp_path / "g.csv").write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(OfferImportError, match="UTF-8"):
        st.import_offers(tmp_path / "g.csv")


def test_plans_and_bench_results(store_url: str) -> None:
    from suanli.bench.backends import BackendInfo
    from suanli.bench.models import ModelInfo
    from suanli.bench.results import BenchResult, RunConfig

    st = open_store(store_url)
    pid = st.save_plan("m", {"model": "m"}, {"plans": [{"device": "rtx-4090"}]}, name="first")
    got = st.plan(pid)
    assert got["result"]["plans"][0]["device"] == "rtx-4090" and got["name"] == "first"
    assert got["catalog_version_id"] == st.catalog_version_id
    assert [p["id"] for p in st.plans()] == [pid]
    r = BenchResult(
        id="20260101T000000Z-abc", created_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), accelerator="rtx-4090",
        backend=BackendInfo(backend="cpu", device="cpu", device_name="test", memory_kind="process-peak-rss"),
        model=ModelInfo(name="m", kind="preset", key="m", architecture="LlamaForCausalLM", random_weights=True, params=10,
                        flop_params=8, weight_bytes=40, precision="fp32", num_layers=1, hidden_size=4,
                        num_attention_heads=1, num_kv_heads=1, head_dim=4, vocab_size=2, kv_cache_bytes_per_token=32),
        config=RunConfig(device="cpu", model="m", precision="fp32", batch=1, input_tokens=4, output_tokens=3, warmup=0, repeats=1),
    )
    assert st.save_bench_result(r) == r.id
    assert st.save_bench_result(r) == r.id  # idempotent
    rows = st.bench_results("rtx-4090")
    assert len(rows) == 1 and BenchResult.model_validate(rows[0]) == r


def test_two_concurrent_importers_lose_no_rows(store_url: str, tmp_path: Path) -> None:
    base = open_store(store_url)
    before = _counts(base)["price_history"]
    n = 150
    files = []
    for k in range(2):
        lines = "".join(f"imp{k}-{i},P{k},rtx-4090,1,hour,{1 + i / 100},2026-05-01,src-{k},\n" for i in range(n))
        files.append(_write(tmp_path / f"f{k}.csv", HEADER + lines))
    barrier = threading.Barrier(2)
    results: list[Any] = [None, None]

    def work(k: int) -> None:
        st = Store(store_url)  # its own engine and connections, as a second process would have
        barrier.wait()
        try:
            results[k] = st.import_offers(files[k])
        except Exception as e:  # noqa: BLE001 — reported below
            results[k] = e
        finally:
            st.dispose()

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert all(isinstance(r, dict) and r["new_prices"] == n for r in results), results
    assert _counts(base)["price_history"] == before + 2 * n
    assert len([o for o in base.catalog().offers if o.id.startswith("imp")]) == 2 * n
