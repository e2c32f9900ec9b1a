"""Run `suanli ARGS` in a fresh Python process and report on what it left (the one copy of the probe script that
tests/unit/estimate/test_xp.py and tests/unit/cli/test_startup.py each wrote): `before` runs first (before
`suanli.cli.main` is imported), then the command (its exit caught), then `after`, which prints what the test reads to
stderr. A process of its own because what is imported, frozen or set at start-up is the subject. Importable from
every test: tests/conftest.py puts its folder on sys.path."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

#: `after` that says whether the command imported numpy: "NUMPY False" on stderr where it did not
NUMPY_LOADED = "print('NUMPY', 'numpy' in sys.modules, file=sys.stderr)"


def probe_cli(args: Sequence[str], home: Path, after: str, *, before: str = "",
              env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`suanli ARGS` with SUANLI_HOME `home`, in `env` (default: this process's environment), `before` and
    `after` around it."""
    script = "\n".join(("import sys", before, "from suanli.cli.main import run", "sys.argv = ['suanli', *sys.argv[1:]]",
                        "try:", "    run()", "except SystemExit:", "    pass", after, ""))
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120,
                          env={**(os.environ if env is None else env), "SUANLI_HOME": str(home)})
