#!/usr/bin/env python3
"""Extract the operators torch_npu registers for the NPU from public torch-npu wheels (names only).

Every torch-npu wheel on PyPI ships `torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml`, the
generated list of operators that have an NPU (PrivateUse1) kernel (research note
shared/research/ascend-op-coverage.md §1). This script downloads a wheel with
`pip download --no-deps` (or takes a local one), reads that yaml from inside the zip — it never installs
or imports torch_npu, which needs the CANN toolkit — and writes one compact data file per version to
`src/suanli/data/ascend_ops/torch_npu-<version>.txt`:

    # header lines: wheel file name, its sha256, the yaml's date inside the wheel, Requires-Dist torch, license
    <section> <name> <impl_ns>

`section` is the yaml section (supported, symint, quant, autograd, custom), `name` is the operator in
native_functions.yaml spelling (`add.Tensor`, `mm`, `npu_fusion_attention`), `impl_ns` the kernel families
joined by `+` (`acl_op+op_api`; `-` for torch_npu's own C++). No schema strings are copied. The output
depends only on the wheel, so rerunning the script reproduces the shipped files byte for byte.

Usage:
    python scripts/extract_npu_ops.py 2.1.0.post17 2.6.0.post5 2.13.0 2.14.0 --wheel-dir /tmp/npu-wheels
    python scripts/extract_npu_ops.py --wheel path/to/torch_npu-2.13.0-...whl
    python scripts/extract_npu_ops.py --check        # re-extract every shipped version and compare
"""

from __future__ import annotations

import argparse
import datetime as dt
import email.parser
import hashlib
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import yaml

YAML_PATH = "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml"
SECTIONS = ("supported", "symint", "quant", "autograd", "custom")
ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "src" / "suanli" / "data" / "ascend_ops"
PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?$")


class ExtractError(Exception):
    """The wheel or its yaml is not what this script expects."""


def entry_name(entry: Any) -> tuple[str, str]:
    """(operator name, impl_ns) of one yaml entry: a bare name, or a mapping with `func: "name(args) -> ret"`."""
    if isinstance(entry, str):
        name, impl = entry.strip(), "-"
    elif isinstance(entry, dict) and isinstance(entry.get("func"), str):
        name = entry["func"].split("(", 1)[0].strip()
        raw = entry.get("impl_ns")
        impl = "+".join(p.strip() for p in str(raw).split(",") if p.strip()) if raw else "-"
    else:
        raise ExtractError(f"unexpected yaml entry {entry!r}")
    if not _NAME.match(name):
        raise ExtractError(f"unexpected operator name {name!r}")
    return name, impl


def parse_op_yaml(text: str) -> list[tuple[str, str, str]]:
    """(section, name, impl_ns) rows in file order, duplicates within a section dropped."""
    doc = yaml.safe_load(text)
    if not isinstance(doc, dict) or doc.get("backend") != "NPU":
        raise ExtractError("not a torch_npu native-functions yaml (no 'backend: NPU')")
    rows: list[tuple[str, str, str]] = []
    for section in SECTIONS:
        seen: set[str] = set()
        for entry in doc.get(section) or []:
            name, impl = entry_name(entry)
            if name not in seen:
                seen.add(name)
                rows.append((section, name, impl))
    unknown = set(doc) - {*SECTIONS, "backend", "cpp_namespace"}
    if unknown:
        print(f"note: ignored yaml sections {sorted(unknown)}", file=sys.stderr)
    return rows


def _metadata(zf: zipfile.ZipFile) -> email.message.Message:
    names = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
    if not names:
        raise ExtractError("wheel has no .dist-info/METADATA")
    return email.parser.Parser().parsestr(zf.read(names[0]).decode("utf-8", "replace"), headersonly=True)


def extract_wheel(wheel: Path) -> tuple[str, str]:
    """(version, data-file text) for one wheel."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    with zipfile.ZipFile(wheel) as zf:
        try:
            info = zf.getinfo(YAML_PATH)
        except KeyError:
            raise ExtractError(f"{wheel.name} has no {YAML_PATH}") from None
        text = zf.read(info).decode("utf-8")
        meta = _metadata(zf)
    version = meta.get("Version") or ""
    if meta.get("Name", "").lower().replace("_", "-") != "torch-npu" or not version:
        raise ExtractError(f"{wheel.name} is not a torch-npu wheel")
    torch_req = [r for r in meta.get_all("Requires-Dist") or [] if re.match(r"^torch\b(?![-_])", r)]
    yaml_date = dt.date(*info.date_time[:3]).isoformat()
    rows = parse_op_yaml(text)
    counts = {s: sum(1 for r in rows if r[0] == s) for s in SECTIONS}
    header = [
        f"# torch_npu {version}: operators registered for the NPU (names only; no schema text copied)",
        f"# wheel: {wheel.name}",
        f"# wheel_sha256: {digest}",
        f"# wheel_url: https://pypi.org/project/torch-npu/{version}/#files",
        f"# yaml: {YAML_PATH} (sha256 {hashlib.sha256(text.encode()).hexdigest()}, dated {yaml_date} in the wheel)",
        f"# requires: {'; '.join(torch_req) or 'torch (unpinned)'}",
        f"# license: {meta.get('License') or 'see wheel METADATA'} (torch_npu); home: {meta.get('Home-page') or '-'}",
        "# counts: " + ", ".join(f"{s} {n}" for s, n in counts.items()),
        "# generated by: scripts/extract_npu_ops.py (reproducible from the wheel alone)",
        "# format: <section> <operator name, native_functions.yaml spelling> <impl_ns joined by '+', '-' if none>",
    ]
    body = [f"{s} {n} {i}" for s, n, i in rows]
    return version, "\n".join(header + body) + "\n"


def download(version: str, wheel_dir: Path, python_version: str = "3.11") -> Path:
    """`pip download --no-deps` one torch-npu wheel (x86_64 Linux) into wheel_dir; reuse one already there."""
    wheel_dir.mkdir(parents=True, exist_ok=True)
    existing = sorted(wheel_dir.glob(f"torch_npu-{version}-*.whl"))
    if existing:
        return existing[0]
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--python-version", python_version, *[a for p in PLATFORMS for a in ("--platform", p)],
        "-d", str(wheel_dir), f"torch-npu=={version}",
    ]
    subprocess.run(cmd, check=True)
    found = sorted(wheel_dir.glob(f"torch_npu-{version}-*.whl"))
    if not found:
        raise ExtractError(f"pip download did not produce a torch_npu-{version} wheel in {wheel_dir}")
    return found[0]


def shipped_versions(out_dir: Path = OUT_DIR) -> list[str]:
    return sorted(p.name[len("torch_npu-"):-len(".txt")] for p in out_dir.glob("torch_npu-*.txt"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="*", help="torch-npu versions to download from PyPI, e.g. 2.13.0")
    ap.add_argument("--wheel", action="append", type=Path, default=[], help="a local wheel file (repeatable)")
    ap.add_argument("--wheel-dir", type=Path, default=Path("/tmp/npu-wheels"), help="download cache")
    ap.add_argument("--out-dir", type=Path, default=OUT_DIR)
    ap.add_argument("--check", action="store_true", help="re-extract every shipped version; fail on a difference")
    args = ap.parse_args(argv)

    versions = list(args.versions)
    if args.check:
        versions += [v for v in shipped_versions(args.out_dir) if v not in versions]
    if not versions and not args.wheel:
        ap.error("give versions, --wheel or --check")
    wheels = [*args.wheel, *(download(v, args.wheel_dir) for v in versions)]
    status = 0
    for wheel in wheels:
        version, text = extract_wheel(wheel)
        target = args.out_dir / f"torch_npu-{version}.txt"
        if args.check:
            same = target.exists() and target.read_text(encoding="utf-8") == text
            print(f"{'ok  ' if same else 'DIFF'} {target.name}")
            status |= 0 if same else 1
            continue
        args.out_dir.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target} ({text.count(chr(10))} lines) from {wheel.name}")
    return status


if __name__ == "__main__":
    sys.exit(main())
