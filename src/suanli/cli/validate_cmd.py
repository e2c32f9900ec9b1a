"""`suanli validate`: the estimators' error against measurements, in-sample beside out-of-sample, and the
seeds' method beside the default one."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from suanli.catalog.load import packaged_catalog
from suanli.cli.output import col_headers, console, emit_json, emit_rows, list_sep, say_json, tr
from suanli.validate.bands import packaged_error_bands, write_error_bands
from suanli.validate.measured import measured_cases, measured_summary
from suanli.validate.report import (
    MIN_OUT_OF_SAMPLE,
    TARGETS_PCT,
    DEVELOPMENT_SET,
    FIT_SET,
    CaseResult,
    ClaimCheck,
    GroupSummary,
    group_summaries,
    run_validation,
    seed_scaling_claims,
    source_summaries,
    summarize,
)

__all__ = ["TARGETS_PCT", "markdown_table", "register"]


def _pct(x: float | None) -> str:
    """A percentage to three figures (111 %, 41.1 %): a fourth digit widened the table past 80 columns."""
    return "" if x is None else f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}"


def _rows(summaries: list[GroupSummary]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for s in summaries:
        o = s.out_of_sample
        rows.append({
            "group": s.group,
            "in n": s.in_sample.cases,
            "in median": _pct(s.in_sample.median_abs_pct),
            "in p90": _pct(s.in_sample.p90_abs_pct),
            "out n": o.cases if o else 0,
            "out median": _pct(o.median_abs_pct) if o else "—",
            "out p90": _pct(o.p90_abs_pct) if o else "—",
            "seed median": _pct(s.seed.median_abs_pct),
            "target": f"{s.target_median_pct:.0f} / {s.target_p90_pct:.0f}",
            "met": tr(f"val.met.{s.met}"),  # yes / no / in-sample only in the run's language
        })
    return rows


def _group(group: str) -> str:
    """A validation group as the tables name it: its band name in this run's language (`band.<group>`: 推理显存 for
    inference-memory); the id itself in English, in --json and --markdown."""
    from suanli.cli.output import lang
    from suanli.i18n import messages

    return messages(lang()).get(f"band.{group}", group)


def _metric(metric: str) -> str:
    """A case's measured quantity in this run's language (`val.metric.<id>`: 显存（字节）for memory_bytes); the id
    where the catalog has none. English shows the ids as before."""
    from suanli.cli.output import lang
    from suanli.i18n import messages

    return messages(lang()).get(f"val.metric.{metric}", metric)


def _sample_text(r: CaseResult) -> str:
    """The case's sample in the run's language: development-set / fit-set named, fitted factor ids as they are."""
    if r.sample == "out":
        return tr("val.sample.out")
    names = [tr(f"val.fitted.{f}") if f in (DEVELOPMENT_SET, FIT_SET) else f for f in r.fitted]
    return tr("val.sample.in", fitted=list_sep().join(names))


def _physics(group: str | None, json_: bool) -> None:
    """`--physics`: every speed case's measurements against the fastest its encoding allows (validate.physics); the
    ones that beat it, the widest margin first, or one line naming the closest."""
    from suanli.validate.physics import beats_physics, physics_checks
    from suanli.validate.report import load_cases

    checks, skipped = physics_checks(packaged_catalog(), load_cases())
    checks = [c for c in checks if group is None or c.group == group]
    beats = beats_physics(checks)
    if json_:
        emit_json({"checked": checks, "beats_physics": beats, "skipped": skipped})
        return
    if beats:
        cols = ["case", "group", "metric", "measured", "bound", "margin %"]
        emit_rows([{"case": c.id, "group": _group(c.group), "metric": _metric(c.metric), "measured": c.measured,
                    "bound": c.bound, "margin %": f"{100 * c.margin:+.1f}"} for c in beats],
                  cols, title=tr("cli.val.physics_title"), headers=col_headers(cols, "val.col"))
    elif checks:
        closest = max(checks, key=lambda c: c.margin)
        console.print(tr("cli.val.physics_none", n=len(checks), cases=len({c.id for c in checks}), case=closest.id,
                         pct=100 * (1 + closest.margin)), highlight=False)
    from rich.markup import escape

    for line in skipped:
        console.print(f"[yellow]{tr('cli.val.skipped')}[/yellow] {escape(line)}", highlight=False)


def markdown_table(summaries: list[GroupSummary]) -> str:
    """The summary as a Markdown table (the README block that scripts/update_readme_validation.py rewrites)."""
    rows = _rows(summaries)
    cols = list(rows[0]) if rows else ["group"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def register(app: typer.Typer) -> None:
    @app.command("validate")
    def validate_cmd(
        cases: Annotated[bool, typer.Option("--cases", help="print every case with its error and sample")] = False,
        group: Annotated[str | None, typer.Option(help="only this group")] = None,
        write: Annotated[bool, typer.Option("--write", help="store the error bands that estimates quote")] = False,
        json_: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
        markdown: Annotated[bool, typer.Option("--markdown", help="print the summary table as Markdown")] = False,
        by_source: Annotated[
            bool, typer.Option("--by-source", help="out-of-sample error per group and source, with its sign")
        ] = False,
        measured_dir: Annotated[
            Path | None, typer.Option(help="also the suanli-measured cases in this folder (`bench import --cases-dir`)")
        ] = None,
        physics: Annotated[bool, typer.Option(
            "--physics", help="list the cases whose measured speed beats the fastest their own encoding allows (peak "
                              "bandwidth and compute, no overhead)")] = False,
    ) -> None:
        """Median and p90 |error| of every estimator against published and project measurements.

        in: in-sample cases (a factor was fitted to them, or they were seen while the estimators were built);
        out: out-of-sample cases. "met" is judged on out-of-sample figures only, where a group has at least
        5 of them; otherwise it says "in-sample only".
        """
        if write and group:
            raise typer.BadParameter("--write stores every group's band; drop --group", param_hint="--write")
        if group is not None:
            from suanli.views.bounds import check_choice
            from suanli.validate.report import GROUPS

            check_choice("group", group, GROUPS, "err.unknown_validation_group")  # not every band at 0 cases
            if physics:  # a memory group has no speed to bound: said, not an empty answer
                from suanli.validate.physics import SPEED_GROUPS

                check_choice("group", group, SPEED_GROUPS, "err.physics_group")
        if physics:
            _physics(group, json_)
            return
        results, skipped = run_validation(packaged_catalog())
        # cases suanli measured itself on devices (bench suite + bench import): out-of-sample, own table below
        measured, measured_titles = measured_cases(packaged_catalog(), measured_dir)
        results, skipped = results + measured[0], skipped + measured[1]
        if group:
            results = [r for r in results if r.group == group]
        bands = summarize(results)
        summaries = group_summaries(bands)
        if markdown:
            sys.stdout.write(markdown_table(summaries))
        elif json_:
            emit_json({
                "bands": bands, "groups": summaries,
                "cases": [{**r.model_dump(), "sample_label": r.sample_label} for r in results],
                "skipped": skipped, "targets_pct": TARGETS_PCT, "min_out_of_sample": MIN_OUT_OF_SAMPLE,
                "measured_by_suanli": measured_summary(results, measured_titles),
                "seed_scaling_claims": seed_scaling_claims(packaged_catalog()),
                "by_source": source_summaries(results),
            })
        else:
            rows = [{**r, "group": _group(str(r["group"]))} for r in _rows(summaries)]
            cols = list(rows[0]) if rows else ["group"]
            # Chinese: a group's name whole (推理显存, not 推理显|存) before the seeds' median at 80 columns (English
            # output as it was: its ids break after their '-')
            from suanli.cli.output import lang

            emit_rows(rows, cols, title=tr("cli.val.title", n=MIN_OUT_OF_SAMPLE), headers=col_headers(cols, "val.col"),
                      drop_later=("seed median",) if lang() == "zh" else ())
            if cases:
                crow = [
                    {
                        "case": r.id, "group": _group(r.group), "sample": _sample_text(r),
                        "metric": _metric(r.metric),
                        "measured": r.measured, "default": r.default,
                        "err %": None if r.default_error is None else 100 * r.default_error,
                        "seed err %": None if r.seed_error is None else 100 * r.seed_error,
                        "engine": r.engine if r.engine_as is None else tr("val.engine_as", engine=r.engine,
                                                                             stand_in=r.engine_as),
                        # layout not stated by the source: the planner's fastest, scored instead of the defaults
                        **({"layout": say_json(r.layout_i18n, r.layout) if r.layout else ""}
                           if any(x.layout for x in results) else {}),
                    }
                    for r in results
                ]
                # at 80 columns the planner's layout, the engine and the seeds' error go first (named below)
                emit_rows(crow, list(crow[0]) if crow else ["case"], title=tr("cli.val.cases"),
                          headers=col_headers(list(crow[0]) if crow else ["case"], "val.col"),
                          drop_first=("layout", "engine", "seed err %"))
            if by_source:
                srows = [{"group": _group(s.group), "source": s.source, "out n": s.cases, "median": _pct(s.median_abs_pct),
                          "p90": _pct(s.p90_abs_pct), "signed median": f"{s.median_signed_pct:+.1f}"}
                         for s in source_summaries(results)]
                scols = ["group", "source", "out n", "median", "p90", "signed median"]
                # the title says out-of-sample: the count's header is short (“样本外 n” wrapped one character a line at 80 columns)
                emit_rows(srows, scols, title=tr("cli.val.by_source"),
                          headers={**col_headers(scols, "val.col"), "out n": tr("val.col.source_n")})
            if measured_titles:
                emit_rows([{**m.model_dump(), "group": _group(m.group), "median_abs_pct": _pct(m.median_abs_pct), "p90_abs_pct": _pct(m.p90_abs_pct)}
                           for m in measured_summary(results, measured_titles)],
                          ["measured_by", "group", "cases", "median_abs_pct", "p90_abs_pct"],
                          title=tr("cli.val.measured"),
                          headers=col_headers(["measured_by", "group", "cases", "median_abs_pct", "p90_abs_pct"],
                                              "val.col"))
            claims = seed_scaling_claims(packaged_catalog())
            # the "why" is a sentence: numbered under the table (as tco's notes), so claim and case keep their room
            whys: dict[str, int] = {}

            def why(c: ClaimCheck) -> str:
                text = say_json(c.explanation_i18n, c.explanation)
                return f"({whys.setdefault(text, len(whys) + 1)})"

            emit_rows(
                [{"claim": say_json(c.claim_i18n, c.claim), "case": say_json(c.case_i18n, c.case),
                  "model says": f"{c.value:.1%}", "holds": c.holds, "why": why(c)} for c in claims],
                ["claim", "case", "model says", "holds", "why"], title=tr("cli.val.claims"),
                headers=col_headers(["claim", "case", "model says", "holds", "why"], "val.col"))
            from rich.markup import escape

            for text, i in whys.items():
                console.print(escape(f"({i}) {text}"), highlight=False)
            for line in skipped:
                console.print(f"[yellow]{tr('cli.val.skipped')}[/yellow] {escape(line)}", highlight=False)
        if write:
            write_error_bands(bands, "suanli validate --write")
            packaged_error_bands.cache_clear()
