"""Multi-card scaling derived from message sizes and link bandwidth and latency, not asserted.

Collective times follow the nccl-tests definitions (NVIDIA nccl-tests doc/PERFORMANCE.md): for a ring
all-reduce of S bytes over n ranks, busbw = S/t · 2(n−1)/n, so t = latency + 2(n−1)/n · S / busbw; an
all-gather or reduce-scatter moves (n−1)/n · S.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import Accelerator, Catalog, Link
from suanli.errors import EstimateError
from suanli.units import GB

__all__ = [
    "CommTimes",
    "LinkRates",
    "allgather_s",
    "allreduce_s",
    "link_for",
    "link_rates",
    "links_for",
    "ring_allgather_s",
    "ring_allreduce_s",
    "rented_inter_node_bytes_per_s",
]

# Share of backward time that can hide gradient all-reduce: DDP starts bucketed all-reduces as soon as a
# bucket's gradients are ready (Li et al. 2020, "PyTorch Distributed", VLDB, §3.2.3), but the first bucket
# only starts after the last layers' backward and the last bucket ends after it.
OVERLAP_FRACTION_OF_BACKWARD = 0.8  # assumed: DDP's default 25 MB buckets leave roughly one bucket exposed


class CommTimes(BaseModel):
    """Per training step (or per decode step for inference), seconds."""

    model_config = ConfigDict(frozen=True)

    dp_s: float = 0.0
    dp_exposed_s: float = 0.0
    tp_s: float = 0.0
    ep_s: float = 0.0
    pp_bubble_s: float = 0.0
    pp_p2p_s: float = 0.0
    cp_s: float = 0.0
    intra_link: str | None = None
    inter_link: str | None = None
    bus_gb_per_s: float | None = None

    @property
    def exposed_s(self) -> float:
        return self.dp_exposed_s + self.tp_s + self.ep_s + self.pp_bubble_s + self.pp_p2p_s + self.cp_s


def _match(link: Link, acc: Accelerator) -> int | None:
    if link.device is not None:
        return 2 if link.device == acc.id else None
    if link.interconnect == acc.interconnect:
        return 1
    return 0 if link.interconnect == "*" else None


def link_for(cat: Catalog, acc: Accelerator, scope: str) -> Link:
    best: tuple[int, Link] | None = None
    for link in cat.links:
        if link.scope != scope:
            continue
        s = _match(link, acc)
        if s is not None and (best is None or s > best[0]):
            best = (s, link)
    if best is None:
        raise EstimateError(f"no {scope} link data applies to {acc.id} ({acc.interconnect})")
    return best[1]


def links_for(cat: Catalog, acc: Accelerator, gpus: int) -> tuple[Link, Link | None]:
    """The intra-node link, and the inter-node link when `gpus` spans several nodes."""
    intra = link_for(cat, acc, "intra-node")
    inter = link_for(cat, acc, "inter-node") if gpus > acc.max_cards_per_node else None
    return intra, inter


class LinkRates(BaseModel):
    """A device's links as the kernels take them: bus bytes/s and latency s within and across nodes."""

    model_config = ConfigDict(frozen=True)

    intra_bytes_per_s: float
    intra_latency_s: float
    inter_bytes_per_s: float
    inter_latency_s: float
    cards_per_node: int


def link_rates(cat: Catalog, acc: Accelerator) -> LinkRates:
    intra = link_for(cat, acc, "intra-node")
    inter = link_for(cat, acc, "inter-node")
    return LinkRates(
        intra_bytes_per_s=intra.bus_gb_per_s.value * GB, intra_latency_s=intra.latency_us.value * 1e-6,
        inter_bytes_per_s=inter.bus_gb_per_s.value * GB, inter_latency_s=inter.latency_us.value * 1e-6,
        cards_per_node=acc.max_cards_per_node,
    )


def rented_inter_node_bytes_per_s(link_bytes_per_s: Any, network_gbit_per_s: Any) -> Any:
    """The inter-node bus a job gets: the link data's achieved figure, capped by the rented offer's published
    network per node (Gbit/s ÷ 8; NaN or None = not published, no cap). nccl-tests' multi-node busbw cannot exceed
    the node's NIC line rate (NVIDIA nccl-tests doc/PERFORMANCE.md)."""
    if network_gbit_per_s is None:
        return link_bytes_per_s
    cap = np.asarray(network_gbit_per_s, dtype=float) * 1e9 / 8
    return np.where(np.isnan(cap), link_bytes_per_s, np.minimum(link_bytes_per_s, cap))


def bus(intra_bw: Any, intra_lat: Any, inter_bw: Any, inter_lat: Any, multi_node: Any) -> tuple[Any, Any]:
    """(bus bytes/s, latency s) of the slowest hop: hierarchical collectives are bound by the NIC per card."""
    return (np.where(multi_node, np.minimum(intra_bw, inter_bw), intra_bw),
            intra_lat + np.where(multi_node, inter_lat, 0.0))


def ring_allreduce_s(size_bytes: Any, n: Any, bw: Any, lat: Any) -> Any:
    """Ring all-reduce time over arrays: latency + 2(n−1)/n · S / busbw (nccl-tests PERFORMANCE.md)."""
    return np.where((n > 1) & (size_bytes > 0), lat + 2 * (n - 1) / n * size_bytes / bw, 0.0)


def ring_allgather_s(size_bytes: Any, n: Any, bw: Any, lat: Any) -> Any:
    """All-gather (or reduce-scatter) of S bytes in total over arrays: latency + (n−1)/n · S / busbw."""
    return np.where((n > 1) & (size_bytes > 0), lat + (n - 1) / n * size_bytes / bw, 0.0)


def _bus(intra: Link, inter: Link | None) -> tuple[float, float]:
    """(bus bytes/s, latency s) of the slowest hop: hierarchical collectives are bound by the NIC per card."""
    bw = intra.bus_gb_per_s.value
    lat = intra.latency_us.value
    if inter is not None:
        bw = min(bw, inter.bus_gb_per_s.value)
        lat += inter.latency_us.value
    return bw * GB, lat * 1e-6


def allreduce_s(size_bytes: float, n: int, intra: Link | None, inter: Link | None = None) -> float:
    """Ring all-reduce of S bytes over n ranks on these links (see ring_allreduce_s)."""
    if intra is None:
        return 0.0
    bw, lat = _bus(intra, inter)
    return float(ring_allreduce_s(size_bytes, n, bw, lat))


def allgather_s(size_bytes: float, n: int, intra: Link | None, inter: Link | None = None) -> float:
    """All-gather (or reduce-scatter) of S bytes in total on these links (see ring_allgather_s)."""
    if intra is None:
        return 0.0
    bw, lat = _bus(intra, inter)
    return float(ring_allgather_s(size_bytes, n, bw, lat))
