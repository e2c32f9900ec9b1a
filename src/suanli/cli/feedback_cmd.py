"""`suanli bench compare` (measured beside estimated) and `suanli calibrate` (measured efficiency → estimates)."""

from __future__ import annotations

from typing import Annotated

import typer

from suanli.catalog.load import packaged_catalog
from suanli.cli.output import col_headers, console, emit_json, emit_rows, err_console, label, say, tr
from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["register"]

_MEMORY = "peak_memory_bytes ("


def _metric_label(metric: str) -> str:
    """A comparison row's metric in this run's language (English: the row's own key, as --json names it)."""
    if metric.startswith(_MEMORY) and metric.endswith(")"):
        return tr("fb.metric.peak_memory_bytes", memory_kind=metric[len(_MEMORY):-1])
    return tr(f"fb.metric.{metric}")


def _table_rows(rows: list, error_key: str = "error_pct") -> list[dict]:
    """Rows for the table: metrics named in the run's language; a row that is not comparable (process RSS
    beside the tensor estimate) says so where the error would be."""
    return [{**x.model_dump(), "metric": _metric_label(x.metric),
             error_key: x.error_pct if x.comparable else tr("cli.fb.not_comparable")} for x in rows]


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    @bench_app.command("compare")
    def compare_cmd(
        result: Annotated[str | None, typer.Argument(help="result id (prefix); default: the newest")] = None,
        store: Annotated[str | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """A stored benchmark beside the estimate for the same configuration, with the error."""
        from suanli.bench.feedback import compare_basis, compare_result, load_calibration
        from suanli.bench.results import ResultStore

        st = ResultStore(store)
        results = st.results()
        for bad in st.refused:  # refused at load (unreadable, NaN or Infinity): never compared; on stderr
            from rich.markup import escape

            err_console.print(f"[yellow]{label('cli.bench.skipped')}[/yellow]{escape(say(bad))}", highlight=False)
        if not results:
            raise InputError("result", f"no stored results in {st.root}; run `suanli bench run` first",
                             Message("error.no_results", root=str(st.root)))
        r = st.get(result) if result else max(results, key=lambda x: x.created_at)
        cat = packaged_catalog()
        e, rows = compare_result(cat, r, load_calibration())
        roof = compare_basis(cat, r)[2]  # a tf32 run: compared with the TF32 roof, said here
        if json_:
            emit_json({"result": r.id, "device": e.device.id, "rows": [x.model_dump() for x in rows],  # error null
                       "roof": say(roof) if roof else None,
                       "efficiency": [x.model_dump() for x in (e.inference.efficiencies if e.inference else [])]})
            return
        console.print(tr("cli.fb.result", id=r.id, model=r.model.name, device_name=r.backend.device_name,
                         device=e.device.id, precision=r.config.precision, batch=r.config.batch,
                         input=r.config.input_tokens, output=r.config.output_tokens))
        if roof:
            console.print(say(roof), highlight=False)
        cols = ["metric", "measured", "estimated", "error_pct"]
        emit_rows(_table_rows(rows), cols, title=tr("cli.fb.title"), headers=col_headers(cols, "fb.col"))
        for x in e.inference.efficiencies if e.inference else []:
            said = Message.from_json(x.provenance_i18n) if x.provenance_i18n else x.source  # efficiency.basis
            console.print(tr("cli.fb.efficiency", metric=x.metric, value=x.value, source=say(said)), highlight=False)

    @app.command("calibrate")
    def calibrate_cmd(
        device: Annotated[str | None, typer.Option(help="only results of this device (catalog id or host-…)")] = None,
        store: Annotated[str | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Fit efficiency factors per device from stored benchmark results; later estimates use them."""
        from suanli.bench.feedback import (
            calibrate_results,
            compare_result,
            load_calibration,
            micro_spread_warnings,
            save_calibration,
        )
        from suanli.bench.results import ResultStore

        st = ResultStore(store)
        cat = packaged_catalog()
        # all or nothing: a stored file that is refused (unreadable, NaN or Infinity) stops the fit, named
        results = [r for r in st.results(strict=True) if r.accuracy is None or r.accuracy.passed]
        if not results:
            raise InputError("store", f"no usable results in {st.root}; run `suanli bench run` first",
                             Message("error.no_usable_results", root=str(st.root)))
        # runs of one host and device whose microbenchmarks disagree beyond MICRO_SPREAD_LIMIT: said before the fit
        warnings = micro_spread_warnings(results, device)
        for w in warnings:  # on stderr, so that --json stays one JSON document on stdout
            err_console.print(f"[yellow]{label('cli.cal.warning')}[/yellow]{say(w)}", highlight=False)
        rejected: list[str] = []
        rejected_i18n: list[Message] = []
        factors = calibrate_results(cat, results, rejected, rejected_i18n)
        for msg in rejected_i18n:
            err_console.print(f"[yellow]{label('cli.fb.not_used')}[/yellow]{say(msg)}", highlight=False)
        if device:
            factors = [f for f in factors if f.device == device]
            if not factors:
                raise InputError("device", f"no results for {device!r}", Message("error.no_device_results", device=repr(device)))
        # the newest result that has a throughput to compare (created_at is to the second: a suite imports
        # several results at once, and microbenchmark-only ones have nothing to show before/after)
        timed = [r for r in results if r.throughput is not None] or results
        newest = max(timed, key=lambda x: (x.created_at, x.id))
        before = compare_result(cat, newest, load_calibration())[1]
        path = save_calibration(factors)
        after = compare_result(cat, newest, load_calibration())[1]
        if json_:
            emit_json({"path": str(path), "factors": factors, "rejected": rejected,
                       "warnings": [say(w) for w in warnings],
                       "before": [x.model_dump() for x in before], "after": [x.model_dump() for x in after]})
            return
        cols = ["device", "metric", "precision", "engine", "value", "source"]
        emit_rows([{"device": f.device, "metric": f.metric, "precision": f.precision, "engine": f.engine,
                    "value": f.value, "source": f.source} for f in factors],
                  cols, title=tr("cli.cal.title", path=str(path)), headers=col_headers(cols, "cal.col"))
        cols = ["metric", "measured", "estimate before", "estimate after", "error after %"]
        shown = _table_rows(after, "error after %")
        emit_rows([{"metric": s["metric"], "measured": b.measured, "estimate before": b.estimated,
                    "estimate after": a.estimated, "error after %": s["error after %"]}
                   for b, a, s in zip(before, after, shown)],
                  cols, title=tr("cli.cal.next", id=newest.id), headers=col_headers(cols, "cal.col"))
