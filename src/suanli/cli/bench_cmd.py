"""`suanli bench`: measure a model on a device (run), on every accelerator of a Ray cluster (fleet), and
list stored results (list). Needs the torch extra (and the ray extra for fleet)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from suanli.cli.output import col_headers, echo, emit_json, emit_rows, label, lang, say_json, tr
from suanli.i18n import Message
from suanli.units import GB, GiB

__all__ = ["app", "register"]

app = typer.Typer(
    help="Measure throughput, memory and accuracy on cpu, cuda or npu; store the results.",
    no_args_is_help=True,
)

_RUN_COLUMNS = [
    "id",
    "device",
    "model",
    "prec",
    "b/in/out",
    "prefill tok/s",
    "decode tok/s",
    "TTFT ms",
    "peak GB",
    "acc",
]


def register(parent: typer.Typer) -> None:
    """Mount as `suanli bench`."""
    parent.add_typer(app, name="bench")


def _mem(n: int | None) -> str:
    return "" if n is None else f"{n / GB:,.2f} GB ({n / GiB:,.2f} GiB)"


def _row(r: Any) -> dict[str, Any]:
    tp = r.throughput
    c = r.config
    return {
        "id": r.id,
        "device": r.accelerator or f"{c.device} {r.backend.device_name}",
        "model": r.model.name,
        "prec": c.precision,
        "b/in/out": f"{c.batch}/{c.input_tokens}/{c.output_tokens}",
        "prefill tok/s": round(tp.prefill_tokens_per_s, 1) if tp else None,
        "decode tok/s": round(tp.decode_tokens_per_s, 1) if tp else None,
        "TTFT ms": round(tp.ttft_s * 1e3, 2) if tp else None,
        "peak GB": round(tp.peak_memory_bytes / GB, 3) if tp else None,
        "acc": tr("cli.bench.acc_pass" if r.accuracy.passed else "cli.bench.acc_fail") if r.accuracy else "",
    }


def _tf32_text(s: Any) -> str:
    """`Tf32Setting.describe` in this run's language (English: the same text, byte for byte), the one function."""
    return str(s.describe(tr))


def _accuracy_text(r: Any) -> str:
    """The accuracy verdict line. English shows the stored verdict (the record, as `run` wrote it); another
    language rebuilds it from the result's fields."""
    a = r.accuracy
    if lang() == "en":
        return f"accuracy {a.verdict}"
    common = {"precision": a.precision, "device": r.backend.device, "ref_precision": a.reference_precision,
              "ref_device": a.reference_device}
    if a.passed:
        return tr("cli.bench.accuracy_pass", **common, logit_rel=a.max_logit_rel_diff, tol_logit=a.tolerance_logit_rel,
                  ppl=a.perplexity, ref_ppl=a.reference_perplexity, ppl_rel=a.perplexity_rel_diff,
                  tol_ppl=a.tolerance_perplexity_rel)
    bad = []
    if a.max_logit_rel_diff > a.tolerance_logit_rel:
        bad.append(tr("cli.bench.accuracy_bad_logits", max_abs=a.max_abs_logit_diff, logit_rel=a.max_logit_rel_diff,
                      tol_logit=a.tolerance_logit_rel))
    if a.perplexity_rel_diff > a.tolerance_perplexity_rel:
        bad.append(tr("cli.bench.accuracy_bad_ppl", ppl=a.perplexity, ref_ppl=a.reference_perplexity,
                      ppl_rel=a.perplexity_rel_diff, tol_ppl=a.tolerance_perplexity_rel))
    return tr("cli.bench.accuracy_fail", **common, name=r.model.name, ref_id=a.reference_id,
              bad=tr("cli.bench.sep_semicolon").join(bad))


def _render(r: Any) -> None:
    c, tp = r.config, r.throughput
    head = tr("cli.bench.header", params_m=r.model.params / 1e6, weights_gb=r.model.weight_bytes / GB,
              precision=c.precision, device=c.device, device_name=r.backend.device_name, batch=c.batch,
              input=c.input_tokens, output=c.output_tokens, repeats=c.repeats, warmup=c.warmup)
    echo(f"[bold]{r.model.name}[/bold] {head}")
    if tp:
        rows = [
            {"metric": tr("cli.bench.m_prefill"), "value": f"{tp.prefill_tokens_per_s:,.1f}"},
            {"metric": tr("cli.bench.m_decode"), "value": f"{tp.decode_tokens_per_s:,.1f}"},
            {"metric": tr("cli.bench.m_ttft"), "value": f"{tp.ttft_s * 1e3:,.2f} ms"},
            {"metric": tr("cli.bench.m_tpot"), "value": f"{tp.decode_step_latency_s * 1e3:,.2f} ms"},
            {"metric": tr("cli.bench.m_peak", memory_kind=tp.memory_kind), "value": _mem(tp.peak_memory_bytes)},
        ]
        cols = ["metric", "value"]
        emit_rows(rows, cols, title=tr("cli.bench.throughput"), headers=col_headers(cols, "bench.col"))
    if r.micro:
        rows = [
            {"benchmark": tr("cli.bench.micro_matmul", precision=m.precision, n=m.n), "result": f"{m.tflops:,.3f} TFLOPS"}
            for m in r.micro.matmul
        ]
        if r.micro.bandwidth:
            b = r.micro.bandwidth
            rows.append({"benchmark": tr("cli.bench.micro_copy", mib=b.buffer_bytes / 2**20),
                         "result": f"{b.bytes_per_s / GB:,.1f} GB/s"})
        cols = ["benchmark", "result"]
        emit_rows(rows, cols, title=tr("cli.bench.micro"), headers=col_headers(cols, "bench.col"))
    # what torch used for fp32 matmuls (bench compare's roof follows it), or "not recorded" for older results
    # (an Ascend run: torch_npu's HF32 switches, and the fp32 roof the catalog has)
    tf32 = (tr("cli.bench.hf32" if r.tf32.ascend() else "cli.bench.tf32", setting=_tf32_text(r.tf32))
            if r.tf32 is not None else tr("cli.bench.tf32_not_recorded", precision=c.precision))
    echo(tf32)
    if r.accuracy:
        colour = "green" if r.accuracy.passed else "red"
        echo(f"[{colour}]{_accuracy_text(r)}[/{colour}]")
    echo(tr("cli.bench.result_id", id=r.id))


def _writable_store(path: Path | None) -> Any:
    """The result store, checked before a benchmark spends minutes: its folder must be creatable."""
    from suanli.errors import InputError

    st = _store(path)
    try:
        st.results_dir.mkdir(parents=True, exist_ok=True)
        probe = st.results_dir / ".write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as e:
        raise InputError("store", Message("err.cannot_write_results_under", st_root=st.root, v=e.strerror or e)) from None
    return st


def _store(path: Path | None) -> Any:
    from suanli.bench.results import ResultStore

    return ResultStore(path)


def _check_accelerator(device: str, accelerator: str | None) -> str | None:
    """The catalog id a run stands for; refused when the device kind cannot be that accelerator (a CPU run
    labelled h100-sxm would calibrate the H100 with CPU speeds)."""
    if accelerator is None:
        return None
    from suanli.catalog import lookup
    from suanli.catalog.load import packaged_catalog
    from suanli.errors import InputError

    acc = lookup.accelerator(packaged_catalog(), accelerator)
    kind = device.split(":", 1)[0]
    if kind == "cpu":
        raise InputError("accelerator", Message("err.a_cpu_run_cannot_stand_for_2", acc_id=acc.id))
    if (kind == "npu") != (acc.stack == "cann"):
        raise InputError("accelerator", Message("err.is_not_a_device", acc_id=acc.id, acc_stack=acc.stack, kind_=kind))
    return acc.id


@app.command("run")
def run_cmd(
    device: Annotated[str, typer.Option(help="cpu, cuda, npu (optionally :INDEX, e.g. cuda:1)")] = "cpu",
    model: Annotated[
        str, typer.Option(help="preset (tiny-llama) or a local Hugging Face model directory")
    ] = "tiny-llama",
    precision: Annotated[str, typer.Option(help="fp32, tf32 (cuda only), bf16, fp16")] = "fp32",
    batch: Annotated[int, typer.Option(help="sequences decoded together")] = 1,
    input_tokens: Annotated[int, typer.Option("--input", help="prompt tokens per sequence")] = 128,
    output_tokens: Annotated[int, typer.Option("--output", help="generated tokens per sequence (>= 2)")] = 32,
    warmup: Annotated[int, typer.Option(help="untimed runs first")] = 1,
    repeats: Annotated[int, typer.Option(help="timed runs; the median is reported")] = 3,
    accelerator: Annotated[
        str | None, typer.Option(help="catalog accelerator id this device is (links the result to estimates)")
    ] = None,
    micro: Annotated[bool, typer.Option("--micro/--no-micro", help="matmul and bandwidth microbenchmarks")] = True,
    accuracy: Annotated[bool, typer.Option("--accuracy/--no-accuracy", help="check against the reference")] = True,
    save: Annotated[bool, typer.Option("--save/--no-save", help="store the result")] = True,
    store: Annotated[Path | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """Benchmark one model on one device: throughput, peak memory, microbenchmarks, accuracy."""
    from suanli.bench.accuracy import require_pass
    from suanli.bench.run import BenchSpec, run_benchmark

    accelerator = _check_accelerator(device, accelerator)
    command = (
        f"suanli bench run --device {device} --model {model} --precision {precision} --batch {batch} "
        f"--input {input_tokens} --output {output_tokens}" + (f" --accelerator {accelerator}" if accelerator else "")
    )
    spec = BenchSpec(
        device=device,
        model=model,
        precision=precision,
        batch=batch,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        warmup=warmup,
        repeats=repeats,
        micro=micro,
        accuracy=accuracy,
        accelerator=accelerator,
        command=command,
    )
    result = run_benchmark(spec, store=_writable_store(store) if save else None)
    if save:
        _to_database([result])
    if json_:
        emit_json(result)
    else:
        _render(result)
    require_pass(result.accuracy)


def _to_database(results: list[Any]) -> None:
    """Also store results in the service database (SQLite by default) when the service extra is installed."""
    try:
        from suanli.store.db import open_store
    except ImportError:
        return
    store = open_store()
    for r in results:
        store.save_bench_result(r)


@app.command("fleet")
def fleet_cmd(
    address: Annotated[
        str | None, typer.Option(help="Ray cluster, e.g. ray://HOST:10001 or auto; none: start a local Ray")
    ] = None,
    model: Annotated[str, typer.Option(help="preset or a model directory present on every node")] = "tiny-llama",
    precision: Annotated[str, typer.Option(help="fp32, tf32 (cuda only), bf16, fp16")] = "fp32",
    batch: Annotated[int, typer.Option(help="sequences decoded together")] = 1,
    input_tokens: Annotated[int, typer.Option("--input", help="prompt tokens per sequence")] = 128,
    output_tokens: Annotated[int, typer.Option("--output", help="generated tokens per sequence (>= 2)")] = 32,
    repeats: Annotated[int, typer.Option(help="timed runs; the median is reported")] = 3,
    cpu_nodes: Annotated[
        bool | None,
        typer.Option(
            "--cpu-nodes/--no-cpu-nodes", help="also benchmark CPU-only nodes (default: only if no accelerators)"
        ),
    ] = None,
    micro: Annotated[bool, typer.Option("--micro/--no-micro", help="matmul and bandwidth microbenchmarks")] = True,
    accuracy: Annotated[bool, typer.Option("--accuracy/--no-accuracy", help="check against the reference")] = True,
    save: Annotated[bool, typer.Option("--save/--no-save", help="store the results")] = True,
    store: Annotated[Path | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print the fleet report as JSON")] = False,
) -> None:
    """Run the benchmark once per accelerator on every node of a Ray cluster and gather the results."""
    from suanli.bench.accuracy import AccuracyMismatch
    from suanli.bench.fleet import run_fleet
    from suanli.bench.run import BenchSpec
    from suanli.errors import SuanliError

    spec = BenchSpec(
        model=model,
        precision=precision,
        batch=batch,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        repeats=repeats,
        micro=micro,
        accuracy=accuracy,
        command=f"suanli bench fleet --model {model} --precision {precision} --batch {batch} "
        f"--input {input_tokens} --output {output_tokens}",
    )
    report = run_fleet(spec, address=address, store=_store(store) if save else None, cpu_nodes=cpu_nodes)
    if save:
        _to_database(report.results)
    if json_:
        emit_json(report)
    else:
        echo(tr("cli.bench.fleet_head", version=report.ray_version, address=report.address,
                nodes=report.nodes, tasks=len(report.tasks)))
        emit_rows([_row(r) for r in report.results], _RUN_COLUMNS, title=tr("cli.bench.fleet_title"),
                  headers=col_headers(_RUN_COLUMNS, "bench.col"))
    if report.errors:  # each task's error is Ray's own text; the sentence around it in this run's language
        raise _with_message(SuanliError, Message("err.fleet_tasks_failed", n=len(report.errors),
                                                 errors=" | ".join(report.errors)))
    failed = [r for r in report.results if r.accuracy is not None and not r.accuracy.passed]
    if failed:
        # English: the stored verdict, as before; another language: the verdict rebuilt from the result (bench show)
        first = failed[0].accuracy.verdict if failed[0].accuracy is not None else ""
        verdict = {"en": first, "zh": _accuracy_text(failed[0]) if lang() == "zh" else first}
        more = Message("err.fleet_accuracy_more", n=len(failed) - 1) if len(failed) > 1 else ""
        raise _with_message(AccuracyMismatch, Message("err.fleet_accuracy", verdict=verdict, more=more))


def _with_message(kind: type[Exception], msg: Message) -> Exception:
    """An error of `kind` whose text is `msg` in English and which carries `msg` (shown in the run's language)."""
    from suanli.i18n import render

    e = kind(render(msg, "en"))
    e.i18n = msg  # type: ignore[attr-defined]
    return e


@app.command("show")
def show_cmd(
    result: Annotated[str | None, typer.Argument(help="result id (prefix); default: the newest")] = None,
    store: Annotated[Path | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
) -> None:
    """One stored benchmark result as `bench run` printed it, with the TF32 setting torch used."""
    from suanli.errors import InputError

    st = _store(store)
    if result:
        r = st.get(result)
    else:
        results = st.results()
        if not results:
            raise InputError("result", f"no stored results in {st.root}; run `suanli bench run` first",
                             Message("error.no_results", root=str(st.root)))
        r = max(results, key=lambda x: (x.created_at, x.id))
    if json_:
        emit_json(r)
    else:
        _render(r)


@app.command("list")
def list_cmd(
    store: Annotated[Path | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
    device: Annotated[str | None, typer.Option(help="only results whose device or accelerator contains this")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print the stored results as JSON")] = False,
) -> None:
    """Stored benchmark results, oldest first."""
    st = _store(store)
    results = st.results()
    for line in getattr(st, "refused", []):  # refused at load (unreadable, NaN or Infinity), in the run's language
        from rich.markup import escape

        from suanli.cli.output import say

        echo(f"[yellow]{tr('cli.bench.skipped')}[/yellow] {escape(say(line))}")
    if device:
        key = device.lower()
        results = [
            r
            for r in results
            if key in r.config.device.lower()
            or key in (r.accelerator or "").lower()
            or key in r.backend.device_name.lower()
        ]
    if json_:
        emit_json(results)
        return
    if not results:
        echo(tr("cli.bench.none", root=str(_store(store).root)))
        return
    emit_rows([_row(r) for r in results], _RUN_COLUMNS, title=tr("cli.bench.title", root=str(_store(store).root)),
              headers=col_headers(_RUN_COLUMNS, "bench.col"))


@app.command("suite")
def suite_cmd(
    outdir: Annotated[Path, typer.Argument(help="folder for the result files (one JSON per measurement)")],
    device: Annotated[str, typer.Option(help="auto (cuda if torch sees one, else cpu), cpu, cuda[:N], npu[:N]")] = "auto",
    size: Annotated[
        str, typer.Option(help="auto, tiny (tiny preset in place of the ~1B and ~8B shapes; auto on cpu) or full")
    ] = "auto",
    budget_s: Annotated[
        float, typer.Option("--budget-s", help="seconds for all cases; cases left when it runs out are skipped")
    ] = 420.0,
    accelerator: Annotated[
        str | None, typer.Option(help="catalog accelerator id of the device (default: guessed from its name)")
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option(help="only cases whose id matches this pattern (repeatable), e.g. 'decode-*'")
    ] = None,
    json_: Annotated[bool, typer.Option("--json", help="print the run manifest as JSON")] = False,
) -> None:
    """The device proof: microbenchmarks, accuracy, inference and training (fixed and variable-length, with the
    allocator's peak reserved memory) of ~1B/~8B Llama shapes, one JSON file per measurement into OUTDIR. Import them
    with `suanli bench import OUTDIR`."""
    from suanli.bench.suite import CaseRecord, run_suite

    if device != "auto":
        accelerator = _check_accelerator(device, accelerator)
    elif accelerator is not None:
        from suanli.catalog import lookup
        from suanli.catalog.load import packaged_catalog

        accelerator = lookup.accelerator(packaged_catalog(), accelerator).id

    def show(rec: CaseRecord) -> None:
        m = rec.metrics
        key = next((k for k in ("tflops", "bytes_per_s", "decode_tokens_per_s", "prefill_tokens_per_s",
                                "train_tokens_per_s", "max_logit_rel_diff") if k in m), None)
        if rec.case.measure == "prefill" and "prefill_tokens_per_s" in m:  # a skipped prefill case has no metrics
            key = "prefill_tokens_per_s"
        value = "" if key is None else f"{key} {m[key]:,.4g}"
        if "peak_memory_bytes" in m:
            value += tr("cli.bench.suite_peak", gb=m["peak_memory_bytes"] / GB)
        tail = value if rec.status == "ok" else say_json(rec.reason_i18n, rec.reason or "")
        if not json_:
            from rich.cells import cell_len
            from rich.markup import escape  # a reason's 'suanli[lora]' is text, not markup

            colour = {"ok": "green", "skipped": "yellow", "failed": "red"}[rec.status]
            status = tr(f"bench.status.{rec.status}")  # padded to 7 cells, as the English ids are
            status += " " * max(0, 7 - cell_len(status))
            echo(f"[{colour}]{status}[/{colour}] {rec.case.id:38s} {rec.elapsed_s:6.1f} s  {escape(tail)}")

    import shlex

    command = (f"suanli bench suite {shlex.quote(str(outdir))} --device {device} --size {size} --budget-s {budget_s:g}"
               + (f" --accelerator {accelerator}" if accelerator else "")
               + "".join(f" --only {shlex.quote(p)}" for p in only or []))
    run = run_suite(outdir, device=device, size=size, budget_s=budget_s, accelerator=accelerator, only=only,
                    command=command, progress=show)
    if json_:
        emit_json(run)
        return
    counts = {s: sum(1 for v in run.cases.values() if v == s) for s in ("ok", "skipped", "failed")}
    echo(tr("cli.bench.suite_done", run_id=run.run_id, device_name=run.environment.device_name,
            accelerator=run.accelerator or tr("cli.bench.no_catalog_id"), ok=counts["ok"],
            skipped=counts["skipped"], failed=counts["failed"], outdir=str(outdir)))


@app.command("import")
def import_cmd(
    directory: Annotated[Path, typer.Argument(help="a `suanli bench suite` output folder")],
    cases_dir: Annotated[
        Path | None,
        typer.Option(help="where the validation cases go (default: the packaged data/validation/measured/, device "
                     "runs only)"),
    ] = None,
    no_cases: Annotated[bool, typer.Option("--no-cases", help="store the results only")] = False,
    accelerator: Annotated[
        str | None, typer.Option(help="catalog accelerator id of the device, if the run did not name it")
    ] = None,
    store: Annotated[Path | None, typer.Option(help="store directory (default $SUANLI_HOME/bench)")] = None,
    json_: Annotated[bool, typer.Option("--json", help="print the import report as JSON")] = False,
) -> None:
    """Store a suite run's results (for `bench compare` and `calibrate`) and add them as validation cases
    labelled "measured by suanli on <device>, <date>, <command>" (shown by `suanli validate`)."""
    from suanli.bench.suite_import import import_suite
    from suanli.catalog.load import packaged_catalog
    from suanli.validate.measured import MEASURED_DIR

    target = None if no_cases else (cases_dir or MEASURED_DIR)
    report, new = import_suite(packaged_catalog(), directory, _store(store), target, accelerator)
    _to_database(new)
    if json_:
        emit_json(report)
        return
    echo(tr("cli.bench.import_done", records=report.records, runs=len(report.runs), stored=len(report.stored_results),
            already=len(report.already_stored), cases=report.cases)
         + (f" → {', '.join(report.case_files)}" if report.case_files else ""))
    from rich.markup import escape  # a reason's 'suanli[lora]' is text, not markup

    for line, said in zip(report.not_cases, report.not_cases_i18n, strict=True):
        echo(f"[yellow]{label('cli.bench.no_case')}[/yellow]{escape(say_json(said, line))}")
    if report.case_files:
        hint = "" if target == MEASURED_DIR else f" --measured-dir {target}"
        echo(tr("cli.bench.import_next", hint=hint))
