"""One estimate as both interfaces make it: the packaged error bands and the user's calibration file
(`suanli calibrate` writes it) applied for the device, so `suanli estimate --json` and POST /api/estimate
return the same numbers."""

from __future__ import annotations

from pathlib import Path

from suanli.catalog.schema import Accelerator, Catalog, EfficiencyFactor, ModelArch
from suanli.estimate.estimate import Estimate, estimate
from suanli.estimate.workload import Workload

__all__ = ["calibration_for", "default_engine", "estimate_with_calibration"]


def calibration_for(device_id: str, path: Path | None = None) -> tuple[EfficiencyFactor, ...]:
    """The calibrated efficiency factors stored for this device (none when there is no calibration file).
    The rest of suanli.bench is imported only when the file exists: `suanli estimate` starts fast."""
    from suanli.bench.home import calibration_path

    p = path or calibration_path()
    if not p.is_file():
        return ()
    from suanli.bench.feedback import load_calibration

    return tuple(f for f in load_calibration(p) if f.device == device_id)


def estimate_with_calibration(cat: Catalog, m: ModelArch, acc: Accelerator, w: Workload,
                              calibration: Path | None = None) -> Estimate:
    from suanli.validate.bands import packaged_error_bands

    return estimate(cat, m, acc, w, packaged_error_bands(), overrides=calibration_for(acc.id, calibration))


def default_engine(cat: Catalog, acc: Accelerator, task: str) -> str:
    """The engine an estimate uses when none is named: for inference the one most teams serve with on the
    device's stack (the stack's data), else transformers (`hf`). `suanli estimate` and POST /api/estimate alike."""
    if task != "inference":
        return "hf"
    from suanli.catalog import lookup
    from suanli.estimate.capability import default_engine as stack_default

    return str(stack_default(lookup.stack(cat, acc.stack)))
