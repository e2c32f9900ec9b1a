"""Validation cases measured by suanli itself on a device (`suanli bench suite`, imported by `suanli bench import`).

They live apart from the published cases, in `suanli/data/validation/measured/*.yaml` (real device runs only;
a CPU run's cases are written elsewhere with `--cases-dir` and shown with `suanli validate --measured-dir`).
Each file is one run: `sources` holds one source whose title is "measured by suanli on <device>, <date>,
<command>"; every case is `holdout: true` (out-of-sample for every factor fitted before the run), names its
model by a `config:` path relative to the file, and a `device`: a catalog id, or for a host CPU run the id of a stand-in
accelerator in the file's `devices` list (its peaks are the run's own microbenchmarks).

`run_measured_validation` predicts them with the same code as every other case (`report.run_validation`), and
`measured_summary` gives their median and p90 |error| per run and group: `suanli validate` shows that table.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from suanli.catalog.schema import Accelerator, Catalog
from suanli.errors import DataFileError
from suanli.i18n import Message

__all__ = [
    "MEASURED_DIR",
    "MeasuredGroup",
    "catalog_with_devices",
    "load_measured_cases",
    "measured_cases",
    "measured_sources",
    "measured_summary",
    "run_measured_validation",
]

MEASURED_DIR = Path(__file__).resolve().parent.parent / "data" / "validation" / "measured"


def _files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.yaml")) if directory.is_dir() else []


def _doc(path: Path) -> dict[str, Any]:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as e:
        raise DataFileError(str(path), None, None, str(e).splitlines()[0]) from None
    if not isinstance(doc, dict):
        raise DataFileError(str(path), None, None, Message("err.expected_a_mapping_with_sources_and"))
    return doc


def load_measured_cases(directory: Path = MEASURED_DIR) -> list[dict[str, Any]]:
    """The cases of every run file in `directory`, with `config` made absolute and `_file` set."""
    out: list[dict[str, Any]] = []
    for path in _files(directory):
        doc = _doc(path)
        devices = {str(d.get("id")): d for d in doc.get("devices", []) or [] if isinstance(d, dict)}
        for c in doc.get("cases", []) or []:
            case = {**c, "_file": path.name}
            if case.get("device") in devices:
                case["device_spec"] = devices[case["device"]]
            if case.get("config") and not Path(case["config"]).is_absolute():
                case["config"] = str((path.parent / case["config"]).resolve())
            out.append(case)
    return out


def measured_sources(directories: Iterable[Path]) -> dict[str, str]:
    """Source id -> title ("measured by suanli on …") over the run files of `directories`."""
    out: dict[str, str] = {}
    for d in directories:
        for path in _files(d):
            for s in _doc(path).get("sources", []) or []:
                if isinstance(s, dict) and "id" in s:
                    out[str(s["id"])] = str(s.get("title", s["id"]))
    return out


def catalog_with_devices(cat: Catalog, cases: Iterable[dict[str, Any]]) -> Catalog:
    """`cat` plus the stand-in accelerators that host runs describe in `device_spec` (one per id)."""
    known = {a.id for a in cat.accelerators}
    extra: dict[str, Accelerator] = {}
    for c in cases:
        spec = c.get("device_spec")
        if not spec or spec.get("id") in known or spec.get("id") in extra:
            continue
        try:
            acc = Accelerator.model_validate(spec)
        except ValidationError as e:
            err = e.errors()[0]
            raise DataFileError(str(c.get("_file")), None, "device_spec." + ".".join(str(x) for x in err["loc"]),
                                str(err["msg"])) from None
        extra[acc.id] = acc
    if not extra:
        return cat
    return cat.model_copy(update={"accelerators": (*cat.accelerators, *extra.values())})


def run_measured_validation(cat: Catalog, directory: Path = MEASURED_DIR) -> tuple[list[Any], list[str]]:
    """Every measured case in `directory`, predicted like all others (`report.run_validation`)."""
    from suanli.validate.report import run_validation

    cases = load_measured_cases(directory)
    if not cases:
        return [], []
    # run_validation reads the same files again; configs resolve against `directory` there
    return run_validation(catalog_with_devices(cat, cases), directory)


class MeasuredGroup(BaseModel):
    """Median and p90 |estimate - measured| / measured of one run's cases of one group, in %."""

    model_config = ConfigDict(frozen=True)

    source: str
    measured_by: str
    group: str
    cases: int
    median_abs_pct: float | None
    p90_abs_pct: float | None


def measured_summary(results: Iterable[Any], titles: dict[str, str]) -> list[MeasuredGroup]:
    """One row per (run, group) of the measured cases among `results` (those whose source is in `titles`)."""
    by: dict[tuple[str, str], list[float]] = {}
    for r in results:
        if r.source in titles:
            by.setdefault((r.source, r.group), [])
            if r.default_error is not None:
                by[(r.source, r.group)].append(abs(r.default_error) * 100)
    rows = []
    for (src, group), errs in sorted(by.items()):
        a = sorted(errs)
        p90 = a[min(len(a) - 1, max(0, int(round(0.9 * (len(a) - 1)))))] if a else None
        rows.append(MeasuredGroup(source=src, measured_by=titles[src], group=group, cases=len(a),
                                  median_abs_pct=statistics.median(a) if a else None, p90_abs_pct=p90))
    return rows


def measured_cases(cat: Catalog, extra: Path | None = None) -> tuple[tuple[list[Any], list[str]], dict[str, str]]:
    """The packaged measured cases plus those in `extra`, predicted: ((results, skipped), source titles)."""
    dirs = [MEASURED_DIR, *([extra] if extra is not None else [])]
    results: list[Any] = []
    skipped: list[str] = []
    for d in dirs:
        if d is extra and not d.is_dir():
            from suanli.errors import InputError

            raise InputError("measured-dir", Message("err.is_not_a_folder_write_one", d=d))
        r, s = run_measured_validation(cat, d)
        results += r
        skipped += s
    return (results, skipped), measured_sources(dirs)
