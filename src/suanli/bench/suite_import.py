"""`suanli bench import DIR`: a suite run's result files into the result store and into validation cases.

No torch here. All-or-nothing: every file is read and checked before anything is written (a model name or run id
that would put a file outside the cases folder included); the case and config files are written to temp files,
then the results stored, then the temps renamed into place (a file already there is first moved to a backup beside
it), and an error of any kind at any step removes the temps, the results stored and the files placed, and puts the
replaced files back; on success the backups are deleted. What it writes:

- the harness results (`bench_result` of the loop inference and accuracy cases, each carrying the run's matmul
  and copy microbenchmarks) into the result store, where `suanli bench compare` and `suanli calibrate` use
  them (an id already stored is left alone, so importing twice changes nothing);
- one YAML file of validation cases per run (`<device>-<date>-<run>.yaml`) and the model configs they name
  (`configs/<preset>.json`) into the cases folder, by default `suanli/data/validation/measured/`. Cases:
  decode-speed (decode tokens/s), prefill-speed (prefill tokens/s), training-throughput (training tokens/s),
  and, where the peak is the device's allocator counter (`torch.cuda.max_memory_allocated`), inference-memory
  (loop cases) and training-memory. A CPU run's peak is the process's RSS, not tensor memory: no memory cases.
  A variable-length LoRA case (`lengths`) gives two training-memory cases, its peak allocated (`measured_as:
  allocated`) and its peak reserved (`measured_as: reserved`, `torch.cuda.max_memory_reserved`), at `seq` = its
  longest step, and no training-throughput case (its steps are not one sequence length).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

from suanli.bench.results import BenchResult, ResultStore, _safe
from suanli.bench.suite import CaseRecord, read_records
from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.i18n import Message, render

__all__ = ["ImportReport", "cases_for_run", "import_suite", "measured_label"]


class ImportReport(BaseModel):
    runs: list[str] = Field(default_factory=list, description="run ids imported")
    records: int = 0
    stored_results: list[str] = Field(default_factory=list, description="result ids newly stored")
    already_stored: list[str] = Field(default_factory=list)
    case_files: list[str] = Field(default_factory=list)
    cases: int = 0
    not_cases: list[str] = Field(default_factory=list, description="records that gave no case, and why")
    not_cases_i18n: list[dict[str, Any]] = Field(
        default_factory=list, description="`not_cases` as catalog messages (`{id, params}`), item by item")


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")


def measured_label(rec: CaseRecord) -> str:
    e = rec.environment
    return f"measured by suanli on {e.device_name}, {e.date:%Y-%m-%d}, {rec.command}"


def _device_for_run(cat: Catalog, recs: list[CaseRecord]) -> tuple[str, dict[str, Any] | None]:
    """The catalog id the run's cases are estimated on, or a host stand-in (id, spec) from its microbenchmarks."""
    acc = next((r.accelerator for r in recs if r.accelerator), None)
    if acc:
        return acc, None
    from suanli.bench.feedback import device_for_result

    with_micro = [r.bench_result for r in recs if r.bench_result is not None and r.bench_result.micro is not None]
    if not with_micro:
        raise InputError("results", Message("err.run_names_no_accelerator_and_has", run_id=recs[0].run_id))
    stand_in = device_for_result(cat, with_micro[0])
    return stand_in.id, stand_in.model_dump(mode="json", exclude_none=True)


def cases_for_run(
    cat: Catalog, recs: list[CaseRecord], source_id: str
) -> tuple[list[dict[str, Any]], list[Message], dict[str, Any] | None]:
    """Validation cases of one run's records, one message per record that gave none (why), and the host stand-in
    device."""
    device, spec = _device_for_run(cat, recs)
    rss: list[str] = []
    cases: list[dict[str, Any]] = []
    skipped: list[Message] = []
    stamp = f"{recs[0].environment.date:%Y%m%d}"
    for rec in recs:
        c = rec.case
        if rec.status != "ok":
            # the record's own message where it has one (files written before 2026-12-01 keep English only)
            reason = Message.from_json(rec.reason_i18n) if rec.reason_i18n else rec.reason
            skipped.append(Message("bench.import.not_case", id=c.id, status=Message(f"bench.status.{rec.status}"),
                                   reason=reason))
            continue
        if c.kind not in ("inference", "train") or c.model is None:
            continue
        e = rec.environment
        base: dict[str, Any] = {
            "source": source_id,
            "measured_by": measured_label(rec),
            "holdout": True,
            "where": f"{rec.command} --only {c.id}",
            "config": f"configs/{c.model}.json",
            "device": device,
            "gpus": 1,
            "task": c.task,
            "precision": c.precision,
            "batch": c.batch,
        }
        if c.kind == "inference":
            base.update(input=c.input_tokens, output=c.output_tokens, engine="hf")
        else:
            base.update(seq=c.seq, recompute=c.recompute, optimizer=c.optimizer)
            if c.task == "lora":
                base.update(lora_rank=c.lora_rank, lora_targets=c.lora_targets)
        env = (f"{e.device_name}, torch {e.torch}, transformers {e.transformers}, peft {e.peft}"
               + (f", driver {e.driver}" if e.driver else "") + (f", CUDA {e.cuda_runtime}" if e.cuda_runtime else ""))
        note = f"{c.mode or c.task} mode; " if c.kind == "inference" else ""
        note += "; ".join([*rec.notes, env])
        m = rec.metrics
        cid = f"suanli-{_slug(device)}-{stamp}-{c.id}"
        if c.kind == "inference" and c.measure == "decode":
            cases.append({"id": cid, "group": "decode-speed", **base,
                          "measured": {"decode_tokens_per_s": float(m["decode_tokens_per_s"])}, "note": note})
        elif c.kind == "inference":
            cases.append({"id": cid, "group": "prefill-speed", **base,
                          "measured": {"prefill_tokens_per_s": float(m["prefill_tokens_per_s"])}, "note": note})
        elif c.lengths is None:
            cases.append({"id": cid, "group": "training-throughput", **base,
                          "measured": {"train_tokens_per_s": float(m["train_tokens_per_s"])}, "note": note})
        exact = m.get("memory_kind") == "device-max-allocated"
        if exact and c.lengths is not None:
            lengths = [int(n) for n in m["lengths"]]
            base["seq"] = max(lengths)  # the peak step's tokens
            note += (f"; {len(lengths)} steps of {min(lengths)}-{max(lengths)} tokens (mean "
                     f"{sum(lengths) / len(lengths):.0f}), peaks over every step")
            cases.append({"id": f"{cid}-memory", "group": "training-memory", **base,
                          "measured": {"memory_bytes": int(m["peak_allocated_bytes"])}, "measured_as": "allocated",
                          "note": note + "; peak = torch max_memory_allocated"})
            if m.get("peak_reserved_bytes") is not None:
                cases.append({"id": f"{cid}-memory-reserved", "group": "training-memory", **base,
                              "measured": {"memory_bytes": int(m["peak_reserved_bytes"])}, "measured_as": "reserved",
                              "note": note + "; peak = torch max_memory_reserved (the allocator's cache included)"})
        elif exact and (c.kind == "train" or c.mode == "loop"):
            group = "training-memory" if c.kind == "train" else "inference-memory"
            cases.append({"id": f"{cid}-memory", "group": group, **base,
                          "measured": {"memory_bytes": int(m["peak_memory_bytes"])}, "measured_as": "allocated",
                          "note": note + "; peak = torch max_memory_allocated over the timed runs"})
        elif not exact and "peak_memory_bytes" in m and (c.kind == "train" or c.mode == "loop"):
            rss.append(c.id)
    if rss:
        skipped.append(Message("bench.import.rss_memory", n=len(rss), memory_kind=recs[0].environment.memory_kind))
    return cases, skipped, spec


def _is_packaged(path: Path) -> bool:
    from suanli.validate.measured import MEASURED_DIR

    try:
        return path.resolve() == MEASURED_DIR.resolve()
    except OSError:
        return False


def _roll_back(remove: list[Path], backups: list[tuple[Path, Path]]) -> list[tuple[Path, Path]]:
    """Delete what an import wrote and put the files it replaced back; the (target, backup) pairs not restored."""
    for p in remove:
        with contextlib.suppress(OSError):
            p.unlink(missing_ok=True)
    kept: list[tuple[Path, Path]] = []
    for path, bak in reversed(backups):
        try:
            bak.replace(path)
        except OSError:
            kept.append((path, bak))
    return kept


def import_suite(
    cat: Catalog,
    directory: Path,
    store: ResultStore,
    cases_dir: Path | None,
    accelerator: str | None = None,
) -> tuple[ImportReport, list[BenchResult]]:
    """Check every file of `directory`, then store the results and write the cases (None: no cases)."""
    from suanli.catalog import lookup

    if not directory.is_dir():
        raise InputError("dir", Message("err.is_not_a_folder_of_suite", directory=directory))
    records, bad = read_records(directory)
    if bad:
        more: Message | str = Message("bench.import.more", n=len(bad) - 1) if len(bad) > 1 else ""
        raise InputError("dir", Message("err.nothing_was_imported", directory=directory, bad=bad[0], more=more))
    if not records:
        raise InputError("dir", Message("err.holds_no_suite_result_files_format", directory=directory))
    if accelerator is not None:
        accelerator = lookup.accelerator(cat, accelerator).id
        on_cpu = sorted({r.environment.backend for r in records if r.environment.backend == "cpu"})
        if on_cpu:
            raise InputError("accelerator", Message("err.a_cpu_run_cannot_stand_for", accelerator=accelerator))
        records = [r.model_copy(update={"accelerator": accelerator}) for r in records]
    for r in records:
        if r.accelerator is not None:
            lookup.accelerator(cat, r.accelerator)  # a hand-edited id fails here, before anything is written
    if cases_dir is not None and _is_packaged(cases_dir):
        hosts = sorted({r.environment.device_name for r in records if r.environment.backend in ("cpu", "fake")})
        if hosts:
            raise InputError("cases-dir", Message("err.is_not_an_accelerator_the_packaged", hosts=hosts[0]))
    runs: dict[str, list[CaseRecord]] = {}
    for r in records:
        runs.setdefault(r.run_id, []).append(r)
    report = ImportReport(runs=sorted(runs), records=len(records))
    # everything is computed before anything is written
    files: dict[str, dict[str, Any]] = {}
    configs: dict[str, dict[str, Any]] = {}
    stem_runs: dict[str, str] = {}  # case file name -> the run it holds
    for run_id, recs in sorted(runs.items()):
        first = recs[0]
        dev = first.accelerator or first.environment.device_name
        stem = f"{_slug(dev)}-{first.environment.date:%Y%m%d}-{run_id[-6:]}"
        source_id = f"suanli-measured-{stem}"
        cases, skipped, spec = cases_for_run(cat, recs, source_id)
        report.not_cases += [render(m, "en") for m in skipped]
        report.not_cases_i18n += [m.to_json() for m in skipped]
        for rec in recs:
            if rec.case.model and rec.hf_config:
                configs[rec.case.model] = rec.hf_config
        stem_runs[f"{stem}.yaml"] = run_id
        files[f"{stem}.yaml"] = {
            "sources": [{"id": source_id, "title": measured_label(first), "kind": "measurement",
                         "url": "scripts/device_proof.sh", "date": f"{first.environment.date:%Y-%m-%d}",
                         "note": f"run {run_id}; {first.environment.device_name}; torch {first.environment.torch}, "
                                 f"transformers {first.environment.transformers}, peft {first.environment.peft}"
                                 + (f", driver {first.environment.driver}" if first.environment.driver else "")}],
            **({"devices": [spec]} if spec is not None else {}),
            "cases": cases,
        }
        report.cases += len(cases)
    results = [r.bench_result.model_copy(update={"accelerator": r.accelerator or r.bench_result.accelerator})
               for r in records if r.status == "ok" and r.bench_result is not None]
    # every case and config file goes to a temp file beside its target first, then the results are stored, then
    # the temps are renamed into place (an existing target moved aside first): an error of any kind at any step deletes
    # the temps, the results this import stored and the files it created, and puts the replaced files back
    writes: list[tuple[Path, str]] = []
    if cases_dir is not None:
        root = cases_dir.resolve()
        head = "# Written by `suanli bench import`; the raw results are the suite's JSON files.\n"
        planned = [(f"case.model {name!r}", cases_dir / "configs" / f"{name}.json", json.dumps(cfg, indent=2) + "\n")
                   for name, cfg in sorted(configs.items())]
        planned += [(f"run_id {stem_runs[fname]!r}", cases_dir / fname,
                     head + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=120))
                    for fname, doc in files.items()]
        for what, path, text in planned:
            # SuiteCase.model's pattern keeps names plain; this holds for whatever a result file names
            if not path.resolve().is_relative_to(root):
                raise InputError("cases-dir", Message("err.cannot_write_cases_under", cases_dir=cases_dir,
                                                      v=f"{what} names a path outside it; nothing was imported"))
            if path.exists() and not path.is_file():
                raise InputError("cases-dir", Message("err.cannot_write_cases_under", cases_dir=cases_dir,
                                                      v=f"{path} is not a file"))
            writes.append((path, text))
    try:  # both folders first, so a write error leaves nothing half-imported
        store.results_dir.mkdir(parents=True, exist_ok=True)
        if cases_dir is not None:
            (cases_dir / "configs").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError("store", Message("err.cannot_create", e_filename=e.filename, v=e.strerror or e)) from None
    known = {p.stem for p in store.results_dir.glob("*.json")}
    new = [r for r in results if r.id not in known]
    report.already_stored = sorted(r.id for r in results if r.id in known)
    temps: list[Path] = []
    saved: list[Path] = []
    placed: list[Path] = []  # targets this import created
    backups: list[tuple[Path, Path]] = []  # (target it replaced, the target's previous content moved aside)
    step = "cases-dir"
    try:
        for path, text in writes:
            tmp = path.with_name(path.name + ".tmp")
            temps.append(tmp)
            tmp.write_text(text, "utf-8")
        step = "store"
        for res in new:
            target = store.results_dir / f"{_safe(res.id)}.json"
            saved += [target, target.with_suffix(".json.tmp")]
            store.save(res)
        step = "cases-dir"
        for (path, _), tmp in zip(writes, temps, strict=True):
            if path.exists():  # kept aside until every file is in place, put back if a later step fails
                bak = path.with_name(f"{path.name}.{os.getpid()}.bak")
                path.replace(bak)
                backups.append((path, bak))
            else:
                placed.append(path)
            tmp.replace(path)
    except BaseException as e:  # any error (not only OSError) undoes what this import wrote
        kept = _roll_back([*temps, *saved, *placed], backups)
        if not isinstance(e, OSError):
            raise
        more = f"; the previous content of {kept[0][0]} is in {kept[0][1]}" if kept else ""
        if step == "store":
            raise InputError("store", Message("err.cannot_create", e_filename=e.filename,
                                              v=f"{e.strerror or e}{more}")) from None
        raise InputError("cases-dir", Message("err.cannot_write_cases_under", cases_dir=cases_dir,
                                              v=f"{e.strerror or e}{more}")) from None
    for _, bak in backups:  # imported: the replaced files' previous content goes
        with contextlib.suppress(OSError):
            bak.unlink(missing_ok=True)
    report.stored_results = [res.id for res in new]
    report.case_files = [str(cases_dir / name) for name in files] if cases_dir is not None else []
    return report, new
