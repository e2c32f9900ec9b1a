#!/usr/bin/env python3
"""What the device proof needs and this Python lacks, checked before anything is measured (stdlib only).

Prints one line and exits 1 when something is missing; with --names, prints the pip names of the missing
suanli dependencies (one per line) for `device_proof.sh` to install from its wheel folder. torch,
transformers and peft must come with the machine (wheels of torch are too large to carry); bitsandbytes is
optional (its 8-bit AdamW cases are skipped without it).
"""

from __future__ import annotations

import importlib.util
import sys

# import name -> pip name; suanli's runtime dependencies (pyproject.toml [project] dependencies)
SUANLI_DEPS = {"pydantic": "pydantic", "yaml": "PyYAML", "numpy": "numpy", "typer": "typer", "rich": "rich"}
MACHINE = {"torch": "torch", "transformers": "transformers", "peft": "peft"}
OPTIONAL = {"bitsandbytes": "bitsandbytes"}


def _has(mod: str) -> bool:
    try:
        return importlib.util.find_spec(mod) is not None
    except (ImportError, ValueError):
        return False


def main() -> int:
    names = "--names" in sys.argv
    deps = [pip for mod, pip in SUANLI_DEPS.items() if not _has(mod)]
    machine = [pip for mod, pip in MACHINE.items() if not _has(mod)]
    if names:
        print("\n".join(deps))
        return 0
    optional = [pip for mod, pip in OPTIONAL.items() if not _has(mod)]
    parts = []
    if machine:
        parts.append(f"{', '.join(machine)} (must be on the machine)")
    if deps:
        parts.append(f"{', '.join(deps)} (suanli's dependencies: install from a wheel folder, --wheels DIR)")
    if not _has("suanli"):
        parts.append("suanli (its wheel in --wheels DIR, or run from the repository: src/ is used)")
    tail = f"; optional, absent: {', '.join(optional)} (its cases are skipped)" if optional else ""
    if parts:
        print(f"device proof: missing {'; '.join(parts)}{tail}")
        return 1
    print(f"device proof: python {sys.version.split()[0]} has everything it needs{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
