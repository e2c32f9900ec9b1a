"""`suanli migrate check`'s computation, shared by the CLI (`suanli migrate check`) and the API
(POST /api/migrate/check): load a preset or a Hugging Face config.json, trace its aten operators (meta device, no
weights; cached, `suanli.trace.cache`) and classify them against a shipped torch_npu operator list."""

from __future__ import annotations

import importlib.metadata
import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from suanli.errors import InputError, SuanliError
from suanli.i18n import Message
from suanli.migrate.coverage import (
    CoverageReport,
    adapted_lists_for,
    available_versions,
    cann_stack,
    classify,
    keep_whole_candidates,
    load_caveats,
    load_fused,
    load_op_list,
)

__all__ = ["CHECK_TASKS", "as_downloaded", "check_answer", "default_torch_npu_version", "run_check"]

# a trace keeps some composite operators whole by registering kernels in torch's process-wide dispatcher
# (`suanli.trace.ops._keep_whole`): two traces at once (the API's worker threads) would see each other's
_TRACING = threading.Lock()

# migrate cost's task names (plan's) or the lists' own: a training task checks forward + backward (`list_use`)
CHECK_TASKS = ("inference", "full", "lora", "qlora", "pretrain", "training")


def _installed_torch() -> str | None:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


def default_torch_npu_version() -> str:
    """The shipped torch_npu version built for the installed torch (same major.minor), else the newest."""
    versions = available_versions()
    tv = re.match(r"(\d+)\.(\d+)", _installed_torch() or "")
    if tv:
        for v in reversed(versions):
            if v.startswith(f"{tv.group(1)}.{tv.group(2)}."):
                return v
    return versions[-1]


def _load_model(model: str) -> tuple[dict[str, Any], str, Any, Any]:
    """(transformers config dict, display name, ModelArch or None, catalog or None)."""
    from suanli.catalog.load import packaged_catalog

    catalog = None
    try:
        catalog = packaged_catalog()
    except SuanliError:
        catalog = None
    if model.lower().endswith(".json"):
        path = Path(model).expanduser()
        if not path.is_file():
            raise InputError("model", Message("err.config_file_does_not_exist", model=model))
        try:
            cfg = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError("model", Message("err.is_not_a_readable_json_config", model=model, e=e)) from None
        if not isinstance(cfg, dict) or not cfg.get("model_type"):
            raise InputError("model", Message("err.has_no_model_type_pass_a", model=model))
        from suanli.catalog.hf_config import config_model_name

        name = config_model_name(cfg, str(path))
        arch = None
        try:
            from suanli.catalog.hf_config import from_hf_config

            arch = from_hf_config(cfg, name)
        except (ImportError, SuanliError, ValueError, KeyError, TypeError):
            arch = None  # the trace only needs the raw config; the arch is used for adapted-list look-up
        return cfg, name, arch, catalog
    if catalog is None:
        raise InputError("model", Message("err.the_packaged_catalog_could_not_be"))
    from suanli.catalog.lookup import model as lookup_model

    arch = lookup_model(catalog, model)
    if arch.kind != "llm":
        raise InputError("model", Message("err.is_a_model_migrate_check_traces", arch_id=arch.id, arch_kind=arch.kind))
    try:
        from suanli.catalog.hf_config import to_hf_config
    except ImportError:
        raise InputError(
            "model", Message("err.presets_need_suanli_catalog_hf_config")
        ) from None
    return dict(to_hf_config(arch)), arch.id, arch, catalog


def run_check(
    model: str, task: str = "inference", torch_npu: str | None = None, uses: tuple[str, ...] | list[str] = ()
) -> tuple[CoverageReport, float]:
    """Trace and classify; returns the report and the wall time in seconds. `uses`: code-level libraries the trace
    cannot see (`--uses`, validated against libraries.yaml before anything is traced)."""
    from suanli.migrate.effort import checkpoint_uses, complex_arch
    from suanli.migrate.libraries import from_config, merge, resolve_uses

    t0 = time.perf_counter()
    cli_uses = resolve_uses(uses)
    ops = load_op_list(torch_npu or default_torch_npu_version())
    cfg, name, arch, catalog = _load_model(model)
    try:
        from suanli.trace import trace_model
        from suanli.trace.cache import cached_trace

        keep = keep_whole_candidates(ops)  # the trace is cached under $SUANLI_HOME/cache (suanli.trace.cache)
        with _TRACING:  # one trace at a time: keeping ops whole registers kernels for the whole process
            trace = cached_trace(cfg, name=name, task=task, op_list_version=ops.version, keep_whole=keep,
                                 trace=lambda: trace_model(cfg, name=name, task=task, keep_whole=keep))
    except ImportError as e:
        raise InputError("model", Message("err.tracing_needs_torch_and_transformers_pip", e=e)) from None
    # the adapted lists by what the model is, never by its file's path (a config.json: migrate.identity)
    identity = None
    if catalog is not None:
        from suanli.migrate.identity import identify_config, identify_preset

        identity = (identify_config(catalog.models, arch, cfg) if model.lower().endswith(".json")
                    else identify_preset(arch))
    adapted = adapted_lists_for(catalog, "", identity.names) if catalog is not None and identity else []
    report = classify(
        trace, ops,
        fused=load_fused(), caveats=load_caveats(), adapted_lists=adapted,
        stack=cann_stack(catalog) if catalog else None, moe_or_multimodal=complex_arch(arch, cfg),
        # quant_method, attn_implementation; the released checkpoint's dtype (a preset's native_dtype); then --uses
        libraries=merge(merge(from_config(cfg), checkpoint_uses(arch, catalog)), cli_uses),
    )
    if identity is not None:
        report = report.model_copy(update={"adapted_match": identity.to_json(),
                                           "adapted_match_i18n": identity.message.to_json()})
    if trace.shrunk:
        from suanli.i18n import render

        shrunk = Message("mig.warn.shrunk", layers=trace.shrunk.get("num_hidden_layers", ["?", "?"])[1])
        report = report.model_copy(update={"warnings": [render(shrunk), *report.warnings],
                                           "warnings_i18n": [shrunk.to_json(), *report.warnings_i18n]})
    return report, time.perf_counter() - t0


def as_downloaded(report: CoverageReport, model: str, task: str) -> CoverageReport:
    """The report named by the checkpoint the task downloads (`lookup.checkpoint_id`, as plan and migrate cost name
    it): a training task (full, lora, qlora, pretrain, training) the base of an -Instruct preset (Qwen/Qwen2.5-7B),
    serving the tuned one; a full Hugging Face id typed, or a config.json, as given. The CLI and POST
    /api/migrate/check both name it so."""
    if model.strip().lower().endswith(".json"):
        return report
    from suanli.catalog.load import packaged_catalog
    from suanli.catalog.lookup import checkpoint_id
    from suanli.catalog.lookup import model as lookup_model

    task = task.strip().lower()
    name = checkpoint_id(lookup_model(packaged_catalog(), model), "full" if task == "training" else task, model)
    return report if name == report.model else report.model_copy(update={"model": name})


def check_answer(report: CoverageReport) -> dict[str, Any]:
    """`suanli migrate check --json` (`coverage.summarize`) plus each sentence as a message beside it (`x_i18n`, which
    `i18n.localize` renders in the request's language) and the fused kernels' Chinese descriptions (`replaces_zh`):
    POST /api/migrate/check's answer."""
    from suanli.migrate.coverage import summarize

    out = dict(summarize(report))
    if report.verdict_text_i18n is not None:
        out["verdict_text_i18n"] = report.verdict_text_i18n
    if report.migration_basis_i18n is not None:
        out["migration_basis_i18n"] = report.migration_basis_i18n
    if len(report.warnings_i18n) == len(report.warnings):  # one message per sentence, else the English text alone
        out["warnings_i18n"] = list(report.warnings_i18n)
    out["ops"] = [{**row, **({"note_i18n": r.note_i18n} if r.note_i18n is not None else {})}
                  for row, r in zip(out["ops"], report.ops)]
    if out.get("adapted_match") and report.adapted_match_i18n is not None:
        out["adapted_match"] = {**out["adapted_match"], "text_i18n": report.adapted_match_i18n}
    zh = {f.id: f.replaces_zh for f in load_fused() if f.replaces_zh}
    out["fused"] = [{**f, **({"replaces_zh": zh[f["id"]]} if f["id"] in zh else {})} for f in out["fused"]]
    return out
