"""The domain core imports no framework, database or torch (STYLE: imports run one way)."""

from __future__ import annotations

import subprocess
import sys


def test_core_imports_no_framework() -> None:
    code = (
        "import sys\n"
        "import suanli.catalog.load, suanli.catalog.lookup, suanli.estimate.estimate, suanli.plan.search,"
        " suanli.plan.scenarios, suanli.plan.compare, suanli.validate.report\n"
        "bad = [m for m in ('torch', 'transformers', 'ray', 'fastapi', 'sqlalchemy', 'typer', 'rich', 'torch_npu')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"the core imported: {out.stdout.strip()}"
