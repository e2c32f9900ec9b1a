"""`suanli validate`: the estimators' error against measurements, default and seed methods side by side."""

from __future__ import annotations

from typing import Annotated

import typer

from suanli.catalog.load import packaged_catalog
from suanli.cli.output import console, emit_json, emit_rows
from suanli.validate.bands import packaged_error_bands, write_error_bands
from suanli.validate.report import GROUPS, run_validation, seed_scaling_claims, summarize

__all__ = ["register"]

TARGETS_PCT = {
    "inference-memory": 10.0,
    "training-memory": 10.0,
    "decode-speed": 20.0,
    "prefill-speed": 20.0,
    "training-throughput": 20.0,
    "diffusion-speed": 20.0,
}


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate_cmd(
        cases: Annotated[bool, typer.Option("--cases", help="print every case with both methods' errors")] = False,
        group: Annotated[str | None, typer.Option(help="only this group")] = None,
        write: Annotated[bool, typer.Option("--write", help="store the error bands that estimates quote")] = False,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Median and p90 |error| of every estimator against published and project measurements."""
        results, skipped = run_validation(packaged_catalog())
        if group:
            results = [r for r in results if r.group == group]
        bands = summarize(results)
        claims = seed_scaling_claims(packaged_catalog())
        if json_:
            emit_json({"bands": bands, "cases": results, "skipped": skipped, "targets_pct": TARGETS_PCT,
                       "seed_scaling_claims": claims})
        else:
            rows = []
            for g in GROUPS:
                d, s = bands[g], bands[f"seed:{g}"]
                if d.cases == 0 and s.cases == 0:
                    continue
                met = d.median_abs_pct is not None and d.median_abs_pct <= TARGETS_PCT[g]
                h = bands.get(f"holdout:{g}")

                def pct(x: float | None) -> str:
                    return "" if x is None else f"{x:.1f}"

                rows.append({
                    "group": g,
                    "n": d.cases,
                    "median": pct(d.median_abs_pct),
                    "p90": pct(d.p90_abs_pct),
                    "holdout": f"{h.median_abs_pct:.1f} ({h.cases})" if h and h.median_abs_pct is not None else "",
                    "seed": pct(s.median_abs_pct),
                    "target": f"{TARGETS_PCT[g]:.0f}",
                    "met": "yes" if met else "NO",
                })
            emit_rows(rows, list(rows[0]) if rows else ["group"], title="Validation: median and p90 |estimate − measured| / measured, %; holdout: out-of-sample cases; seed: the articles' method")
            if cases:
                crow = [
                    {
                        "case": r.id, "group": r.group, "metric": r.metric, "measured": r.measured,
                        "default": r.default, "err %": None if r.default_error is None else 100 * r.default_error,
                        "seed": r.seed, "seed err %": None if r.seed_error is None else 100 * r.seed_error,
                    }
                    for r in results
                ]
                emit_rows(crow, list(crow[0]) if crow else ["case"], title="Cases")
            emit_rows(
                [{"claim": c.claim, "case": c.case, "model says": f"{c.value:.1%}",
                  "holds": "yes" if c.holds else "no", "why": c.explanation} for c in claims],
                ["claim", "case", "model says", "holds", "why"], title="The seeds' scaling claims, derived")
            for line in skipped:
                console.print(f"[yellow]skipped[/yellow] {line}", highlight=False)
        if write:
            write_error_bands(bands, "suanli validate --write")
            packaged_error_bands.cache_clear()
