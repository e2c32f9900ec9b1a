"""The store: one class over SQLAlchemy 2 that migrates (Alembic), keeps the packaged catalog's offers in step
with the packaged files (`Store.seed`: a sync only when the files changed), imports offers without ever
rewriting price history, and keeps saved plans and benchmark results.

SQLite (the default, a file in the data directory) and PostgreSQL (`postgresql+psycopg://…`) run the
same code. Writers are serialized: SQLite write transactions start with `BEGIN IMMEDIATE`, PostgreSQL
ones take a transaction-level advisory lock, so two importers at once both land every row.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Engine, String, cast, create_engine, event, false, func, insert, literal, select, text, true, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from suanli import __version__
from suanli.catalog.load import DATA_DIR, packaged_catalog
from suanli.catalog.offers import planning_offers
from suanli.catalog.schema import Catalog, Offer, Source
from suanli.errors import InputError, NotFoundError, SuanliError
from suanli.i18n import Message
from suanli.store.importer import (
    OfferImportError,
    ParsedImport,
    RowError,
    identity_change,
    offer_fingerprint,
    parse_offers,
    stale_note,
)
from suanli.store.models import (
    BenchResultRow,
    CatalogEntryRow,
    CatalogSyncRow,
    CatalogVersionRow,
    ImportRow,
    OfferRow,
    PriceRow,
    SavedPlanRow,
    SourceRow,
)
from suanli.store.checks import check_date, check_row
from suanli.store.settings import database_url, redact_url

__all__ = ["ImportResult", "MIGRATIONS_DIR", "Store", "StoreError", "catalog_data_sha256", "open_store"]

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_ADVISORY_KEY = 0x5375616E  # "Suan": one lock id for every suanli writer on a PostgreSQL database
_SECTIONS = ("accelerators", "offers", "purchases", "models", "stacks", "efficiency", "links")



def _stored_offer(d: dict[str, Any], import_id: int | None) -> Offer:
    """A stored offer row by today's rules; one a rule added since its import refuses (an inter-node network under
    `catalog.schema.MIN_INTER_NODE_GBIT_PER_S`) is one line naming the offer and the import to roll back."""
    try:
        return Offer.model_validate(d)
    except ValidationError as e:
        from suanli.errors import validation_message

        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-")) or "offer"
        raise InputError(field, Message("store.err.offer_refused", offer=str(d.get("id")), import_id=import_id,
                                        why=validation_message(err))) from None

class StoreError(SuanliError):
    """The database cannot be opened, migrated or written."""


def catalog_data_sha256(data_dir: Path = DATA_DIR) -> str:
    """SHA-256 over the packaged data files (catalog YAML and the matmul measurements): the catalog version."""
    h = hashlib.sha256()
    files = sorted([*data_dir.glob("*.yaml"), *(data_dir.parent / "measured").glob("*.yaml")])
    for p in files:
        h.update(f"{p.parent.name}/{p.name}\0".encode())
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


class ImportResult(dict[str, Any]):
    """{"file", "format", "rows", "new_prices", "unchanged", "new_offers", "new_sources", "import_id", "stale",
    "stale_warning", "stale_warning_i18n"}: `stale` rows older than 12 months, and the one line saying so."""


def _make_engine(url: str) -> Engine:
    u = make_url(url)
    if u.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, future=True)
    memory = u.database in (None, "", ":memory:")
    if not memory and u.database:
        Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    eng = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": 60},
        **({"poolclass": StaticPool} if memory else {}),
    )

    @event.listens_for(eng, "connect")
    def _on_connect(dbapi_conn: Any, _rec: Any) -> None:
        dbapi_conn.isolation_level = None  # we issue BEGIN ourselves (pysqlite's own is deferred and late)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=60000")
        if not memory:
            cur.execute("PRAGMA journal_mode=WAL")
        cur.close()

    @event.listens_for(eng, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("suanli_write") else "BEGIN")

    return eng


class Store:
    """The database behind `suanli offers import`, `suanli db` and the REST API."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or database_url()
        try:
            self.engine = _make_engine(self.url)
        except Exception as e:  # noqa: BLE001 — a bad URL or a missing driver is one line
            raise StoreError(f"database URL {redact_url(self.url)}: {str(e).replace(self.url, redact_url(self.url))}") from None
        self.dialect = self.engine.dialect.name
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._cat_lock = threading.Lock()
        self._cat_cache: tuple[tuple[Any, ...], Catalog] | None = None
        self._plan_cache: tuple[Catalog, Catalog] | None = None
        self.catalog_version_id: int | None = None

    # -- set-up ---------------------------------------------------------------------------------------
    def _alembic_config(self) -> Any:
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
        cfg.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        return cfg

    def head_revision(self) -> str | None:
        from alembic.script import ScriptDirectory

        return ScriptDirectory.from_config(self._alembic_config()).get_current_head()

    def current_revision(self) -> str | None:
        from alembic.migration import MigrationContext

        with self.engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    def upgrade(self) -> str | None:
        """Bring the schema to the newest migration (a no-op when it is there). Safe with several processes."""
        from alembic import command

        head = self.head_revision()
        try:
            if self.current_revision() == head:
                return head
            with self._migration_lock() as conn:
                cfg = self._alembic_config()
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, "head")
                conn.commit()
        except OperationalError as e:
            raise StoreError(f"cannot migrate {redact_url(self.url)}: {e.orig}") from None
        return head

    @contextlib.contextmanager
    def _migration_lock(self) -> Iterator[Any]:
        if self.dialect == "postgresql":
            with self.engine.connect() as conn:
                conn.exec_driver_sql(f"SELECT pg_advisory_lock({_ADVISORY_KEY})")
                conn.commit()
                try:
                    yield conn
                finally:
                    conn.rollback()
                    conn.exec_driver_sql(f"SELECT pg_advisory_unlock({_ADVISORY_KEY})")
                    conn.commit()
        elif self.dialect == "sqlite":
            with self.engine.connect() as conn:
                conn = conn.execution_options(suanli_write=True)
                yield conn
        else:
            with self.engine.connect() as conn:
                yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction, serialized against every other suanli writer; commits on success."""
        with self._sessions() as s:
            s.connection(execution_options={"suanli_write": True})
            if self.dialect == "postgresql":
                s.execute(text(f"SELECT pg_advisory_xact_lock({_ADVISORY_KEY})"))
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        with self._sessions() as s:
            yield s

    def seed(self) -> int:
        """Follow the packaged catalog: when its data files (their SHA-256) differ from the version the last sync
        brought the store to — or the store never synced — `sync_packaged`. Otherwise one read, nothing written.
        Returns the current catalog version's row id."""
        sha = catalog_data_sha256()
        with self.read() as s:
            cur = self._synced_version(s)
        if cur is not None and cur[1] == sha:
            self.catalog_version_id = cur[0]
            return cur[0]
        return self.sync_packaged(packaged_catalog(), sha)

    @staticmethod
    def _synced_version(s: Session) -> tuple[int, str] | None:
        """(version id, data SHA-256) of the newest packaged-catalog sync, or None."""
        row = s.execute(
            select(CatalogVersionRow.id, CatalogVersionRow.data_sha256)
            .join(CatalogSyncRow, CatalogSyncRow.version_id == CatalogVersionRow.id)
            .order_by(CatalogSyncRow.id.desc()).limit(1)
        ).first()
        return None if row is None else (int(row[0]), str(row[1]))

    def sync_packaged(self, cat: Catalog, sha: str) -> int:
        """Make the packaged rows of the price history follow `cat` (the packaged catalog, its files hashing to
        `sha`) exactly, in one write transaction, and record the sync in `catalog_syncs`:

        - a packaged offer new to the store, or whose row changed, gets a price row (origin packaged, `sync_id`);
        - a counted packaged row that is not the files' row for its offer id (the offer was removed, or changed)
          is retired: kept in the history, marked rolled back, `retired_by` this sync;
        - rows from imports (`suanli offers import`, price updates) are never touched, so a user's own price for
          an offer id the release dropped still counts.

        Returns the catalog version's row id (created with its entries the first time this SHA is seen)."""
        with self.write() as s:
            cur = self._synced_version(s)
            if cur is not None and cur[1] == sha:  # another process synced first
                vid = cur[0]
            else:
                vid = self._sync(s, cat, sha)
        self.catalog_version_id = vid
        return vid

    def _sync(self, s: Session, cat: Catalog, sha: str) -> int:
        vid = s.scalar(select(CatalogVersionRow.id).where(CatalogVersionRow.data_sha256 == sha))
        if vid is None:
            counts = {sec: len(getattr(cat, sec)) for sec in _SECTIONS} | {"sources": len(cat.sources)}
            row = CatalogVersionRow(data_sha256=sha, suanli_version=__version__, counts=counts)
            s.add(row)
            s.flush()
            vid = row.id
            entries = [
                {"version_id": vid, "section": sec, "entry_id": getattr(x, "id", str(i)),
                 "data": x.model_dump(mode="json")}
                for sec in _SECTIONS for i, x in enumerate(getattr(cat, sec))
            ] + [{"version_id": vid, "section": "sources", "entry_id": k, "data": v.model_dump(mode="json")}
                 for k, v in cat.sources.items()]
            s.execute(insert(CatalogEntryRow), entries)
        self._upsert_sources(s, list(cat.sources.values()), origin="packaged", update=True)
        want = {o.id: (o, offer_fingerprint(o)) for o in cat.offers}
        live = s.execute(select(PriceRow.id, PriceRow.offer_id, PriceRow.fingerprint)
                         .where(PriceRow.origin == "packaged", PriceRow.rolled_back == false())).all()
        had = {oid for _, oid, _ in live}
        kept: set[str] = set()
        retire: list[int] = []
        touched: set[str] = set()
        for pid, oid, fp in live:
            w = want.get(oid)
            if w is not None and w[1] == fp:
                kept.add(oid)
            else:
                retire.append(pid)
                touched.add(oid)
        add = [o for oid, (o, _) in want.items() if oid not in kept]
        touched |= {o.id for o in add}
        added = sorted(oid for oid in want if oid not in had)
        removed = sorted(had - set(want))
        changed = sorted(oid for oid in touched if oid in want and oid in had)
        sync = CatalogSyncRow(version_id=vid, suanli_version=__version__, offers=len(want), added=len(added),
                              changed=len(changed), removed=len(removed),
                              unchanged=len(want) - len(added) - len(changed),
                              changes={"added": added, "changed": changed, "removed": removed})
        s.add(sync)
        s.flush()
        for i in range(0, len(retire), 500):
            s.execute(update(PriceRow).where(PriceRow.id.in_(retire[i:i + 500]))
                      .values(rolled_back=True, retired_by=sync.id,
                              fingerprint=literal("retired:") + cast(PriceRow.id, String)))
        self._add_prices(s, add, origin="packaged", import_id=None, sync_id=sync.id)
        return vid

    def catalog_syncs(self) -> list[dict[str, Any]]:
        """Every sync of the packaged catalog, oldest first: the version (id, data SHA-256) it brought the store to,
        when, by which suanli version, and the packaged offers it added, changed and removed."""
        with self.read() as s:
            q = (select(CatalogSyncRow, CatalogVersionRow.data_sha256)
                 .join(CatalogVersionRow, CatalogVersionRow.id == CatalogSyncRow.version_id).order_by(CatalogSyncRow.id))
            return [{"id": r.id, "version_id": r.version_id, "data_sha256": sha, "suanli_version": r.suanli_version,
                     "synced_at": r.synced_at.isoformat(), "offers": r.offers, "added": r.added, "changed": r.changed,
                     "removed": r.removed, "unchanged": r.unchanged, "changes": r.changes}
                    for r, sha in s.execute(q)]

    def retired_prices(self, offer_id: str | None = None) -> list[dict[str, Any]]:
        """Packaged price rows a sync retired (kept in the price history, no longer counted), and which sync."""
        q = select(PriceRow.id, PriceRow.offer_id, PriceRow.retired_by).where(PriceRow.retired_by.is_not(None))
        if offer_id is not None:
            q = q.where(PriceRow.offer_id == offer_id)
        with self.read() as s:
            return [{"price_id": pid, "offer_id": oid, "retired_by_sync": by}
                    for pid, oid, by in s.execute(q.order_by(PriceRow.id))]

    # -- offers and prices ---------------------------------------------------------------------------
    @staticmethod
    def _upsert_sources(s: Session, sources: list[Source], origin: str, update: bool = False) -> int:
        if not sources:
            return 0
        have = {r.id: r for r in s.scalars(select(SourceRow).where(SourceRow.id.in_([x.id for x in sources])))}
        n = 0
        for src in sources:
            # third_party is read from the packaged files and carried by each offer it marks (Offer.second_hand)
            d = src.model_dump(mode="json", exclude={"third_party"})
            if src.id not in have:
                s.add(SourceRow(**d, origin=origin))
                n += 1
            elif update and have[src.id].origin == origin:
                for k, v in d.items():
                    setattr(have[src.id], k, v)
        s.flush()
        return n

    @staticmethod
    def _add_prices(s: Session, offers: list[Offer], origin: str, import_id: int | None,
                    sync_id: int | None = None) -> tuple[int, int]:
        """Add a price row per offer unless the identical row is already there. Returns (new prices, new offers)."""
        fps = [offer_fingerprint(o) for o in offers]
        have: set[str] = set()
        for i in range(0, len(fps), 500):
            have |= set(s.scalars(select(PriceRow.fingerprint).where(PriceRow.fingerprint.in_(fps[i:i + 500]))))
        ids = sorted({o.id for o in offers})
        known: set[str] = set()
        for i in range(0, len(ids), 500):
            known |= set(s.scalars(select(OfferRow.id).where(OfferRow.id.in_(ids[i:i + 500]))))
        new_offers = [OfferRow(id=o.id, device=o.device, provider=o.provider, origin=origin)
                      for o in {o.id: o for o in offers if o.id not in known}.values()]
        s.add_all(new_offers)
        s.flush()
        rows = []
        for o, fp in zip(offers, fps):
            if fp in have:
                continue
            have.add(fp)
            rows.append({
                "offer_id": o.id, "device": o.device, "cards": o.cards, "billing_unit": o.billing_unit,
                "price_cny": o.price_cny.value, "price_cny_max": o.price_cny_max.value if o.price_cny_max else None,
                "date": o.date, "source": o.source, "origin": origin, "import_id": import_id, "sync_id": sync_id,
                "offer": o.model_dump(mode="json"), "fingerprint": fp, "recorded_at": dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0),
            })
        if rows:
            s.execute(insert(PriceRow), rows)
        return len(rows), len(new_offers)

    def known_source_ids(self) -> set[str]:
        with self.read() as s:
            return set(s.scalars(select(SourceRow.id)))

    def import_offers_bytes(self, data: bytes | str, filename: str, fmt: str | None = None, via: str = "cli",
                            force: bool = False) -> ImportResult:
        """Validate every row (prices outside the device's plausibility band too, unless `force`), then write all
        of them in one transaction (or nothing). The result's `import_id` is what `rollback_import` takes."""
        parsed = parse_offers(data, filename, packaged_catalog(), self.known_source_ids(), fmt,
                              reference_offers=self.current_offers(), force=force)
        return self.import_parsed(parsed, via, forced=force)

    def import_offers(self, path: str | Path, via: str = "cli", force: bool = False) -> ImportResult:
        p = Path(path)
        if not p.is_file():
            raise InputError("file", Message("err.does_not_exist", str=str(path)))
        return self.import_offers_bytes(p.read_bytes(), str(path), via=via, force=force)

    def rollback_import(self, import_id: int, via: str = "cli") -> dict[str, Any]:
        """Remove exactly the prices one import added: its rows stay in the history, marked rolled back (they no
        longer count, and the same rows may be imported again), and the import records when and how."""
        with self.write() as s:
            imp = s.get(ImportRow, import_id)
            if imp is None:
                raise NotFoundError("import", str(import_id), [str(i) for i in s.scalars(select(ImportRow.id))])
            if imp.rolled_back_at is not None:
                raise InputError("import-id", Message("err.import_was_already_rolled_back_at", import_id=import_id, v=imp.rolled_back_at.isoformat()))
            fps = set(s.scalars(select(PriceRow.fingerprint)
                                .where(PriceRow.import_id == import_id, PriceRow.rolled_back == false())))
            res = s.execute(
                update(PriceRow).where(PriceRow.import_id == import_id, PriceRow.rolled_back == false())
                .values(rolled_back=True, fingerprint=literal("rolled-back:") + cast(PriceRow.id, String))
            )
            imp.rolled_back_at = dt.datetime.now(dt.UTC).replace(tzinfo=None, microsecond=0)
            imp.rolled_back_via = via
            n = int(getattr(res, "rowcount", 0) or 0)
            # a packaged row identical to one of these was not stored by its sync (the fingerprint was taken):
            # it counts again as the packaged row, so the packaged offers still follow the packaged files
            packaged = [o for o in packaged_catalog().offers if offer_fingerprint(o) in fps]
            if packaged:
                sync_id = s.scalar(select(func.max(CatalogSyncRow.id)))
                self._add_prices(s, packaged, origin="packaged", import_id=None, sync_id=sync_id)
            return {"import_id": import_id, "filename": imp.filename, "prices_rolled_back": n,
                    "rolled_back_at": imp.rolled_back_at.isoformat(), "via": via}

    @staticmethod
    def check_parsed(parsed: ParsedImport) -> None:
        """Every value of every offer and new source against its column (one place for SQLite and PostgreSQL)."""
        errors: list[RowError] = []
        for o, line in zip(parsed.offers, parsed.lines):
            try:
                check_row(OfferRow, {"id": o.id, "device": o.device, "provider": o.provider})
                check_row(PriceRow, {"cards": o.cards, "billing_unit": o.billing_unit, "price_cny": o.price_cny.value,
                                     "price_cny_max": o.price_cny_max.value if o.price_cny_max else None,
                                     "source": o.source, "offer": o.model_dump(mode="json")})
                check_date("date", o.date)
            except InputError as e:
                errors.append(RowError(line, e.field, str(e).removeprefix(f"{e.field}: ")))
        for src in parsed.new_sources:
            try:
                check_row(SourceRow, src.model_dump(mode="json", exclude={"third_party"}), where="source ")
            except InputError as e:
                errors.append(RowError(None, e.field, str(e).removeprefix(f"{e.field}: ")))
        if errors:
            raise OfferImportError(parsed.filename, errors[:20])

    @staticmethod
    def _check_identity(s: Session, parsed: ParsedImport) -> None:
        """Refuse (the whole import) a row whose offer id is stored with another device, provider, card count or
        billing unit: the offers table keeps the first device and provider, so such a row would list the id under
        the new device while planning and the table still say the old one (review 2026-12-01). The stored
        identity is the offers row plus the newest price row of the id (rolled back or not)."""
        ids = sorted({o.id for o in parsed.offers})
        have: dict[str, dict[str, Any]] = {}
        for i in range(0, len(ids), 500):
            chunk = ids[i:i + 500]
            for oid, device, provider in s.execute(select(OfferRow.id, OfferRow.device, OfferRow.provider)
                                                   .where(OfferRow.id.in_(chunk))):
                have[oid] = {"device": device, "provider": provider}
            newest = (select(PriceRow.offer_id, func.max(PriceRow.id).label("pid"))
                      .where(PriceRow.offer_id.in_(chunk)).group_by(PriceRow.offer_id).subquery())
            for oid, cards, unit in s.execute(select(PriceRow.offer_id, PriceRow.cards, PriceRow.billing_unit)
                                              .join(newest, PriceRow.id == newest.c.pid)):
                have.setdefault(oid, {}).update(cards=cards, billing_unit=unit)
        errors: list[RowError] = []
        for o, line in zip(parsed.offers, parsed.lines):
            moved = identity_change(have[o.id], o) if o.id in have else None
            if moved is not None:
                errors.append(RowError(line, moved[0], moved[1]))
        if errors:
            raise OfferImportError(parsed.filename, errors[:20])

    def import_parsed(self, parsed: ParsedImport, via: str = "cli", forced: bool = False) -> ImportResult:
        self.check_parsed(parsed)
        check_row(ImportRow, {"filename": Path(parsed.filename).name, "format": parsed.format, "via": via,
                              "rows": len(parsed.offers)})
        with self.write() as s:
            imp = ImportRow(filename=Path(parsed.filename).name, file_sha256=parsed.file_sha256, format=parsed.format,
                            rows=len(parsed.offers), new_prices=0, via=via, forced=forced)
            self._check_identity(s, parsed)
            s.add(imp)
            s.flush()
            n_src = self._upsert_sources(s, parsed.new_sources, origin="import")
            new_prices, new_offers = self._add_prices(s, parsed.offers, origin="import", import_id=imp.id)
            if new_prices == 0 and n_src == 0:
                s.delete(imp)  # nothing new: leave no trace (importing the same file twice changes nothing)
                import_id = None
            else:
                imp.new_prices = new_prices
                import_id = imp.id
        stale = stale_note(parsed.offers)  # warned as answers warn (the rows are written: history, not errors)
        return ImportResult(file=parsed.filename, format=parsed.format, rows=len(parsed.offers),
                            new_prices=new_prices, unchanged=len(parsed.offers) - new_prices,
                            new_offers=new_offers, new_sources=n_src, import_id=import_id,
                            stale=int(stale.params["n"]) if stale is not None else 0,
                            stale_warning=stale.render("en") if stale is not None else None,
                            stale_warning_i18n=stale.to_json() if stale is not None else None)

    def add_price(self, offer_id: str, price_cny: float, date: str, source: str, *,
                  price_cny_max: float | None = None, note: str | None = None, via: str = "api") -> ImportResult:
        """A new price for an existing offer (the update endpoint): the offer as it is now, with this price.
        The date may not be in the future: a future price would hide every real later one."""
        check_date("date", date)
        current = {o.id: o for o in self.current_offers()}
        if offer_id not in current:
            raise NotFoundError("offer", offer_id, list(current))
        base = current[offer_id].model_dump(mode="json")
        base.update(date=date, source=source, note=note,
                    price_cny={"value": price_cny, "source": source, "date": date},
                    price_cny_max=None if price_cny_max is None else {"value": price_cny_max, "source": source, "date": date})
        try:
            o = Offer.model_validate(base)
        except Exception as e:  # noqa: BLE001 — pydantic's message, one line, naming the field
            errs = getattr(e, "errors", None)
            err = errs()[0] if callable(errs) else {"loc": ("price",), "msg": str(e)}
            raise InputError(".".join(str(p) for p in err["loc"] if not str(p).startswith("function-")) or "price",
                             str(err["msg"])) from None
        parsed = ParsedImport(filename=f"api:{offer_id}", format="api",
                              file_sha256=hashlib.sha256(offer_fingerprint(o).encode()).hexdigest(),
                              offers=[o], lines=[None])
        known = self.known_source_ids() | set(packaged_catalog().sources)
        if source not in known and source != "assumed":
            parsed.new_sources.append(Source(id=source, title=f"price update via {via}", kind="price-list", date=date))
        return self.import_parsed(parsed, via)

    def revision(self) -> tuple[Any, ...]:
        """Changes whenever prices or sources change: the key of the effective-catalog cache."""
        with self.read() as s:
            return (s.scalar(select(func.max(PriceRow.id))), s.scalar(select(func.count(SourceRow.id))),
                    s.scalar(select(func.count(PriceRow.id)).where(PriceRow.rolled_back == true())))

    def current_offers(self) -> list[Offer]:
        """Every offer as its newest price row gives it (newest date, then newest row)."""
        with self.read() as s:
            best: dict[str, tuple[str, int]] = {}
            live = select(PriceRow.offer_id, PriceRow.date, PriceRow.id).where(PriceRow.rolled_back == false())
            for oid, date, pid in s.execute(live):
                if oid not in best or (date, pid) > best[oid]:
                    best[oid] = (date, pid)
            ids = [v[1] for v in best.values()]
            out: list[Offer] = []
            for i in range(0, len(ids), 500):
                for d, imp in s.execute(select(PriceRow.offer, PriceRow.import_id).where(PriceRow.id.in_(ids[i:i + 500]))):
                    out.append(_stored_offer(d, imp))
        return sorted(out, key=lambda o: o.id)

    def catalog(self) -> Catalog:
        """The packaged catalog with the store's current offers and imported sources (cached per revision)."""
        rev = self.revision()
        with self._cat_lock:
            if self._cat_cache is not None and self._cat_cache[0] == rev:
                return self._cat_cache[1]
        base = packaged_catalog()
        sources = dict(base.sources)
        with self.read() as s:
            for r in s.scalars(select(SourceRow).where(SourceRow.origin == "import")):
                sources.setdefault(r.id, Source(id=r.id, title=r.title, kind=r.kind, url=r.url, date=r.date, note=r.note))  # type: ignore[arg-type]
        cat = base.model_copy(update={"offers": tuple(self.current_offers()), "sources": sources})
        with self._cat_lock:
            self._cat_cache = (rev, cat)
        return cat

    def planning_catalog(self) -> Catalog:
        """The catalog the planner searches: the current offers less those the planner could never choose
        (`catalog.offers.planning_offers`, the one rule the CLI's stored catalog applies too), cached per revision,
        so plan time no longer grows with imported rows that repeat a shape at a higher price."""
        cat = self.catalog()
        with self._cat_lock:
            if self._plan_cache is not None and self._plan_cache[0] is cat:
                return self._plan_cache[1]
        reduced = planning_offers(cat)
        with self._cat_lock:
            self._plan_cache = (cat, reduced)
        return reduced

    def price_history(self, offer_id: str | None = None, device: str | None = None, limit: int = 10_000) -> list[dict[str, Any]]:
        q = select(PriceRow).order_by(PriceRow.offer_id, PriceRow.date, PriceRow.id).limit(limit)
        if offer_id is not None:
            q = q.where(PriceRow.offer_id == offer_id)
        if device is not None:
            q = q.where(PriceRow.device == device)
        with self.read() as s:
            return [
                {"id": r.id, "offer_id": r.offer_id, "device": r.device, "cards": r.cards,
                 "billing_unit": r.billing_unit, "price_cny": r.price_cny, "price_cny_max": r.price_cny_max,
                 "date": r.date, "source": r.source, "origin": r.origin, "import_id": r.import_id,
                 "rolled_back": r.rolled_back, "recorded_at": r.recorded_at.isoformat()}
                for r in s.scalars(q)
            ]

    def imports(self, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
        """Imports, oldest first; `limit`/`offset` page them (the API's lists are bounded)."""
        q = select(ImportRow).order_by(ImportRow.id).offset(offset).limit(limit)
        with self.read() as s:
            return [{"id": r.id, "filename": r.filename, "file_sha256": r.file_sha256, "format": r.format,
                     "rows": r.rows, "new_prices": r.new_prices, "via": r.via, "imported_at": r.imported_at.isoformat(),
                     "forced": r.forced,
                     "rolled_back_at": r.rolled_back_at.isoformat() if r.rolled_back_at else None,
                     "rolled_back_via": r.rolled_back_via}
                    for r in s.scalars(q)]

    # -- plans and benchmark results -----------------------------------------------------------------
    def save_plan(self, model: str, request: dict[str, Any], result: dict[str, Any], name: str | None = None) -> int:
        check_row(SavedPlanRow, {"name": name, "model": model, "request": request, "result": result})
        with self.write() as s:
            row = SavedPlanRow(name=name, model=model, request=request, result=result,
                               catalog_version_id=self.catalog_version_id)
            s.add(row)
            s.flush()
            return row.id

    def plans(self, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
        """Saved plans (without their results), oldest first; `limit`/`offset` page them."""
        q = select(SavedPlanRow).order_by(SavedPlanRow.id).offset(offset).limit(limit)
        with self.read() as s:
            return [{"id": r.id, "name": r.name, "model": r.model, "created_at": r.created_at.isoformat(),
                     "request": r.request}
                    for r in s.scalars(q)]

    def plan(self, plan_id: int) -> dict[str, Any]:
        with self.read() as s:
            # an id outside the 32-bit column is no saved plan (SQLite would raise OverflowError binding it)
            r = s.get(SavedPlanRow, plan_id) if 1 <= plan_id <= 2**31 - 1 else None
            if r is None:
                raise NotFoundError("plan", str(plan_id), [str(i) for i in s.scalars(select(SavedPlanRow.id))])
            return {"id": r.id, "name": r.name, "model": r.model, "created_at": r.created_at.isoformat(),
                    "catalog_version_id": r.catalog_version_id, "request": r.request, "result": r.result}

    def save_bench_result(self, result: Any) -> str:
        """Store a `suanli.bench.results.BenchResult` (idempotent on its id). Returns the id."""
        from suanli.bench.results import BenchResult

        r = result if isinstance(result, BenchResult) else BenchResult.model_validate(result)
        if not 1970 <= r.created_at.year <= 2200:
            raise InputError("created_at", Message("err.year_is_outside_2", year=r.created_at.year))
        try:
            created = r.created_at.astimezone(dt.UTC).replace(tzinfo=None) if r.created_at.tzinfo else r.created_at
        except (OverflowError, ValueError):
            raise InputError("created_at", Message("err.cannot_be_converted_to_utc", r_created_at=r.created_at)) from None
        values = {"id": r.id, "created_at": created, "accelerator": r.accelerator, "device": r.config.device,
                  "model": r.config.model, "precision": r.config.precision, "data": r.model_dump(mode="json")}
        check_row(BenchResultRow, values)
        with self.write() as s:
            if s.get(BenchResultRow, r.id) is None:
                s.add(BenchResultRow(**values))
        return r.id

    def bench_results(self, accelerator: str | None = None, limit: int | None = None,
                      offset: int = 0) -> list[dict[str, Any]]:
        """Stored benchmark results as saved (the API drops each one's host name), oldest first."""
        q = select(BenchResultRow).order_by(BenchResultRow.created_at, BenchResultRow.id).offset(offset).limit(limit)
        if accelerator:
            q = q.where(BenchResultRow.accelerator == accelerator)
        with self.read() as s:
            return [r.data for r in s.scalars(q)]

    # -- facts ---------------------------------------------------------------------------------------
    def info(self, public: bool = False) -> dict[str, Any]:
        """Facts about the database. The URL never shows a password; `public` (the API) also hides the
        SQLite file's directory."""
        revision, head = self.current_revision(), self.head_revision()
        with self.read() as s:
            # ordered by each version's newest sync (then id): the last one is the version the store follows now
            last_sync = {vid: n for vid, n in s.execute(select(CatalogSyncRow.version_id, func.max(CatalogSyncRow.id))
                                                         .group_by(CatalogSyncRow.version_id))}
            versions = sorted(s.scalars(select(CatalogVersionRow)), key=lambda v: (last_sync.get(v.id, 0), v.id))

            def count(model: Any) -> int:
                return int(s.scalar(select(func.count()).select_from(model)) or 0)

            return {
                "url": redact_url(self.url, hide_path=public),
                "dialect": self.dialect,
                "revision": revision,
                "head": head,
                "catalog_versions": [{"id": v.id, "data_sha256": v.data_sha256, "suanli_version": v.suanli_version,
                                      "seeded_at": v.seeded_at.isoformat()} for v in versions],
                "packaged_catalog_sha256": catalog_data_sha256(),
                "counts": {
                    "sources": count(SourceRow), "offers": count(OfferRow), "price_history": count(PriceRow),
                    "imports": count(ImportRow), "saved_plans": count(SavedPlanRow), "bench_results": count(BenchResultRow),
                },
            }

    def dispose(self) -> None:
        self.engine.dispose()


def open_store(url: str | None = None) -> Store:
    """A ready store: migrated to the newest schema and seeded with the packaged catalog."""
    st = Store(url)
    st.upgrade()
    st.seed()
    return st


__all__ += ["OfferImportError", "RowError"]
