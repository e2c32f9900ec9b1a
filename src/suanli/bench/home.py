"""Where suanli keeps the user's measurement files: `$SUANLI_HOME` (default `~/.local/share/suanli`).

Stdlib only, so that `suanli estimate` can look for a calibration file without importing the rest of
`suanli.bench` (the CLI start-up budget, issue 13 item 5)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["calibration_path"]


def calibration_path() -> Path:
    """The calibration file `suanli calibrate` writes and every estimate reads."""
    home = os.environ.get("SUANLI_HOME")
    base = Path(home).expanduser() if home else Path.home() / ".local" / "share" / "suanli"
    return base / "calibration.yaml"
