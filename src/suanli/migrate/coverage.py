"""Classify a model's operator trace against the operators torch_npu registers (pure Python, no torch).

Rule (PyTorch's dispatch-table priority, research note shared/research/ascend-op-coverage.md §2):
1. the operator is in the torch_npu list (or is a tracing-device alias of one, caveats.yaml) -> `npu`;
2. else it has a composite kernel whose decomposition was recorded at trace time -> `composite`
   (its children are classified in turn; if any leaf falls back, the row says so);
3. else -> `cpu-fallback`: torch_npu's boxed fallback runs it on the CPU (a copy each way per call).
Operators outside the `aten` namespace are `non-aten`: they need their own NPU kernel or replacement.

Inputs are plain data: an `OpTrace` (written by `suanli.trace`) and an `NpuOpList` (read from
`suanli/data/ascend_ops/torch_npu-<version>.txt`, written by scripts/extract_npu_ops.py).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from suanli.errors import DataFileError, InputError
from suanli.i18n import Message, render
from suanli.migrate.effort import AdaptedList, effort, listing, stack_lists
from suanli.migrate.libraries import LibraryUse
from suanli.plan.cost import MIGRATION_ENGINEERS

__all__ = [
    "DATA_DIR",
    "AdaptedList",
    "Caveats",
    "CoverageReport",
    "FusedHint",
    "FusedOp",
    "NpuOpList",
    "OpRow",
    "OpTrace",
    "adapted_lists_for",
    "available_versions",
    "cann_stack",
    "classify",
    "keep_whole_candidates",
    "load_caveats",
    "load_fused",
    "load_op_list",
    "parse_op_list",
    "resolve_version",
    "summarize",
]

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "ascend_ops"

Status = Literal["npu", "composite", "composite-fallback", "cpu-fallback", "non-aten"]
Verdict = Literal["npu-native", "cpu-fallback", "needs-port", "needs-check"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpTrace(_Frozen):
    """What `suanli.trace` recorded: operator name (native_functions.yaml spelling) -> call count."""

    model: str
    task: Literal["inference", "training"]
    device: str = Field(description="device the trace ran on: meta or cpu")
    ops: dict[str, int]
    decompositions: dict[str, dict[str, int] | None] = Field(
        default_factory=dict,
        description="composite operator -> its children per call; None = composite, children not recorded",
    )
    kept_whole: list[str] = Field(default_factory=list, description="CIA ops kept whole as on the NPU")
    module_classes: list[str] = Field(default_factory=list)
    shrunk: dict[str, Any] = Field(default_factory=dict, description="config field -> [old, new] when shrunk")
    seq_len: int | None = None
    torch_version: str | None = None
    build_s: float | None = None
    trace_s: float | None = None
    cached: bool = Field(default=False, description="read from $SUANLI_HOME/cache (suanli.trace.cache), not traced now")
    warnings: list[str] = Field(default_factory=list)
    warnings_i18n: list[dict[str, Any]] = Field(
        default_factory=list, exclude=True,
        description="the warnings as messages (`Message.to_json`), one per warning when the tracer recorded them")


class NpuOpList(_Frozen):
    """One torch_npu version's registered operators (names only)."""

    version: str
    header: dict[str, str]
    aten: frozenset[str] = Field(description="supported + symint + quant + autograd sections")
    custom: frozenset[str] = Field(description="torch_npu's own npu_* operators")
    impl_ns: dict[str, str]

    @property
    def torch_requirement(self) -> str:
        return self.header.get("requires", "")


class FusedOp(_Frozen):
    id: str
    api: str
    replaces: str
    replaces_zh: str | None = None  # Chinese twins, shown by zh output (cli.output.display_note)
    modules: tuple[str, ...]
    ops: tuple[str, ...]
    note: str | None = None
    note_zh: str | None = None
    source: str


class Alias(_Frozen):
    op: str
    npu: str
    reason: str
    source: str


class Caveat(_Frozen):
    op: str
    kind: Literal["cpu-inside", "cann-version", "fallback-reported", "dtype"]
    message: str
    message_zh: str | None = None  # the message in Chinese (zh output), as the general caveats' general_zh
    source: str


class Caveats(_Frozen):
    aliases: tuple[Alias, ...] = ()
    caveats: tuple[Caveat, ...] = ()
    general: tuple[str, ...] = ()
    general_zh: tuple[str, ...] = ()  # the general caveats in Chinese, one per entry of `general`, same order


class OpRow(_Frozen):
    op: str
    calls: int
    status: Status
    impl_ns: str | None = Field(None, description="torch_npu kernel families, e.g. acl_op+op_api")
    fused: str | None = Field(None, description="torch_npu fused replacement that absorbs this op")
    falls_back: dict[str, int] = Field(
        default_factory=dict, description="for composites: leaf ops that fall back, with calls"
    )
    note: str | None = None
    note_i18n: dict[str, Any] | None = Field(None, exclude=True, description="the note as a message")


class FusedHint(_Frozen):
    id: str
    api: str
    replaces: str
    available: bool = Field(description="the selected torch_npu version registers it")
    matched_modules: list[str]
    source: str


class CoverageReport(_Frozen):
    model: str
    task: str
    torch_npu_version: str
    torch_npu_requires: str
    ops: list[OpRow]
    fallback_ops: dict[str, int]
    non_aten_ops: dict[str, int]
    verdict: Verdict
    verdict_text: str
    verdict_text_i18n: dict[str, Any] | None = Field(None, exclude=True, description="the verdict text as a message")
    libraries: list[LibraryUse] = Field(
        default_factory=list, description="CUDA-era libraries the config names or --uses gives (libraries.yaml)")
    fused: list[FusedHint]
    adapted_lists: list[AdaptedList]
    warnings: list[str]
    # the sentences as messages (`Message.to_json`), rendered by the CLI in its language; not in the --json
    # dict (`summarize`), whose English text is the contract
    warnings_i18n: list[dict[str, Any]] = Field(default_factory=list, exclude=True)
    migration_weeks: tuple[float, float] | None
    migration_basis: str
    migration_basis_i18n: dict[str, Any] | None = Field(None, exclude=True)
    trace: dict[str, Any]
    # what the adapted-list look-up went by (migrate.identity.ListIdentity.to_json: basis, preset, presets, text)
    adapted_match: dict[str, Any] | None = None
    adapted_match_i18n: dict[str, Any] | None = Field(None, exclude=True)


# ------------------------------------------------------------------------------------------- data files


def _release(version: str) -> tuple[int, ...]:
    """'2.1.0.post17' -> (2, 1, 0, 17); a version without .post gets post 0."""
    m = re.match(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:\.post(\d+))?$", version.strip())
    if not m:
        raise InputError("torch_npu", Message("err.version_is_not_like_or_post17", version=version))
    return tuple(int(g) if g is not None else -1 for g in m.groups())


def available_versions(data_dir: Path = DATA_DIR) -> list[str]:
    """Shipped torch_npu versions, oldest first."""
    names = [p.name[len("torch_npu-"):-len(".txt")] for p in data_dir.glob("torch_npu-*.txt")]
    return sorted(names, key=lambda v: tuple(max(x, 0) for x in _release(v)))


def resolve_version(requested: str | None, data_dir: Path = DATA_DIR) -> str:
    """Exact shipped version, or the newest shipped one with that prefix ('2.1' -> '2.1.0.post17').
    None -> the newest shipped version."""
    versions = available_versions(data_dir)
    if not versions:
        raise DataFileError(str(data_dir), None, None, Message("err.no_torch_npu_txt_operator_lists"))
    if requested is None:
        return versions[-1]
    if requested in versions:
        return requested
    want = [x for x in _release(requested) if x >= 0]
    matches = [v for v in versions if [x for x in _release(v) if x >= 0][: len(want)] == want]
    if not matches:
        raise InputError("torch-npu", Message("err.no_operator_list_for_shipped", requested=requested, names_versions=', '.join(versions)))
    return matches[-1]


def parse_op_list(text: str, source: str = "<text>") -> NpuOpList:
    header: dict[str, str] = {}
    aten: set[str] = set()
    custom: set[str] = set()
    impl: dict[str, str] = {}
    version = ""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            key, sep, value = line[1:].strip().partition(": ")
            if sep:
                header[key.strip()] = value.strip()
            m = re.match(r"^# torch_npu (\S+):", line)
            if m:
                version = m.group(1)
            continue
        parts = line.split()
        if len(parts) != 3:
            raise DataFileError(source, str(n), None, Message("err.expected_section_name_impl_ns"))
        section, name, ns = parts
        if section == "custom":
            custom.add(name)
        elif section in ("supported", "symint", "quant", "autograd"):
            aten.add(name)
        else:
            raise DataFileError(source, str(n), "section", Message("err.unknown_section", section=section))
        if ns != "-":
            impl[name] = ns
    if not version:
        raise DataFileError(source, "1", None, Message("err.missing_torch_npu_version_header"))
    return NpuOpList(version=version, header=header, aten=frozenset(aten), custom=frozenset(custom), impl_ns=impl)


@functools.cache
def load_op_list(version: str | None = None, data_dir: Path = DATA_DIR) -> NpuOpList:
    v = resolve_version(version, data_dir)
    path = data_dir / f"torch_npu-{v}.txt"
    return parse_op_list(path.read_text(encoding="utf-8"), str(path))


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise DataFileError(str(path), None, None, Message("err.cannot_read", e=e)) from None


@functools.cache
def load_fused(data_dir: Path = DATA_DIR) -> tuple[FusedOp, ...]:
    path = data_dir / "fused.yaml"
    raw = _read_yaml(path).get("fused") or []
    try:
        return tuple(FusedOp.model_validate(r) for r in raw)
    except ValueError as e:
        raise DataFileError(str(path), None, "fused", str(e).splitlines()[0]) from None


@functools.cache
def load_caveats(data_dir: Path = DATA_DIR) -> Caveats:
    path = data_dir / "caveats.yaml"
    try:
        return Caveats.model_validate(_read_yaml(path))
    except ValueError as e:
        raise DataFileError(str(path), None, None, str(e).splitlines()[0]) from None


# ------------------------------------------------------------------------------------------ classification


class _Classifier:
    def __init__(self, trace: OpTrace, ops: NpuOpList, caveats: Caveats) -> None:
        self.trace = trace
        self.ops = ops
        self.alias = {a.op: a for a in caveats.aliases if a.npu in ops.aten}
        self.leaf_memo: dict[str, dict[str, int]] = {}

    def status(self, name: str) -> Status:
        if name in self.ops.aten or name in self.alias:
            return "npu"
        if "::" in name:
            return "npu" if name.split("::", 1)[1] in self.ops.custom else "non-aten"
        if name in self.trace.decompositions:
            return "composite-fallback" if self.fallback_leaves(name) else "composite"
        return "cpu-fallback"

    def fallback_leaves(self, name: str, stack: tuple[str, ...] = ()) -> dict[str, int]:
        """Leaf operators under `name` that fall back to the CPU, with calls per call of `name`."""
        if name in self.leaf_memo:
            return self.leaf_memo[name]
        if name in self.ops.aten or name in self.alias or "::" in name:
            return {}
        children = self.trace.decompositions.get(name, "absent")
        if children == "absent":
            return {name: 1}
        out: Counter[str] = Counter()
        if isinstance(children, dict):
            for child, k in children.items():
                if child in stack or child == name:
                    continue
                for leaf, m in self.fallback_leaves(child, (*stack, name)).items():
                    out[leaf] += k * m
        self.leaf_memo[name] = dict(out)
        return self.leaf_memo[name]


def _fused_hints(trace: OpTrace, ops: NpuOpList, fused: Iterable[FusedOp]) -> tuple[list[FusedHint], dict[str, str]]:
    seen_ops = set(trace.ops)
    for children in trace.decompositions.values():
        seen_ops.update(children or {})
    hints: list[FusedHint] = []
    by_op: dict[str, str] = {}
    for f in fused:
        matched = sorted(
            {c for c in trace.module_classes for pat in f.modules if re.search(pat, c)}
        )
        if not matched or not seen_ops.intersection(f.ops):
            continue
        available = f.id in ops.custom
        hints.append(FusedHint(id=f.id, api=f.api, replaces=f.replaces, available=available,
                               matched_modules=matched, source=f.source))
        if available:
            for op in f.ops:
                by_op.setdefault(op, f.api)
    return hints, by_op


def _torch_major_minor(text: str | None) -> tuple[int, int] | None:
    m = re.search(r"(\d+)\.(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


# each stacks.yaml range as the reader says it: the weeks for a model on the list, off it, or MoE/multimodal
_RANGE_WORDS = {"migration_weeks_adapted": "mig.range.adapted", "migration_weeks_unadapted": "mig.range.unadapted",
                "migration_weeks_moe_multimodal": "mig.range.moe_multimodal"}


def _range_words(field: str) -> Message:
    """The stacks.yaml range(s) an effort charged (`Effort.field`: one key, or "adapted … moe" for an MoE model on the
    list, the span of the two) in words."""
    return Message("mig.range.span") if " … " in field else Message(_RANGE_WORDS[field])


def classify(
    trace: OpTrace,
    ops: NpuOpList,
    *,
    fused: Iterable[FusedOp] = (),
    caveats: Caveats | None = None,
    adapted_lists: Iterable[AdaptedList] = (),
    stack: Any = None,
    moe_or_multimodal: bool = False,
    libraries: Iterable[LibraryUse] = (),
) -> CoverageReport:
    """The coverage report for one trace against one torch_npu operator list.

    `stack` is the catalog's `cann` SoftwareStack (or None); `adapted_lists` says whether the model is on
    each stack's adapted list (the caller looks that up in the catalog). `libraries` are the CUDA-era libraries
    the model uses beyond its operators (`migrate.libraries`: its config, `--uses`); one with no NPU build
    (`replace`/`none`) makes the verdict needs-port, whatever the operators say; one the catalog has no Ascend source
    for (`unknown`) makes a clean trace's verdict needs-check. Weights stored in a format the NPU
    does not compute in (`convert`: DeepSeek-V3/R1's FP8 release) are a conversion step, not a port: the verdict and
    the weeks follow the trace and the adapted lists, and the verdict says the weights are converted first.
    """
    libs = list(libraries)
    caveats = caveats or Caveats()
    cls = _Classifier(trace, ops, caveats)
    hints, fused_by_op = _fused_hints(trace, ops, fused)
    caveat_by_op: dict[str, list[Caveat]] = {}
    for c in caveats.caveats:
        caveat_by_op.setdefault(c.op, []).append(c)

    rows: list[OpRow] = []
    fallback: Counter[str] = Counter()
    non_aten: Counter[str] = Counter()
    # the tracer's warnings as its messages where it recorded them (else their English text, shown as it is)
    warnings: list[Message] = (
        [Message.from_json(m) for m in trace.warnings_i18n] if len(trace.warnings_i18n) == len(trace.warnings)
        else [Message("mig.text", text=w) for w in trace.warnings])
    for name, calls in trace.ops.items():
        st = cls.status(name)
        leaves: dict[str, int] = {}
        note: Message | None = None
        if name in cls.alias:
            a = cls.alias[name]
            note = Message("mig.note.alias", npu=a.npu)
        if st == "cpu-fallback":
            fallback[name] += calls
        elif st == "composite-fallback":
            leaves = {leaf: k * calls for leaf, k in cls.fallback_leaves(name).items()}
            fallback.update(leaves)
            note = Message("mig.note.composite_fallback", ops=", ".join(sorted(leaves)))
        elif st == "non-aten":
            non_aten[name] += calls
            note = Message("mig.note.non_aten")
        elif st == "composite" and trace.decompositions.get(name) is None:
            note = Message("mig.note.no_decomposition")
        rows.append(OpRow(op=name, calls=calls, status=st, impl_ns=ops.impl_ns.get(name),
                          fused=fused_by_op.get(name), falls_back=leaves,
                          note=render(note) if note else None, note_i18n=note.to_json() if note else None))

    # caveats for every op that runs, including children of composites
    reached = set(trace.ops)
    for children in trace.decompositions.values():
        reached.update(children or {})
    for op in sorted(reached):
        for c in caveat_by_op.get(op, []):
            if op in ops.aten:
                # the message in both languages where caveats.yaml has its message_zh (as the general caveats)
                text = {"en": c.message, "zh": c.message_zh} if c.message_zh else c.message
                warnings.append(Message("mig.warn.caveat", op=op, message=text, caveat_kind=c.kind,
                                        source=c.source))

    # the libraries first among the report's own sentences: each with what replaces it on Ascend and its sources
    for u in libs:  # one with no source (a quant_method the catalog lacks) has no source bracket
        warnings.append(Message("mig.warn.library" if u.sources else "mig.warn.library_unsourced", lib=u.id,
                                via={"en": u.via, "zh": u.via_zh} if u.via_zh else u.via,
                                status=Message(f"mig.lib.{u.status}"),
                                message={"en": u.message, "zh": u.message_zh} if u.message_zh else u.message,
                                sources="; ".join(u.sources)))

    trace_tv, npu_tv = _torch_major_minor(trace.torch_version), _torch_major_minor(ops.torch_requirement)
    if trace_tv and npu_tv and trace_tv != npu_tv:
        warnings.append(Message("mig.warn.torch_mismatch", torch=trace.torch_version, version=ops.version,
                                target=f"{npu_tv[0]}.{npu_tv[1]}"))
    # the general caveats in both languages (caveats.yaml general_zh, one per entry, same order)
    warnings.extend(Message("mig.text", text={"en": g, "zh": z} if z else g)
                    for g, z in zip(caveats.general, [*caveats.general_zh, *[""] * len(caveats.general)]))

    order = {"cpu-fallback": 0, "composite-fallback": 1, "non-aten": 2, "composite": 3, "npu": 4}
    rows.sort(key=lambda r: (order[r.status], -r.calls, r.op))

    adapted = list(adapted_lists)
    # the one rule (migrate.effort), as migrate cost / plan charge it: the stack's lists for the trace's task
    lst = listing([a for a in adapted if stack is None or a.stack == stack.id], trace.task)
    is_adapted = lst.listed
    blocking = tuple(u.id for u in libs if u.blocks)
    unknown = tuple(u.id for u in libs if u.unknown)
    basis_msg: Message
    if stack is None:
        weeks, basis_msg = None, Message("mig.basis.no_stack")
    else:
        e = effort(stack, lst, complex_arch=moe_or_multimodal, has_fallback=bool(fallback),
                   blocking_libraries=blocking, ops_missing=bool(fallback or non_aten or blocking),
                   unknown_libraries=unknown)
        weeks = e.weeks
        # the stacks.yaml range(s) charged, in words (an MoE model on the list spans two: "a … b"); the catalog's
        # keys stay in `Effort.field`, never in the sentence (buyer review 2026-12-01: `cann.migration_weeks_unadapted`)
        basis_msg = (Message("mig.basis.chosen", why=e.why, ranges=_range_words(e.field), source=e.source)
                     if e.weeks is not None and e.field is not None else e.why)

    vt: Message
    if non_aten:
        verdict: Verdict = "needs-port"
        vt = Message("mig.vt.needs_port", n=len(non_aten))
        if fallback:
            vt = Message("mig.vt.join", first=vt, second=Message("mig.vt.needs_port_more", n=len(fallback)))
    elif fallback:
        verdict = "cpu-fallback"
        vt = Message("mig.vt.cpu_fallback", version=ops.version, n=len(fallback), calls=sum(fallback.values()))
    else:
        verdict = "npu-native"
        vt = Message("mig.vt.npu_native", version=ops.version)
    if blocking:  # a library with no NPU build: a port, whatever the traced operators say
        replaced = ", ".join(f"{u.id} → {u.replacement}" if u.replacement else u.id for u in libs if u.blocks)
        vt = Message("mig.vt.libraries", n=len(blocking), libs=replaced, ops=vt)
        verdict = "needs-port"
    elif verdict == "npu-native" and is_adapted is False:
        # the effort below is the unadapted range: say here that it is for the model being off the lists
        vt = Message("mig.vt.npu_native_unlisted", version=ops.version)
    if unknown and not blocking:  # a library the catalog has no Ascend source for: never a clean verdict
        vt = Message("mig.vt.unknown_libraries", ops=vt, libs=", ".join(unknown))
        verdict = "needs-check" if verdict == "npu-native" else verdict
    converted = tuple(dict.fromkeys(u.id for u in libs if u.converts))
    if converted and not blocking:  # the released weights' format: converted once before use (its line below)
        vt = Message("mig.vt.converts", ops=vt, libs=", ".join(converted))
    text = render(vt)

    return CoverageReport(
        model=trace.model,
        task=trace.task,
        torch_npu_version=ops.version,
        torch_npu_requires=ops.torch_requirement,
        ops=rows,
        fallback_ops=dict(sorted(fallback.items(), key=lambda kv: (-kv[1], kv[0]))),
        non_aten_ops=dict(sorted(non_aten.items())),
        verdict=verdict,
        verdict_text=text,
        verdict_text_i18n=vt.to_json(),
        libraries=libs,
        fused=hints,
        adapted_lists=adapted,
        warnings=[render(w) for w in warnings],
        warnings_i18n=[w.to_json() for w in warnings],
        migration_weeks=weeks,
        migration_basis=render(basis_msg),
        migration_basis_i18n=basis_msg.to_json(),
        trace={
            "device": trace.device,
            "seq_len": trace.seq_len,
            "shrunk": trace.shrunk,
            "kept_whole": [k for k in trace.kept_whole if k in trace.ops],
            "distinct_ops": len(trace.ops),
            "op_calls": sum(trace.ops.values()),
            "torch_version": trace.torch_version,
            "build_s": trace.build_s,
            "trace_s": trace.trace_s,
            "cached": trace.cached,
        },
    )


def keep_whole_candidates(ops: NpuOpList) -> list[str]:
    """Operators the tracer should keep whole for this version (it filters to CompositeImplicitAutograd ones)."""
    return sorted(ops.aten)


def adapted_lists_for(catalog: Any, model_id: str, aliases: Iterable[str] = ()) -> list[AdaptedList]:
    """Whether `model_id` (or an alias) is on each adapted-model list of the Ascend stacks in the catalog.

    Ascend stacks are those with id `cann` or vendor `huawei`. Each of a stack's `adapted_lists`
    (vLLM-Ascend, MindSpeed-LLM, MindIE, ...) gives one row; a stack with only the union `adapted_models`
    gives one row for it; a stack with neither gives listed=None (unknown). An empty `model_id` with no
    aliases (a config.json matched to no preset, `migrate.identity`) is on no list."""
    names = (model_id, *aliases)
    return [row for s in getattr(catalog, "stacks", ())
            if s.id == "cann" or str(getattr(s, "vendor", "")).lower() == "huawei"
            for row in stack_lists(s, names)]


def cann_stack(catalog: Any) -> Any:
    for s in getattr(catalog, "stacks", ()):
        if s.id == "cann":
            return s
    return None


def summarize(report: CoverageReport) -> Mapping[str, Any]:
    """The stable `--json` dict of `suanli migrate check`."""
    d = report.model_dump(mode="json")
    d["migration_weeks"] = list(report.migration_weeks) if report.migration_weeks else None
    # one effort unit everywhere (plan.cost.MIGRATION_ENGINEERS): calendar weeks × engineers
    d["migration_engineers"] = MIGRATION_ENGINEERS
    d["migration_person_weeks"] = ([w * MIGRATION_ENGINEERS for w in report.migration_weeks]
                                   if report.migration_weeks else None)
    return d
