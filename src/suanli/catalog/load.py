"""Read, validate and cross-check the catalog data files.

The packaged files live in `suanli/data/catalog/*.yaml`. Each file may hold any of the top-level keys
`sources`, `accelerators`, `offers`, `purchases`, `models`, `stacks`. A file that does not match the
schema fails with file, row and field (`DataFileError`); cross-references (a source id, an offer's
device, an accelerator's stack) are checked after every file is read.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from suanli.catalog.peaks import dense_peak_tflops
from suanli.catalog.schema import (
    ASSUMED,
    Accelerator,
    Alternatives,
    Catalog,
    CostAssumptions,
    EfficiencyFactor,
    Framework,
    InferenceEngine,
    JobSetup,
    Link,
    ModelArch,
    Offer,
    Purchase,
    SoftwareStack,
    Source,
    Sourced,
    Unpriced,
)
from suanli.errors import DataFileError
from suanli.i18n import Message, render

__all__ = ["DATA_DIR", "cached_yaml", "iter_sourced", "load_catalog", "load_files", "packaged_assumptions",
           "packaged_catalog", "read_yaml"]

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "catalog"


def read_yaml(path: Path) -> Any:
    # PyYAML is imported here, not with this module (~8 ms): a command that finds its caches current needs none
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: the catalog loads ~10× faster
    return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)  # noqa: S506 (a safe loader)


_SECTIONS: dict[str, type[BaseModel]] = {
    "sources": Source,
    "accelerators": Accelerator,
    "offers": Offer,
    "purchases": Purchase,
    "models": ModelArch,
    "stacks": SoftwareStack,
    "efficiency": EfficiencyFactor,
    "links": Link,
    "unpriced": Unpriced,
    "engines": InferenceEngine,
    "frameworks": Framework,
    "setup": JobSetup,
    "assumptions": CostAssumptions,
}


def _row_label(i: int, raw: Any) -> str:
    ident = raw.get("id") if isinstance(raw, dict) else None
    return f"{i + 1}" + (f" ({ident})" if ident else "")


def _parse_file(path: Path) -> dict[str, list[BaseModel]]:
    import yaml

    try:
        doc = read_yaml(path) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f"line {mark.line + 1}" if mark else None
        raise DataFileError(str(path), line, None, Message("err.not_valid_yaml", getattr=getattr(e, 'problem', e))) from None
    if not isinstance(doc, dict):
        raise DataFileError(str(path), None, None, Message("err.top_level_must_be_a_mapping"))
    out: dict[str, list[BaseModel]] = {}
    for section, rows in doc.items():
        if section not in _SECTIONS:
            raise DataFileError(
                str(path), None, section, Message("err.unknown_section_allowed", names_sections=', '.join(_SECTIONS))
            )
        if not isinstance(rows, list):
            raise DataFileError(str(path), None, section, Message("err.must_be_a_list_of_rows"))
        parsed = []
        for i, raw in enumerate(rows):
            try:
                parsed.append(_SECTIONS[section].model_validate(raw))
            except ValidationError as e:
                err = e.errors()[0]
                loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-"))
                raise DataFileError(
                    str(path), f"{section}[{_row_label(i, raw)}]", loc or None, err["msg"]
                ) from None
        out[section] = parsed
    return out


def iter_sourced(obj: Any) -> Iterator[tuple[str, Sourced[Any]]]:
    """Every Sourced value inside a model, with its field path."""
    if isinstance(obj, Sourced):
        yield "", obj
    elif isinstance(obj, Alternatives):
        for v in obj.values:
            yield "", v
    elif isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            for path, v in iter_sourced(getattr(obj, name)):
                yield (f"{name}.{path}" if path else name), v
    elif isinstance(obj, tuple | list):
        for i, item in enumerate(obj):
            for path, v in iter_sourced(item):
                yield (f"{i}.{path}" if path else str(i)), v


def _check_unique(kind: str, rows: Iterable[tuple[str, Iterable[str]]]) -> None:
    seen: dict[str, str] = {}
    for ident, aliases in rows:
        for name in (ident, *aliases):
            key = name.lower()
            if key in seen and seen[key] != ident:
                raise DataFileError(kind, ident, "aliases", Message("err.name_is_also_used_by", name=name, seen=seen[key]))
            if key in seen and name == ident:
                raise DataFileError(kind, ident, "id", Message("err.duplicate_id"))
            seen[key] = ident


def load_files(paths: Iterable[Path]) -> Catalog:
    """Load and cross-check the given data files into one `Catalog`."""
    merged: dict[str, list[Any]] = {k: [] for k in _SECTIONS}
    origin: dict[tuple[str, str], str] = {}
    for path in sorted(paths):
        for section, rows in _parse_file(path).items():
            for row in rows:
                origin[(section, getattr(row, "id", ""))] = str(path)
            merged[section].extend(rows)

    sources: dict[str, Source] = {}
    for s in merged["sources"]:
        if s.id in sources:
            raise DataFileError(origin[("sources", s.id)], s.id, "id", Message("err.duplicate_source_id"))
        sources[s.id] = s

    def need_source(section: str, ident: str, field: str, sid: str | None) -> None:
        if sid is not None and sid != ASSUMED and sid not in sources:
            raise DataFileError(
                origin.get((section, ident), section), ident, field,
                Message("err.source_is_not_defined_in_any", sid=sid),
            )

    for section in ("accelerators", "offers", "purchases", "models", "stacks", "efficiency", "links", "engines",
                    "frameworks", "setup", "assumptions"):
        for row in merged[section]:
            for field, v in iter_sourced(row):
                need_source(section, row.id, field, v.source)
            # `source` and every `*_source` field (adapted_source, engines_source, pp_zero_source, offload_source, …)
            for field in type(row).model_fields:
                if field == "source" or field.endswith("_source"):
                    v = getattr(row, field)
                    need_source(section, row.id, field, v if isinstance(v, str) else None)

    _check_unique("accelerators", ((a.id, a.aliases) for a in merged["accelerators"]))
    _check_unique("models", ((m.id, m.aliases) for m in merged["models"]))
    _check_unique("offers", ((o.id, ()) for o in merged["offers"]))
    _check_unique("purchases", ((p.id, ()) for p in merged["purchases"]))
    _check_unique("stacks", ((s.id, ()) for s in merged["stacks"]))
    _check_unique("efficiency", ((e.id, ()) for e in merged["efficiency"]))
    _check_unique("links", ((x.id, ()) for x in merged["links"]))
    _check_unique("engines", ((x.id, ()) for x in merged["engines"]))
    _check_unique("frameworks", ((x.id, ()) for x in merged["frameworks"]))
    engine_ids = {e.id for e in merged["engines"]}
    for st in merged["stacks"]:
        for e in st.engines:
            if e not in engine_ids:
                raise DataFileError(origin[("stacks", st.id)], st.id, "engines", Message("err.unknown_engine", fw_engine=e))
    for fw in merged["frameworks"]:
        for st_id in fw.stacks:
            if st_id not in {s.id for s in merged["stacks"]}:
                raise DataFileError(origin[("frameworks", fw.id)], fw.id, "stacks", Message("err.unknown_stack", a_stack=st_id))
        if fw.engine is not None and fw.engine not in engine_ids:
            raise DataFileError(origin[("frameworks", fw.id)], fw.id, "engine", Message("err.unknown_engine", fw_engine=fw.engine))
    fw_ids = {f.id for f in merged["frameworks"]}
    for ef in merged["efficiency"]:
        for ef_fw in ef.framework_ids:
            if ef_fw not in fw_ids:
                raise DataFileError(origin[("efficiency", ef.id)], ef.id, "framework", Message("err.unknown_framework", ef_fw=ef_fw))

    acc_ids = {a.id for a in merged["accelerators"]}
    stack_ids = {s.id for s in merged["stacks"]}
    for a in merged["accelerators"]:
        a_: Accelerator = a
        if a_.stack not in stack_ids:
            raise DataFileError(origin[("accelerators", a_.id)], a_.id, "stack", Message("err.unknown_stack", a_stack=a_.stack))
        if a_.variant_of and a_.variant_of not in acc_ids:
            raise DataFileError(
                origin[("accelerators", a_.id)], a_.id, "variant_of", Message("err.unknown_accelerator", a_variant_of=a_.variant_of)
            )
    for ef in merged["efficiency"]:
        for ef_dev in ef.device_ids:
            if ef_dev not in acc_ids:
                raise DataFileError(origin[("efficiency", ef.id)], ef.id, "device", Message("err.unknown_accelerator", a_variant_of=ef_dev))
    for o in merged["offers"]:
        o_: Offer = o
        if o_.device not in acc_ids:
            raise DataFileError(origin[("offers", o_.id)], o_.id, "device", Message("err.unknown_accelerator", a_variant_of=o_.device))
        for part in o_.may_be:
            if part not in acc_ids:
                raise DataFileError(origin[("offers", o_.id)], o_.id, "may_be", Message("err.unknown_accelerator", a_variant_of=part))
        if o_.kind == "listing" and not (o_.url or getattr(sources.get(o_.source), "url", None)):
            raise DataFileError(origin[("offers", o_.id)], o_.id, "url",
                                Message("err.a_listing_needs_its_page_set"))
    for u in merged["unpriced"]:
        if u.device not in acc_ids:
            raise DataFileError("unpriced", u.device, "device", Message("err.unknown_accelerator", a_variant_of=u.device))
        need_source("unpriced", u.device, "source", u.source)
    for p in merged["purchases"]:
        p_: Purchase = p
        if p_.device is not None and p_.device not in acc_ids:
            raise DataFileError(
                origin[("purchases", p_.id)], p_.id, "device", Message("err.unknown_accelerator", a_variant_of=p_.device)
            )
    for m in merged["models"]:
        m_: ModelArch = m
        if m_.kind == "llm":
            missing = [
                f for f in ("hidden_size", "num_layers", "num_attention_heads", "intermediate_size", "vocab_size")
                if getattr(m_, f) is None
            ]
            if missing:
                raise DataFileError(origin[("models", m_.id)], m_.id, missing[0], Message("err.required_for_an_llm"))
    stacks: tuple[SoftwareStack, ...] = tuple(merged["stacks"])
    from suanli.catalog.offers import mark_second_hand  # the one second-hand rule (imports apply it too)

    return Catalog(
        sources=sources,
        accelerators=tuple(merged["accelerators"]),
        offers=tuple(mark_second_hand(merged["offers"], sources)),
        purchases=tuple(merged["purchases"]),
        models=tuple(merged["models"]),
        stacks=stacks,
        efficiency=tuple(merged["efficiency"]),
        links=tuple(merged["links"]),
        unpriced=tuple(merged["unpriced"]),
        engines=tuple(merged["engines"]),
        frameworks=tuple(merged["frameworks"]),
        setup=tuple(merged["setup"]),
        assumptions=tuple(merged["assumptions"]),
    )


MEASURED_MATMUL = DATA_DIR.parent / "measured" / "matmul_tflops.yaml"
_MEASURED_DTYPES = ("bf16", "fp16", "fp32")  # the dtypes matmul_tflops.yaml measures


def derived_matmul_efficiency(cat: Catalog, path: Path = MEASURED_MATMUL) -> Catalog:
    """Add `matmul` efficiency factors derived from measured torch.matmul TFLOPS ÷ the dense peak
    (`catalog.peaks.dense_peak_tflops`, the peak the estimator multiplies the factor by):
    per device and dtype (median of its runs, capped at 1.0: GeForce cards boost above their rated clock),
    then per family and overall (median over devices). Their sources are the measurement sources."""
    if not path.is_file():
        return cat
    doc = read_yaml(path) or {}
    sources = dict(cat.sources)
    for raw in doc.get("sources", []):
        src = Source.model_validate(raw)
        sources.setdefault(src.id, src)
    by_id = {a.id: a for a in cat.accelerators}
    runs: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for i, row in enumerate(doc.get("measurements", [])):
        acc = by_id.get(row.get("device"))
        if acc is None or row.get("dtype") not in _MEASURED_DTYPES:
            raise DataFileError(str(path), str(i + 1), "device", Message("err.unknown_device_or_dtype_in", row=row))
        # the estimator's own peak (catalog.peaks, bf16 <-> fp16 fallbacks): factor x peak gives back the measured rate
        peak = dense_peak_tflops(acc, row["dtype"])
        if peak is None:
            continue
        runs.setdefault((acc.id, row["dtype"]), []).append((min(row["tflops"] / peak[0], 1.0), row["source"]))
    factors: list[EfficiencyFactor] = []
    family_vals: dict[tuple[str, str], list[tuple[float, str, str]]] = {}  # (median, device, its source)
    for (dev, dtype), vals in sorted(runs.items()):
        ratios = sorted(v for v, _ in vals)
        med = ratios[len(ratios) // 2] if len(ratios) % 2 else (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2
        said = Message("est.derived.measured", n=len(vals))
        factors.append(EfficiencyFactor(
            id=f"matmul-{dev}-{dtype}", metric="matmul", device=dev, precision=dtype, value=med,
            source=vals[0][1], note=render(said), note_i18n=said.to_json(),
        ))
        family_vals.setdefault((by_id[dev].family, dtype), []).append((med, dev, vals[0][1]))
        family_vals.setdefault(("*", dtype), []).append((med, dev, vals[0][1]))
    # a variant with no run of its own (`variant_of`, e.g. the H20 141GB of the H20 96GB) whose dense peak equals its
    # measured parent's (same die, same compute) inherits the parent's measured factor, not the family median; it is
    # not counted again in the family medians
    own = {(f.device, f.precision): f for f in factors}
    for acc in cat.accelerators:
        parent = by_id.get(acc.variant_of or "")
        for dtype in _MEASURED_DTYPES:
            pf = own.get((parent.id, dtype)) if parent is not None else None
            mine = dense_peak_tflops(acc, dtype)
            if pf is None or parent is None or (acc.id, dtype) in runs or mine is None or mine != dense_peak_tflops(parent, dtype):
                continue
            said = Message("est.derived.inherited", parent=parent.id, device=acc.id,
                           note=Message.from_json(pf.note_i18n) if pf.note_i18n else pf.note)
            factors.append(EfficiencyFactor(
                id=f"matmul-{acc.id}-{dtype}", metric="matmul", device=acc.id, precision=dtype, value=pf.value,
                source=pf.source, note=render(said), note_i18n=said.to_json(), derived="inherited",
                derived_from=(parent.id,),
            ))
    for (fam, dtype), meds in sorted(family_vals.items()):
        if dtype == "fp16" and (fam, "bf16") in family_vals:
            continue  # one 16-bit row per family: bf16 where measured
        vals_sorted = sorted(meds)
        mid = vals_sorted[len(vals_sorted) // 2]  # a member's own value: its measurement is the source
        said = Message("est.derived.median", n=len(meds), dtype=dtype)
        factors.append(EfficiencyFactor(
            id=f"matmul-family-{fam}-{dtype}".replace("*", "all"), metric="matmul", family=fam,
            precision="fp32" if dtype == "fp32" else "*", value=mid[0], source=mid[2],
            note=render(said), note_i18n=said.to_json(), derived="median",
            derived_from=tuple(sorted(d for _, d, _ in meds)),
        ))
    return cat.model_copy(update={"sources": sources, "efficiency": (*cat.efficiency, *factors)})


def load_catalog(data_dir: Path = DATA_DIR, extra: Iterable[Path] = ()) -> Catalog:
    """The catalog in `data_dir` (default: the packaged one) plus any extra files, with efficiency
    factors derived from the packaged matmul measurements."""
    return derived_matmul_efficiency(load_files([*data_dir.glob("*.yaml"), *extra]))


ASSUMPTIONS_FILE = DATA_DIR / "assumptions.yaml"


@functools.cache
def packaged_assumptions() -> CostAssumptions:
    """The packaged catalog's cost assumptions (`assumptions:` id `default`) read from their own file alone: the
    defaults the CLI and API state (options, help texts, schemas) before any catalog is loaded. The same row the
    catalog loads (`plan.cost.cost_assumptions`)."""
    rows = (read_yaml(ASSUMPTIONS_FILE) or {}).get("assumptions", [])
    return next(CostAssumptions.model_validate(r) for r in rows if r.get("id") == "default")


def _cache_dir() -> Path:
    home = os.environ.get("SUANLI_HOME")
    return (Path(home) if home else Path.home() / ".local" / "share" / "suanli") / "cache"


def _packaged_key() -> str:
    """A hash of everything the packaged catalog is built from: the data files and the code that reads them."""
    h = hashlib.sha256()
    code = Path(__file__).resolve().parent
    for p in [*sorted(DATA_DIR.glob("*.yaml")), MEASURED_MATMUL, code / "load.py", code / "schema.py",
              code / "peaks.py", code / "offers.py"]:
        h.update(p.name.encode())
        h.update(p.read_bytes() if p.is_file() else b"-")
    return h.hexdigest()[:20]


@functools.cache
def packaged_catalog() -> Catalog:
    """The packaged catalog, loaded once per process.

    The validated catalog is cached as JSON in `$SUANLI_HOME/cache/` keyed by a hash of the data files and
    of this loader and the schema, so a changed file rebuilds it; re-reading the cache validates it again
    with pydantic (≈5 ms instead of ≈60 ms for YAML + cross-checks). An unreadable or unwritable cache is
    ignored (`SUANLI_NO_CACHE=1` turns it off)."""
    if os.environ.get("SUANLI_NO_CACHE"):
        return load_catalog()
    path = _cache_dir() / f"catalog-{_packaged_key()}.json"
    try:
        return Catalog.model_validate_json(path.read_bytes())
    except (OSError, ValueError):
        pass
    cat = load_catalog()
    _write_cache(path, cat.model_dump_json(), "catalog-*.json")
    return cat


def _write_cache(path: Path, text: str, family: str) -> None:
    """Write a cache file atomically (a concurrent reader sees the old file or the whole new one) and remove
    the other files of its family (older keys); an unwritable cache is ignored."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
        for old in path.parent.glob(family):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass


def cached_yaml(path: Path) -> Any:
    """A packaged YAML data file's document, kept as JSON in `$SUANLI_HOME/cache/` under a hash of the file's
    bytes, so a command that only reads it (`suanli estimate`: the validated error bands) need not import PyYAML
    (~8 ms). Only a document that JSON gives back unchanged is kept (string keys; strings, numbers, booleans,
    null); `SUANLI_NO_CACHE=1` reads the YAML every time."""
    data = path.read_bytes()
    if os.environ.get("SUANLI_NO_CACHE"):
        return read_yaml(path)
    cache = _cache_dir() / f"yaml-{path.stem}-{hashlib.sha256(data).hexdigest()[:20]}.json"
    try:
        return json.loads(cache.read_bytes())
    except (OSError, ValueError):
        pass
    doc = read_yaml(path)
    try:
        text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
        same = json.loads(text) == doc
    except (TypeError, ValueError):  # a date, a non-string key, NaN: not JSON
        same = False
    if same:
        _write_cache(cache, text, f"yaml-{path.stem}-*.json")
    return doc
