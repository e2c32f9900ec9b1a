"""Catalog commands: gpus, gpu, models, model, offers.

No `from __future__ import annotations`: typer reads the options from the annotations, built once as objects
(`estimate_cmd`'s docstring)."""

from typing import Annotated, Any

import typer

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Offer
from suanli.cli.output import Format, console, echo, emit_json, emit_rows, list_sep
from suanli.errors import InputError, NotFoundError, echoed
from suanli.i18n import Message
from suanli.views.catalog import (
    GPU_COLUMNS,
    SPEC_COLUMNS,
    accelerator_detail,
    accelerator_row,
    model_detail,
    select_accelerators,
    sources_of,
)
from suanli.views.files import load_model_arg

__all__ = ["accelerator_detail", "accelerator_row", "load_model_arg", "offers_app", "register"]

# the catalog queries and views live in suanli.views (shared with the API); re-exported for the CLI modules
offers_app = typer.Typer(help="Rental offers: list them, or import your own (CSV/YAML).")


def register(app: typer.Typer) -> None:
    app.add_typer(offers_app, name="offers")

    @app.command()
    def gpus(
        vendor: Annotated[str | None, typer.Option(help="nvidia, huawei, hygon, cambricon, metax, …")] = None,
        market: Annotated[str, typer.Option(help="all, domestic (Chinese vendors, 信创) or foreign")] = "all",
        min_memory_gib: Annotated[float, typer.Option(help="only devices with at least this much memory")] = 0,
        sort: Annotated[str, typer.Option(help="column to sort by (descending for numbers)")] = "id",
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
        csv: Annotated[bool, typer.Option("--csv", help="print CSV")] = False,
    ) -> None:
        """List accelerators with their default specs (every value has a source: see `suanli gpu NAME`)."""
        cat = packaged_catalog()
        accs = select_accelerators(cat, vendor, market, min_memory_gib, sort, flag_names=True)
        rows = [accelerator_row(a) for a in accs]
        if json_:
            emit_json([{**r, "sources": sources_of(a)} for r, a in zip(rows, accs)])
            return
        if csv:
            emit_rows(rows, GPU_COLUMNS, Format.csv)
            return
        from suanli.cli.output import col_headers, tr

        table_cols = ["id", *[c for c in SPEC_COLUMNS if c not in ("fp16_sparse_tflops", "bf16_dense_tflops")]]
        emit_rows(rows, table_cols, Format.table, title=tr("cli.gpus.title"), headers=col_headers(table_cols, "gpus.col"))

    @app.command()
    def gpu(
        name: Annotated[str, typer.Argument(help="accelerator id or alias, e.g. h100, 910b, rtx-4090")],
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Every field of one accelerator with its source, the conflicts between sources, and its variants."""
        cat = packaged_catalog()
        a = lookup.accelerator(cat, name)
        d = accelerator_detail(cat, a)
        if json_:
            emit_json(d)
            return
        from suanli.cli.output import display_name, display_note, lang
        from suanli.i18n import t

        lg = lang()
        echo(t("cli.gpu.header", lg, name=f"[bold]{display_name(a)}[/bold]", id=a.id, vendor=a.vendor,
               family=a.family, segment=t(f"segment.{a.segment}", lg),
               form_factor=t(f"form_factor.{a.form_factor}", lg)))
        stack = next((s for s in cat.stacks if s.id == a.stack), None)
        echo(t("cli.gpu.facts", lg, stack=display_name(stack) if stack else a.stack,
               memory=a.memory_type or t("cli.gpu.not_published", lg),
               interconnect=display_note(a, "interconnect_name") or a.interconnect))
        if a.china_market is not None:
            market = a.china_market_zh if lg == "zh" and a.china_market_zh else a.china_market.value
            echo(t("cli.gpu.market", lg, value=market)
                 + f" [dim]({a.china_market.chosen.source})[/dim]")
        if d["variants"]:
            echo(t("cli.gpu.variants", lg, names=list_sep().join(d["variants"])))
        rows = []
        alts = {f: getattr(a.specs, f) for f in d["specs"]}
        for f, v in d["specs"].items():
            for s, src in zip(v["sources"], alts[f].values):
                rows.append(
                    {
                        "field": t("spec." + f, lg) if s["default"] else "",  # 显存带宽（GB/s） in Chinese
                        "value": s["value"],
                        # one-cell marker so that the note keeps its room at 80 columns (words whole)
                        "default": "*" if s["default"] else ("≠" if v["conflict"] and s["value"] != v["value"] else ""),
                        "source": s["source"],
                        "date": s.get("date"),
                        "note": display_note(src),  # note_zh in Chinese output
                    }
                )
        cols = ["field", "value", "default", "source", "date", "note"]
        emit_rows(rows, cols, headers={**{c: t("col." + c, lg) for c in cols}, "default": ""},
                  title=t("cli.gpu.specs_title", lg))
        if d["conflicts"]:
            echo("[yellow]" + t("cli.gpu.disagree", lg, fields=list_sep().join(t("spec." + c, lg) for c in d["conflicts"]))
                 + "[/yellow]")
        for n in display_note(a, "notes"):
            echo(t("cli.gpu.note", lg, note=n))

    @app.command()
    def models(
        family: Annotated[str | None, typer.Option(help="only this family, e.g. qwen2 (Qwen2 and Qwen2.5), qwen3, llama")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
        csv: Annotated[bool, typer.Option("--csv", help="print CSV")] = False,
    ) -> None:
        """List model presets (Hugging Face ids; look-up is case-insensitive, organisation optional)."""
        from suanli.estimate.params import param_count

        cat = packaged_catalog()
        families = sorted({m.family for m in cat.models})
        if family and family.lower() not in {f.lower() for f in families}:  # said, not an empty table (review C)
            from suanli.errors import NotFoundError

            raise NotFoundError("family", family, families, kind="family")
        rows = []
        for m in cat.models:
            if family and m.family.lower() != family.lower():
                continue
            p = param_count(m)
            rows.append(
                {
                    "id": m.id,
                    "aliases": list(m.aliases),
                    "family": m.family,
                    "kind": m.kind,
                    "params_b": round(p.total / 1e9, 3),
                    "active_params_b": round(p.active / 1e9, 3),
                    "layers": m.num_layers,
                    "hidden": m.hidden_size,
                    "kv_heads": m.num_key_value_heads,
                    "max_context": m.max_context,
                    "moe": m.moe is not None,
                    "mla": m.mla is not None,
                }
            )
        cols = ["id", "family", "kind", "params_b", "active_params_b", "layers", "hidden", "kv_heads", "max_context"]
        fmt = Format.json if json_ else Format.csv if csv else Format.table
        if fmt is Format.table:
            from suanli.cli.output import col_headers, tr

            table_cols = ["id", "params_b", "active_params_b", "layers", "kv_heads", "max_context"]
            emit_rows(rows, table_cols, fmt, title=tr("cli.models.title"), headers=col_headers(table_cols, "models.col"))
            return
        emit_rows(rows, ["aliases", *cols] if fmt is Format.json else cols, fmt)

    @app.command()
    def model(
        name: Annotated[str, typer.Argument(help="preset (HF id or alias) or path to a config.json")],
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Architecture and parameter breakdown of one model (`params`, and `active_params` for MoE)."""
        from suanli.estimate.params import param_count

        cat = packaged_catalog()
        m = load_model_arg(cat, name)
        p = param_count(m)
        d = model_detail(m)
        if json_:
            emit_json(d)
            return
        from suanli.cli.output import col_headers, tr

        console.print(f"[bold]{m.id}[/bold] ({m.family}, {m.kind})")
        echo(tr("cli.model.params", b=p.total / 1e9) + (tr("cli.model.active", b=p.active / 1e9) if p.active != p.total else ""))
        rows = [{"part": k, "params": v} for k, v in p.model_dump().items() if isinstance(v, int)]
        emit_rows(rows, ["part", "params"], title=tr("cli.model.params_title"), headers=col_headers(["part", "params"]))
        arch = {k: v for k, v in d["architecture"].items() if not isinstance(v, dict | list) and k not in ("id",)}
        emit_rows([{"field": k, "value": v} for k, v in arch.items()], ["field", "value"], title=tr("cli.model.arch_title"),
                  headers=col_headers(["field", "value"]))

    @offers_app.callback(invoke_without_command=True)
    def offers(
        ctx: typer.Context,
        device: Annotated[str | None, typer.Option(help="accelerator id or alias")] = None,
        provider: Annotated[str | None, typer.Option(help="provider name (substring, case-insensitive)")] = None,
        billing_unit: Annotated[str | None, typer.Option(help="second, minute, hour, day, week, month, year")] = None,
        region: Annotated[str, typer.Option(help="cn, any, international (default: any, to list everything)")] = "any",
        offer_kinds: Annotated[str, typer.Option("--offer-kinds", help="listing, index, reference, contract (comma-separated) or all; listing takes your imported contract prices too")] = "all",
        stale: Annotated[bool, typer.Option("--stale", help="only prices older than --stale-months")] = False,
        stale_months: Annotated[float, typer.Option(help="age in months after which a price is stale")] = 12.0,
        limit: Annotated[int, typer.Option(help="rows to show (0: all)")] = 50,
        offset: Annotated[int, typer.Option(help="rows to skip (paging)")] = 0,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
        csv: Annotated[bool, typer.Option("--csv", help="print CSV")] = False,
    ) -> None:
        """List rental offers (CNY per instance per billing unit) with their kind, region, date and source;
        `--stale` lists prices older than 12 months; `suanli offers import FILE` adds your own."""
        if ctx.invoked_subcommand is not None:
            return
        from suanli.catalog import offers as offer_q
        from suanli.cli.context import as_of, planning_catalog

        if limit < 0 or offset < 0:
            raise InputError("limit" if limit < 0 else "offset", Message("err.must_be_or_more"))
        from suanli.views.bounds import check_stale_months

        check_stale_months(stale_months, flags=True)  # as the API's stale_months: (0, 1200]
        reg, kinds = offer_q.parse_region(region), offer_q.parse_kinds(offer_kinds)
        cat = planning_catalog()
        try:
            dev = lookup.accelerator(cat, device).id if device else None
        except NotFoundError as e:  # the catalog names its `gpu`; this command's flag is --device
            raise InputError("device", str(e).removeprefix(f"{e.field}: "), e.i18n) from None
        units = ("second", "minute", "hour", "day", "week", "month", "year")
        if billing_unit is not None and billing_unit not in units:
            raise InputError("billing-unit", Message("err.is_not_one_of", value=echoed(billing_unit), allowed=', '.join(units)))
        today = as_of()  # SUANLI_TODAY too: the date every cost answer judges freshness on
        # a generic device's offers, then its variants' (--device 910b: the 910B2 and 910B3 quotes too, each
        # labelled by its device); a variant (910b3) is itself alone: lookup.family_ids, as GET /api/offers
        devs = lookup.family_ids(cat, dev) if dev else None
        sel: list[Offer] = sorted(
            (o for o in offer_q.usable_offers(cat, reg, kinds, billing_unit)
             if (devs is None or o.device in devs) and (provider is None or provider.lower() in o.provider.lower())),
            key=lambda o: devs.index(o.device) if devs else 0)
        if stale:
            sel = offer_q.stale_offers(sel, today, stale_months)
        total = len(sel)
        page = sel[offset:offset + limit] if limit else sel[offset:]
        from suanli.views.catalog import offer_row

        rows = [offer_row(o, today, stale_months) for o in page]
        cols = list(rows[0]) if rows else ["id", "provider", "device", "cards", "billing_unit", "price_cny"]
        if json_ or csv:
            emit_rows(rows, cols, Format.json if json_ else Format.csv)
            return
        from suanli.cli.output import col_headers, label, tr

        cols = ["provider", "device", "cards", "billing_unit", "price_cny", "kind", "region", "date"]
        from suanli.cli.output import Price, display_note, lang

        # a price older than --stale-months marked in its date cell, as plan warns of it (`offer_row`'s `stale`: the
        # one freshness rule; --json and --csv carry it as the field)
        shown = [{**r, "provider": display_note(o, "provider"), "billing_unit": tr(f"billing_unit.{r['billing_unit']}"),
                  # to the fen (¥2.00, not "2"), a month's in whole yuan (¥15,000): offers.price_decimals
                  "price_cny": Price(r["price_cny"], offer_q.price_decimals(r["billing_unit"])),
                  "kind": tr(f"price_kind.{r['kind']}"),
                  "date": tr("cli.offers.date_stale", date=r["date"]) if r["stale"] else r["date"]}
                 for r, o in zip(rows, page)]
        emit_rows(shown, cols, Format.table, title=tr("cli.offers.title", first=offset + 1 if rows else 0,
                                                      last=offset + len(rows), total=total),
                  headers=col_headers(cols, "offers.col"))
        if any(r["stale"] for r in rows):
            echo("[dim]" + tr("cli.offers.stale_note", months=stale_months) + "[/dim]")
        if dev:
            # not when the device has a listing among the usable offers (an imported one too): the note explains none
            note = offer_q.unpriced_reason(cat, dev, lang(), offer_q.usable_offers(cat, reg, ("listing",), None, dev))
            if note:
                echo(f"[yellow]{label('cli.label.unpriced')}[/]" + tr("cli.named", name=dev, text=note))
            gap = offer_q.multi_node_gap(cat, dev, offer_q.usable_offers(cat, reg, kinds, None, dev), lang())
            if gap:
                echo(f"[yellow]{label('cli.label.multi_node')}[/]" + tr("cli.named", name=dev, text=gap))
        if total > offset + len(rows):
            echo("[dim]" + tr("cli.offers.more", n=total - offset - len(rows), offset=offset + len(rows)) + "[/dim]")

    @offers_app.command("rollback")
    def offers_rollback(
        import_id: Annotated[int, typer.Argument(help="the import id `suanli offers import` printed (see `suanli offers imports`)")],
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Remove exactly the prices one import added; they stay in the price history, marked rolled back."""
        from suanli.store import open_store

        from suanli.cli.output import tr

        r = open_store().rollback_import(import_id, via="cli")
        if json_:
            emit_json(r)
            return
        echo(tr("cli.import.rolled_back", id=r["import_id"], filename=r["filename"],
                n=r["prices_rolled_back"], at=r["rolled_back_at"]))

    @offers_app.command("imports")
    def offers_imports(json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False) -> None:
        """Every offers import with its id, rows, new prices, whether it was forced and when it was rolled back."""
        from suanli.store import open_store

        from suanli.cli.output import col_headers, tr

        rows = open_store().imports()
        if json_:
            emit_json(rows)
            return
        cols = ["id", "filename", "rows", "new_prices", "via", "imported_at", "forced", "rolled_back_at"]

        def minute(at: Any) -> Any:  # 2026-12-01T10:47:23 -> 2026-12-01 10:47: wraps at its space (--json: whole)
            return at[:16].replace("T", " ") if isinstance(at, str) else at

        shown = [{**r, "imported_at": minute(r.get("imported_at")), "rolled_back_at": minute(r.get("rolled_back_at"))}
                 for r in rows]
        emit_rows(shown, cols, title=tr("cli.imports.title"), headers=col_headers(cols, "imports.col"),
                  drop_first=("via",), keep_always=("imported_at",))
