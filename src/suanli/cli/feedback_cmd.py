"""`suanli bench compare` (measured beside estimated) and `suanli calibrate` (measured efficiency → estimates)."""

from __future__ import annotations

from typing import Annotated

import typer

from suanli.catalog.load import packaged_catalog
from suanli.cli.output import col_headers, console, emit_json, emit_rows, err_console, say, tr
from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["register"]


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
        if not results:
            raise InputError("result", f"no stored results in {st.root}; run `suanli bench run` first",
                             Message("error.no_results", root=str(st.root)))
        r = st.get(result) if result else max(results, key=lambda x: x.created_at)
        cat = packaged_catalog()
        e, rows = compare_result(cat, r, load_calibration())
        roof = compare_basis(cat, r)[2]  # a tf32 run: compared with the TF32 roof, said here
        if json_:
            emit_json({"result": r.id, "device": e.device.id, "rows": rows,
                       "roof": say(roof) if roof else None,
                       "efficiency": [x.model_dump() for x in (e.inference.efficiencies if e.inference else [])]})
            return
        console.print(tr("cli.fb.result", id=r.id, model=r.model.name, device_name=r.backend.device_name,
                         device=e.device.id, precision=r.config.precision, batch=r.config.batch,
                         input=r.config.input_tokens, output=r.config.output_tokens))
        if roof:
            console.print(say(roof), highlight=False)
        cols = ["metric", "measured", "estimated", "error_pct"]
        emit_rows([x.model_dump() for x in rows], cols, title=tr("cli.fb.title"), headers=col_headers(cols, "fb.col"))
        for x in e.inference.efficiencies if e.inference else []:
            console.print(tr("cli.fb.efficiency", metric=x.metric, value=x.value, source=x.source), highlight=False)

    @app.command("calibrate")
    def calibrate_cmd(
        device: Annotated[str | None, typer.Option(help="only results of this device (catalog id or host-…)")] = None,
        store: Annotated[str | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Fit efficiency factors per device from stored benchmark results; later estimates use them."""
        from suanli.bench.feedback import calibrate_results, compare_result, load_calibration, save_calibration
        from suanli.bench.results import ResultStore

        st = ResultStore(store)
        cat = packaged_catalog()
        results = [r for r in st.results() if r.accuracy is None or r.accuracy.passed]
        if not results:
            raise InputError("store", f"no usable results in {st.root}; run `suanli bench run` first",
                             Message("error.no_usable_results", root=str(st.root)))
        rejected: list[str] = []
        factors = calibrate_results(cat, results, rejected)
        for line in rejected:  # on stderr, so that --json stays one JSON document on stdout
            err_console.print(f"[yellow]{tr('cli.fb.not_used')}[/yellow] {line}", highlight=False)
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
            emit_json({"path": str(path), "factors": factors, "rejected": rejected, "before": before, "after": after})
            return
        emit_rows([{"device": f.device, "metric": f.metric, "precision": f.precision, "engine": f.engine,
                    "value": f.value, "source": f.source} for f in factors],
                  ["device", "metric", "precision", "engine", "value", "source"], title=f"Calibrated factors → {path}")
        emit_rows([{"metric": b.metric, "measured": b.measured, "estimate before": b.estimated,
                    "estimate after": a.estimated, "error after %": a.error_pct} for b, a in zip(before, after)],
                  ["metric", "measured", "estimate before", "estimate after", "error after %"],
                  title=f"Next estimate for result {newest.id} changes")
