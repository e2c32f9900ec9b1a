"""Fixed time a rented training job pays for beyond its compute: environment, model download, checkpoints.

The figures are catalog data (`frameworks.yaml` `setup`), each marked `assumed` until measured; the planner and
`suanli estimate` add the same set-up time (arrays or floats)."""

from __future__ import annotations

from typing import Any

import numpy as np

from suanli.catalog.schema import Catalog, JobSetup, ModelArch
from suanli.errors import EstimateError
from suanli.estimate.memory import weights_bytes
from suanli.estimate.params import param_count
from suanli.units import GB

__all__ = ["SetupTerms", "job_setup", "setup_hours", "setup_terms"]


class SetupTerms:
    """Bytes a job downloads and writes per checkpoint, and the catalog's set-up rates."""

    def __init__(self, setup: JobSetup, download_bytes: float, checkpoint_bytes: float) -> None:
        self.environment_h = setup.environment_minutes.value / 60
        self.download_bytes_per_s = setup.download_gbit_per_s.value * GB / 8
        self.checkpoint_every_h = setup.checkpoint_every_hours.value
        self.write_bytes_per_s = setup.checkpoint_write_gb_per_s.value * GB
        self.download_bytes = download_bytes
        self.checkpoint_bytes = checkpoint_bytes


def job_setup(cat: Catalog) -> JobSetup:
    s = next((x for x in cat.setup if x.id == "default"), None)
    if s is None:
        raise EstimateError("the catalog has no 'default' job set-up row (frameworks.yaml setup)")
    return s


def setup_terms(cat: Catalog, m: ModelArch, task: str, trainable: int, optimizer_bytes_per_param: float) -> SetupTerms:
    """Download: the 16-bit checkpoint. Checkpoint: full training writes weights (2 B), fp32 master weights and
    optimizer states per parameter; LoRA writes the fp32 adapters and their optimizer states."""
    p = param_count(m)
    if task in ("lora", "qlora"):
        ckpt = trainable * (4.0 + optimizer_bytes_per_param)
    else:
        ckpt = p.total * (2.0 + 4.0 + optimizer_bytes_per_param)
    return SetupTerms(job_setup(cat), weights_bytes(m, "bf16"), ckpt)


def setup_hours(t: SetupTerms, compute_hours: Any, nodes: Any) -> dict[str, Any]:
    """Environment + download + ceil(compute / interval) checkpoints (the last one included), each node writing
    its share in parallel."""
    checkpoints = np.maximum(np.ceil(compute_hours / t.checkpoint_every_h), 1.0)
    download_h = t.download_bytes / t.download_bytes_per_s / 3600
    checkpoint_h = checkpoints * t.checkpoint_bytes / (t.write_bytes_per_s * nodes) / 3600
    total = t.environment_h + download_h + checkpoint_h
    return {"environment_h": t.environment_h + 0.0 * compute_hours, "download_h": download_h + 0.0 * compute_hours,
            "checkpoint_h": checkpoint_h, "checkpoints": checkpoints, "total_h": total}
