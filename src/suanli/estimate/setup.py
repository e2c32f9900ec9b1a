"""Time a rented training job pays for beyond its compute: environment, model download, checkpoints, and the work
lost to interruptions.

The figures are catalog data (`frameworks.yaml` `setup`): the environment, download and write rates are `assumed`; the
interruption rate is Llama 3's measured one, and the checkpoint interval follows from it by Young's formula. An offer
that publishes its public network bandwidth (`Offer.public_network_mbit_per_s`) downloads at that rate instead of the
assumed one. The planner and `suanli estimate` add the same time (arrays or floats)."""

from __future__ import annotations

from typing import Any

from suanli.estimate import xp

from suanli.catalog.schema import Catalog, JobSetup, ModelArch, Offer
from suanli.errors import EstimateError
from suanli.estimate.memory import weights_bytes
from suanli.estimate.params import param_count
from suanli.i18n import Message
from suanli.units import GB

__all__ = ["SLOW_DOWNLOAD_H", "SetupTerms", "download_hours", "job_setup", "offer_download_gbit_per_s",
           "serve_setup_hours", "setup_hours", "setup_terms"]

SLOW_DOWNLOAD_H = 0.5  # a plan warns when its offer's bandwidth makes the model download take longer than this


class SetupTerms:
    """Bytes a job downloads and writes per checkpoint, and the catalog's set-up rates."""

    def __init__(self, setup: JobSetup, download_bytes: float, checkpoint_bytes: float) -> None:
        self.environment_h = setup.environment_minutes.value / 60
        self.download_gbit_per_s = setup.download_gbit_per_s.value
        self.gpu_mtbf_h = setup.gpu_hours_between_failures.value
        self.write_bytes_per_s = setup.checkpoint_write_gb_per_s.value * GB
        self.download_bytes = download_bytes
        self.checkpoint_bytes = checkpoint_bytes


def job_setup(cat: Catalog) -> JobSetup:
    s = next((x for x in cat.setup if x.id == "default"), None)
    if s is None:
        raise EstimateError(Message("err.the_catalog_has_no_default_job"))
    return s


def offer_download_gbit_per_s(offer: Offer) -> float | None:
    """The offer's published public bandwidth in Gbit/s (None: not published, the catalog's rate applies)."""
    bw = offer.public_network_mbit_per_s
    return bw.value / 1000 if bw is not None else None


def download_hours(download_bytes: Any, gbit_per_s: Any) -> Any:
    """Hours to download `download_bytes` at `gbit_per_s` (1e9 bit/s): bytes · 8 / rate."""
    return download_bytes * 8.0 / (gbit_per_s * GB) / 3600


def setup_terms(cat: Catalog, m: ModelArch, task: str, trainable: int, optimizer_bytes_per_param: float) -> SetupTerms:
    """Download: the 16-bit checkpoint. Checkpoint: full training writes weights (2 B), fp32 master weights and
    optimizer states per parameter; LoRA writes the fp32 adapters and their optimizer states."""
    p = param_count(m)
    if task in ("lora", "qlora"):
        ckpt = trainable * (4.0 + optimizer_bytes_per_param)
    else:
        ckpt = p.total * (2.0 + 4.0 + optimizer_bytes_per_param)
    return SetupTerms(job_setup(cat), weights_bytes(m, "bf16"), ckpt)


def setup_hours(t: SetupTerms, compute_hours: Any, nodes: Any, gpus: Any,
                download_gbit_per_s: Any = None) -> dict[str, Any]:
    """Environment + download + checkpoints + expected lost work. The download runs at `download_gbit_per_s` (the
    offer's public bandwidth; None or NaN: the catalog's assumed rate). A job on `gpus` cards is interrupted every
    gpu_mtbf / gpus hours; it checkpoints every sqrt(2 · write · mtbf) hours (Young 1974), each node writing its
    share in parallel, the last checkpoint included; each interruption loses half an interval on average and a
    restart (the environment again)."""
    write_h = t.checkpoint_bytes / (t.write_bytes_per_s * nodes) / 3600
    mtbf_h = t.gpu_mtbf_h / gpus
    interval_h = xp.sqrt(2.0 * write_h * mtbf_h)  # Young 1974: optimum first-order checkpoint interval
    checkpoints = xp.maximum(xp.ceil(compute_hours / xp.maximum(interval_h, 1e-9)), 1.0)
    checkpoint_h = checkpoints * write_h
    interruptions = compute_hours / mtbf_h
    lost_h = interruptions * (xp.minimum(interval_h, compute_hours) / 2.0 + t.environment_h)
    rate = t.download_gbit_per_s if download_gbit_per_s is None else xp.where(
        xp.isnan(download_gbit_per_s), t.download_gbit_per_s, download_gbit_per_s)
    download_h = download_hours(t.download_bytes, rate)
    total = t.environment_h + download_h + checkpoint_h + lost_h
    zero = xp.full_like(compute_hours, 0.0)  # compute_hours' shape (0 × inf hours would be NaN minutes)
    return {"environment_h": t.environment_h + zero, "download_h": download_h + zero, "checkpoint_h": checkpoint_h,
            "checkpoints": checkpoints, "checkpoint_interval_h": interval_h + zero, "interruptions": interruptions,
            "lost_h": lost_h, "total_h": total}


def serve_setup_hours(setup: JobSetup, weight_bytes: Any, download_gbit_per_s: Any = None) -> dict[str, Any]:
    """Time to first serve on a fresh instance: environment + download of the served checkpoint (at the offer's
    public bandwidth; None or NaN: the catalog's assumed rate) + loading its weights into the cards at the
    catalog's `weight_load_gb_per_s` (vllm PR #14063's measured load). Arrays or floats."""
    rate = setup.download_gbit_per_s.value if download_gbit_per_s is None else xp.where(
        xp.isnan(download_gbit_per_s), setup.download_gbit_per_s.value, download_gbit_per_s)
    load = setup.weight_load_gb_per_s
    if load is None:
        raise EstimateError(Message("err.the_catalog_s_job_set_up"))
    env_h = setup.environment_minutes.value / 60
    download_h = download_hours(weight_bytes, rate)
    load_h = weight_bytes / (load.value * GB) / 3600
    zero = 0.0 * download_h
    return {"environment_h": env_h + zero, "download_h": download_h, "load_h": load_h + zero,
            "total_h": env_h + download_h + load_h}
