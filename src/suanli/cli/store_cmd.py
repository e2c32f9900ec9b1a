"""Store commands: `suanli db upgrade|info` and the offers import (`import_offers_cmd`, mounted as
`suanli offers import FILE`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from suanli.cli.output import col_headers, console, emit_json, emit_rows, label, say_json, tr

__all__ = ["db_app", "import_offers_cmd", "register", "show_saved_plan"]

db_app = typer.Typer(no_args_is_help=True, help="The local database (SQLite by default; SUANLI_DATABASE_URL for PostgreSQL).")


def import_offers_cmd(
    file: Annotated[str, typer.Argument(help="CSV, YAML or JSON offers file (columns/fields as in the catalog's offers)")],
    force: Annotated[bool, typer.Option("--force", help="accept prices outside the device's plausibility band")] = False,
    json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Import rental offers: every row is validated first, then all are written in one transaction or none.
    Prices are added to the history (never overwritten); importing the same file twice changes nothing.
    A price outside 1/5×–5× its device's median per card-hour is refused unless --force; the import id it prints
    is what `suanli offers rollback` takes. A row without `kind` is your contract price (a quote or negotiated price:
    priced as listings are, never in the band); a `listing` row needs its `url`; rows over 12 months old are warned."""
    from suanli.store import open_store

    r = open_store().import_offers(file, via="cli", force=force)
    if json_:
        emit_json(dict(r))
        return
    console.print(tr("cli.import.done", file=r["file"], rows=r["rows"], new_prices=r["new_prices"],
                     unchanged=r["unchanged"], new_offers=r["new_offers"], new_sources=r["new_sources"],
                     rollback=tr("cli.import.id", id=r["import_id"]) if r.get("import_id") else ""),
                  highlight=False)
    if r.get("stale_warning"):  # rows older than 12 months: written, warned as answers warn
        console.print(f"[yellow]{label('cli.label.warning')}[/]{say_json(r.get('stale_warning_i18n'), r['stale_warning'])}",
                      highlight=False)


@db_app.command("upgrade")
def db_upgrade(json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """Create or migrate the schema to the newest revision and seed the packaged catalog (idempotent)."""
    from suanli.store import open_store

    st = open_store()
    info = st.info()
    if json_:
        emit_json({"revision": info["revision"], "catalog_version_id": st.catalog_version_id, "url": info["url"]})
    else:
        console.print(tr("cli.db.upgraded", url=info["url"], revision=info["revision"], version=st.catalog_version_id),
                      highlight=False)


@db_app.command("info")
def db_info(json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
    """Where the database is, its schema revision, catalog versions and row counts."""
    from suanli.store import open_store

    info = open_store().info()
    if json_:
        emit_json(info)
        return
    console.print(tr("cli.db.info", url=info["url"], dialect=info["dialect"], revision=info["revision"], head=info["head"]),
                  highlight=False)
    cur = info["catalog_versions"][-1] if info["catalog_versions"] else None
    if cur:
        console.print(tr("cli.db.catalog", id=cur["id"], sha=cur["data_sha256"][:12], at=cur["seeded_at"]), highlight=False)
    emit_rows([{"table": k, "rows": v} for k, v in info["counts"].items()], ["table", "rows"], title=tr("cli.db.rows"),
              headers=col_headers(["table", "rows"], "db.col"))


def show_saved_plan(rec: dict[str, Any]) -> None:
    """`suanli plans --show ID`: a saved plan as `suanli plan` prints it (tables, reasons, warnings, why-not,
    assumptions in the run's language), under one line naming the saved plan. A record the current planner
    cannot read back (saved by an older version) is printed as JSON with a note."""
    from pydantic import ValidationError

    from suanli.plan.request import PlanRequest
    from suanli.plan.search import Plan, PlanResult

    res = rec.get("result") or {}
    console.print("[dim]" + tr("cli.plans.show_head", id=rec.get("id"), name=rec.get("name") or "",
                               at=str(rec.get("created_at", ""))[:16], version=rec.get("catalog_version_id")) + "[/dim]",
                  highlight=False)
    try:
        known = set(Plan.model_fields)
        r = PlanResult(
            request=PlanRequest.model_validate(res.get("request") or rec.get("request") or {}),
            model_id=res.get("model") or rec.get("model"),
            plans=[Plan.model_validate({k: v for k, v in p.items() if k in known}) for p in res.get("plans", [])],
            **{k: res[k] for k in ("pareto", "why_not", "configurations_evaluated", "search_seconds", "relax",
                                   "relax_i18n", "assumptions", "assumptions_i18n") if k in res},
        )
    except (ValidationError, TypeError):
        console.print(f"[yellow]{tr('cli.plans.old')}[/yellow]")
        emit_json(rec)
        return
    from suanli.cli.plan_cmd import render_plan

    render_plan(r)


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")
