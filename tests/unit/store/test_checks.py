"""Storage validation in one place (issue 14, finding 5): every hostile string or number is refused with the
same one-line error on SQLite and on PostgreSQL, before it reaches the database. The hypothesis strategies run
against both databases (PostgreSQL when SUANLI_TEST_POSTGRES_URL is set: `source .ci/postgres.sh`; CI sets it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("sqlalchemy")

from suanli.errors import InputError, SuanliError  # noqa: E402
from suanli.store import OfferImportError, Store, open_store  # noqa: E402
from suanli.store.checks import INT32_MAX, check_date  # noqa: E402

from store_backends import BACKENDS, PG  # noqa: E402  (tests/store_backends.py)
HEADER = "id,provider,device,cards,billing_unit,price_cny,date,source\n"


@pytest.fixture(scope="module", params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
          reset_postgres: Callable[[str], str]) -> Iterator[Store]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('checks') / 'suanli.db'}"
    else:
        assert PG
        url = reset_postgres(PG)
    s = open_store(url)
    yield s
    s.dispose()


def _import(store: Store, data: bytes, name: str = "hostile.csv") -> Any:
    """Import past the plausibility band (market's check of prices per card-hour), to reach the column checks."""
    import inspect

    force = {"force": True} if "force" in inspect.signature(store.import_offers_bytes).parameters else {}
    return store.import_offers_bytes(data, name, **force)


def _csv(row: str) -> bytes:
    return (HEADER + row + "\n").encode("utf-8")


HOSTILE_ROWS = {
    "long id": ("x" * 301 + ",Acme,rtx-4090,1,hour,1.5,2026-01-01,acme", "id"),
    "NUL in provider": ("nul-1,Ac\x00me,rtx-4090,1,hour,1.5,2026-01-01,acme", "provider"),
    "cards 2**31": (f"big-1,Acme,rtx-4090,{2**31},hour,1.5,2026-01-01,acme", "cards"),
    "cards 10**20": (f"big-2,Acme,rtx-4090,{10**20},hour,1.5,2026-01-01,acme", "cards"),
    "long source": ("src-1,Acme,rtx-4090,1,hour,1.5,2026-01-01," + "s" * 301, "source"),
    "future date": ("fut-1,Acme,rtx-4090,1,hour,1.5,2099-12-31,acme", "date"),
}


@pytest.mark.parametrize("case", list(HOSTILE_ROWS))
def test_hostile_offer_rows_are_one_line_errors(store: Store, case: str) -> None:
    row, field = HOSTILE_ROWS[case]
    before = store.info()["counts"]
    with pytest.raises(OfferImportError) as e:
        _import(store, _csv(row))
    assert "\n" not in str(e.value) and e.value.errors[0].field in (field, f"{field}.value", None), str(e.value)
    assert store.info()["counts"] == before


def _bench(**over: Any) -> dict[str, Any]:
    from suanli.bench.backends import BackendInfo
    from suanli.bench.models import ModelInfo
    from suanli.bench.results import BenchResult, RunConfig

    r = BenchResult(
        id="20260101T000000Z-abc", created_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), accelerator="rtx-4090",
        backend=BackendInfo(backend="cpu", device="cpu", device_name="test", memory_kind="process-peak-rss"),
        model=ModelInfo(name="m", kind="preset", key="m", architecture="LlamaForCausalLM", random_weights=True, params=10,
                        flop_params=8, weight_bytes=40, precision="fp32", num_layers=1, hidden_size=4,
                        num_attention_heads=1, num_kv_heads=1, head_dim=4, vocab_size=2, kv_cache_bytes_per_token=32),
        config=RunConfig(device="cpu", model="m", precision="fp32", batch=1, input_tokens=4, output_tokens=3, warmup=0,
                         repeats=1),
    )
    return {**r.model_dump(mode="json"), **over}


@pytest.mark.parametrize("over", [{"id": "x" * 101}, {"id": "a\x00b"}, {"accelerator": "nul\x00"},
                                  {"created_at": "0001-01-01T00:00:00+00:00"}, {"created_at": "9999-12-31T23:59:59"}])
def test_hostile_bench_results_are_refused(store: Store, over: dict[str, Any]) -> None:
    with pytest.raises(SuanliError):
        store.save_bench_result(_bench(**over))


def test_nan_inside_a_bench_result_is_refused(store: Store) -> None:
    """NaN in the JSON column (PostgreSQL refuses the JSON text 'NaN'): refused by the column check."""
    from suanli.store.checks import check_row
    from suanli.store.models import BenchResultRow

    with pytest.raises(InputError, match="finite"):
        check_row(BenchResultRow, {"data": {"throughput": {"decode_tokens_per_s": float("nan")}}})
    r = store.save_bench_result(_bench(id="nan-free"))  # the same result without NaN is stored
    assert r == "nan-free"


def test_saved_plan_values_are_checked(store: Store) -> None:
    for name, request in [("a\x00b", {}), ("n" * 301, {}), ("ok", {"x": float("nan")}), ("ok", {"k\x00": 1})]:
        with pytest.raises(InputError):
            store.save_plan("m", request, {"plans": []}, name=name)


def test_future_price_through_the_update_path(store: Store) -> None:
    with pytest.raises(InputError, match="future"):
        store.add_price("seed000-rtx4090-hour", 1.0, "2099-12-31", "acme")
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    with pytest.raises(InputError, match="future"):
        store.add_price("seed000-rtx4090-hour", 1.0, tomorrow, "acme")


def test_check_date_bounds() -> None:
    for bad in ("0001", "1969-12-31", "2026-02-30", "20x6", "2026-1-1x", "a\x00"):
        with pytest.raises(InputError):
            check_date("date", bad)
    check_date("date", "2026-01")


hostile_text = st.one_of(
    st.text(min_size=1, max_size=40),
    st.sampled_from(["\x00", "a\x00", "x" * 301, "=1+2", "\ud800", "名字", " ", "'", '"', "\\", "%s", "NaN"]),
)
hostile_int = st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([0, -1, INT32_MAX, INT32_MAX + 1, 2**63]))


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(oid=hostile_text, provider=hostile_text, cards=hostile_int, source=hostile_text)
def test_any_offer_row_is_stored_or_refused_in_one_line(store: Store, oid: str, provider: str, cards: int,
                                                        source: str) -> None:
    def cell(s: str) -> str:
        return '"' + s.replace('"', '""') + '"'

    row = ",".join([cell(oid), cell(provider), "rtx-4090", str(cards), "hour", "1.5", "2026-01-01", cell(source)])
    try:
        data = _csv(row)
    except UnicodeEncodeError:
        data = (HEADER + row + "\n").encode("utf-8", "surrogatepass")
    try:
        _import(store, data, "fuzz.csv")
    except SuanliError as e:
        assert "\n" not in str(e)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(name=hostile_text, value=st.one_of(hostile_int, st.floats(), hostile_text))
def test_any_saved_plan_is_stored_or_refused(store: Store, name: str, value: Any) -> None:
    try:
        pid = store.save_plan("m", {"v": value}, {"plans": [], "name": name}, name=name)
    except InputError as e:
        assert "\n" not in str(e)
    else:
        assert store.plan(pid)["name"] == name


def test_same_answer_on_both_databases(tmp_path: Path) -> None:
    """The messages come from one checker, not from the driver: the SQLite answer is the reference."""
    s = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with pytest.raises(OfferImportError) as e:
        _import(s, _csv(HOSTILE_ROWS["cards 2**31"][0]))
    assert "32-bit" in str(e.value)
