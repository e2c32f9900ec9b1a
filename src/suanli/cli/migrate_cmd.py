"""`suanli migrate check`: will this model run on Ascend? Offline operator coverage against torch_npu.

Mounted by the lead in cli/main.py as `app.add_typer(migrate_cmd.app, name="migrate")`.
"""

from __future__ import annotations

import typer

from suanli.cli.output import col_headers, echo, emit_json, emit_rows, label, lang, list_sep, say, say_json, tr
from suanli.errors import InputError, echoed
from suanli.i18n import Message
from suanli.migrate.check import CHECK_TASKS, as_downloaded, default_torch_npu_version, run_check
from suanli.migrate.coverage import CoverageReport, load_fused, summarize
from suanli.migrate.effort import list_use

__all__ = ["CHECK_TASKS", "app", "check", "default_torch_npu_version", "run_check"]

app = typer.Typer(
    name="migrate",
    help="Will a model run on Ascend? Offline operator coverage against torch_npu, adapted lists, effort.",
    no_args_is_help=True,
    add_completion=False,
)

_STATUS_STYLE = {
    "npu": "green",
    "composite": "cyan",
    "composite-fallback": "yellow",
    "cpu-fallback": "bold red",
    "non-aten": "bold magenta",
}


def _render(report: CoverageReport, wall_s: float) -> None:
    trace = report.trace
    say_id = tr
    title = say_id("cli.mig.check_title", model=report.model, task=say_id(f"cli.mig.task.{report.task}"),
                   version=report.torch_npu_version,
                   device=trace["device"], shrunk=say_id("cli.mig.shrunk") if trace.get("shrunk") else "")
    # the notes are sentences: numbered under the table (one number per distinct sentence, as tco does), so the
    # column holds only their numbers and the op names keep their width at 80 columns; no column without notes.
    # The table is every other table's (`emit_rows`): op names whole, never folded mid-name; at a narrow terminal
    # the fused replacement goes first (each fused API is also a line below the table), then the NPU kernels, both
    # named below it (--json has every column)
    footnotes: dict[str, int] = {}
    with_notes = any(r.note for r in report.ops)
    cols = ["op", "calls", "status", "NPU kernels", "fused replacement", *(("note",) if with_notes else ())]
    rows = [{"op": r.op, "calls": r.calls, "status": say_id(f"mig.status.{r.status}"), "NPU kernels": list_sep().join((r.impl_ns or "").split("+")),
             "fused replacement": r.fused or "",
             "note": f"({footnotes.setdefault(say_json(r.note_i18n, r.note), len(footnotes) + 1)})" if r.note else ""}
            for r in report.ops]
    emit_rows(rows, cols, title=title, headers=col_headers(cols, "mig.col"), keep_always=("calls", "status", "note"),
              drop_later=("fused replacement", "NPU kernels"),
              styles={"status": [_STATUS_STYLE.get(r.status, "") for r in report.ops]})
    from rich.markup import escape

    for text, i in footnotes.items():
        echo(escape(f"({i}) {text}"))
    colour = {"npu-native": "green", "cpu-fallback": "yellow", "needs-port": "red", "needs-check": "yellow"}[
        report.verdict]
    verdict = say_id("cli.mig.verdict", verdict=say_id(f"verdict.{report.verdict}"))
    echo(f"[bold {colour}]{verdict}[/] — {_verdict_text(report)}")
    if report.fallback_ops:
        echo(say_id("cli.mig.fallback") + list_sep().join(f"{k} ×{v}" for k, v in report.fallback_ops.items()))
    from suanli.cli.output import display_name, display_note

    fused_data = {f.id: f for f in load_fused()}  # the data rows carry replaces_zh (the report's JSON stays English)
    for f in report.fused:
        state = say_id("cli.mig.available") if f.available else say_id("cli.mig.not_in", version=report.torch_npu_version)
        replaces = display_note(fused_data[f.id], "replaces") if f.id in fused_data else f.replaces
        echo(say_id("cli.mig.fused", api=f.api, state=state, replaces=replaces) + f" [dim]({f.source})[/]")
    for a in report.adapted_lists:
        state = say_id({True: "cli.mig.listed", False: "cli.mig.not_listed", None: "cli.mig.list_unknown"}[a.listed])
        echo(say_id("cli.mig.adapted", name=display_name(a), state=state) + (f" [dim]({a.source})[/]" if a.source else ""))
    if report.adapted_match:  # what the look-up went by: the preset, or the config's architecture and dimensions
        echo("[dim]" + say_id("cli.mig.match", text=say_json(report.adapted_match_i18n,
                                                              report.adapted_match["text"])) + "[/dim]")
    basis = say_json(report.migration_basis_i18n, report.migration_basis)
    if report.migration_weeks:
        lo, hi = report.migration_weeks
        from suanli.plan.cost import MIGRATION_ENGINEERS

        n = MIGRATION_ENGINEERS  # one unit with migrate cost / plan: calendar weeks × engineers
        echo(say_id("mig.effort.check", lo=lo, hi=hi, n=n, plo=lo * n, phi=hi * n, basis=basis))
        echo("[dim]" + say_id("mig.effort.seed_reading") + "[/dim]")
    else:
        echo(say_id("cli.mig.effort", basis=basis))
    # the report's sentences in this run's language, from its messages (their English text where it has none)
    i18n = report.warnings_i18n if len(report.warnings_i18n) == len(report.warnings) else [None] * len(report.warnings)
    for w, m in zip(report.warnings, i18n):
        # escaped: the sentences end in "[kind; source]" and URLs, which rich would read as markup and drop
        echo(f"[yellow]{label('cli.label.warning')}[/]{escape(say_json(m, w))}")
    stats = "cli.mig.stats_cached" if trace.get("cached") else "cli.mig.stats"  # a cached trace: no build, no trace
    echo("[dim]" + say_id(stats, ops=trace["distinct_ops"], calls=trace["op_calls"], build=trace["build_s"],
                          trace=trace["trace_s"], total=wall_s) + "[/]")


def _verdict_text(report: CoverageReport) -> str:
    """`report.verdict_text` in this run's language, from the report's own counts (coverage.classify's wording)."""
    from suanli.i18n import Message

    if report.verdict_text_i18n is not None:
        return say_json(report.verdict_text_i18n, report.verdict_text)
    if lang() != "zh":
        return report.verdict_text
    if report.verdict == "needs-port":
        more = Message("mig.vt.needs_port_more", n=len(report.fallback_ops)) if report.fallback_ops else ""
        return say(Message("mig.vt.needs_port", n=len(report.non_aten_ops))) + say(more)
    if report.verdict == "cpu-fallback":
        return say(Message("mig.vt.cpu_fallback", version=report.torch_npu_version, n=len(report.fallback_ops),
                           calls=sum(report.fallback_ops.values())))
    return say(Message("mig.vt.npu_native", version=report.torch_npu_version))


@app.callback()
def _group() -> None:
    """Will a model run on Ascend? Offline operator coverage against torch_npu, adapted lists, effort."""


@app.command("check")
def check(
    model: str = typer.Option(..., "--model", "-m", help="catalog model name/alias, or a Hugging Face config.json"),
    task: str = typer.Option("inference", "--task", help="inference (forward), or a training task as migrate cost's --task: full, lora, qlora, pretrain (or training): forward + backward"),
    torch_npu: str | None = typer.Option(
        None, "--torch-npu", help="torch_npu version or prefix (2.1, 2.6, 2.13.0); default: the one for your torch"
    ),
    uses: str | None = typer.Option(
        None, "--uses", help="code-level libraries the trace cannot see, comma-separated: {libraries} (a config's "
        "quant_method and attn_implementation are read by themselves)"
    ),
    json_out: bool = typer.Option(False, "--json", help="print the report as JSON"),
) -> None:
    """Trace the model's aten operators (meta device, no weights) and check them against torch_npu."""
    if task.strip().lower() not in CHECK_TASKS:
        raise InputError("task", Message("err.is_not_one_of", value=echoed(task), allowed=", ".join(CHECK_TASKS)))
    report, wall_s = run_check(model, list_use(task.strip().lower()), torch_npu, (uses or "").split(","))
    report = as_downloaded(report, model, task)
    if json_out:
        emit_json(dict(summarize(report)))
    else:
        _render(report, wall_s)
