"""Multi-card scaling derived from message sizes and link bandwidth and latency, not asserted.

Collective times follow the nccl-tests definitions (NVIDIA nccl-tests doc/PERFORMANCE.md): for a ring
all-reduce of S bytes over n ranks, busbw = S/t · 2(n−1)/n, so t = latency + 2(n−1)/n · S / busbw; an
all-gather or reduce-scatter moves (n−1)/n · S.

Bus bandwidth depends on the message size: NCCL times each protocol as latency + size / bandwidth and runs the
fastest (NVIDIA/nccl src/graph/tuning.cc, ncclTopoGetAlgoTime): LL has the lowest latency at 1/4 of the ring's bus
bandwidth for all-reduce (1/3 for all-gather within a node), Simple the full bus bandwidth after a longer pipeline
fill. The model keeps the link's small-message latency and gives the bandwidth term the saturation form
busbw(S) = busbw_max · S / (S + S_half) (S_half per link kind, read off one cited nccl-tests curve in links.yaml),
floored at the LL share: t = latency + f · S / max(busbw(S), busbw_max · LL share). As S → 0 the term vanishes,
so small messages pay the latency once; large ones reach busbw_max.
"""

from __future__ import annotations

from typing import Any

from suanli.estimate import xp
from pydantic import BaseModel, ConfigDict

from suanli.catalog.schema import Accelerator, Catalog, Link
from suanli.errors import EstimateError
from suanli.i18n import Message
from suanli.units import GB

__all__ = [
    "CommTimes",
    "LinkRates",
    "allgather_s",
    "allreduce_s",
    "bus",
    "bus_half",
    "group_ranks_per_node",
    "inter_share",
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

# NCCL's ring LL protocol bus bandwidth as a share of the ring's (NVIDIA/nccl src/graph/tuning.cc,
# ncclTopoTuneModel: busBw *= 1/4 for all-reduce or across nodes, 1/3 otherwise): the floor of busbw(S)
LL_SHARE_ALLREDUCE = 1.0 / 4.0
LL_SHARE_ALLGATHER = 1.0 / 3.0


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
        raise EstimateError(Message("err.no_link_data_applies_to", scope=scope, acc_id=acc.id, acc_interconnect=acc.interconnect))
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
    intra_half_bytes: float = 0.0
    inter_half_bytes: float = 0.0


def link_rates(cat: Catalog, acc: Accelerator) -> LinkRates:
    """The device's link rates (`_link_rates`), memoized on the identity of the catalog and device (both frozen):
    the planner asks for them once per device and workload."""
    hit = _LINK_RATES.get((id(cat), id(acc)))
    if hit is not None and hit[0] is cat and hit[1] is acc:
        return hit[2]
    out = _link_rates(cat, acc)
    if len(_LINK_RATES) > 4096:
        _LINK_RATES.clear()
    _LINK_RATES[(id(cat), id(acc))] = (cat, acc, out)  # the inputs held, so that no other object takes their ids
    return out


_LINK_RATES: dict[tuple[int, int], tuple[Catalog, Accelerator, LinkRates]] = {}


def _link_rates(cat: Catalog, acc: Accelerator) -> LinkRates:
    intra = link_for(cat, acc, "intra-node")
    inter = link_for(cat, acc, "inter-node")
    return LinkRates(
        intra_bytes_per_s=intra.bus_gb_per_s.value * GB, intra_latency_s=intra.latency_us.value * 1e-6,
        inter_bytes_per_s=inter.bus_gb_per_s.value * GB, inter_latency_s=inter.latency_us.value * 1e-6,
        cards_per_node=acc.max_cards_per_node,
        intra_half_bytes=half_bytes(intra), inter_half_bytes=half_bytes(inter),
    )


def half_bytes(link: Link | None) -> float:
    """S_half of the link's bus-bandwidth curve, bytes (0: no curve, the size-independent model)."""
    if link is None or link.busbw_half_size_mb is None:
        return 0.0
    return link.busbw_half_size_mb.value * 1e6


def rented_inter_node_bytes_per_s(link_bytes_per_s: Any, network_gbit_per_s: Any) -> Any:
    """The inter-node bus a job gets: the link data's achieved figure, capped by the rented offer's published
    network per node (Gbit/s ÷ 8; NaN or None = not published, no cap). nccl-tests' multi-node busbw cannot exceed
    the node's NIC line rate (NVIDIA nccl-tests doc/PERFORMANCE.md)."""
    if network_gbit_per_s is None:
        return link_bytes_per_s
    cap = xp.asarray(network_gbit_per_s, dtype=float) * 1e9 / 8
    return xp.where(xp.isnan(cap), link_bytes_per_s, xp.minimum(link_bytes_per_s, cap))


def group_ranks_per_node(inner: Any, size: Any, cards_per_node: Any) -> tuple[Any, Any]:
    """(spans nodes, ranks per node) of a communication group of `size` ranks placed `inner` ranks apart, in
    Megatron's rank order tensor → context → expert → data → pipeline, innermost first (Megatron-Core
    parallel_state RankGenerator, order "tp-cp-ep-dp-pp"): the data-parallel group under tp lies `tp` apart,
    the context-parallel one `tp`, the expert one `tp·cp`, the pipeline one `tp·cp·dp`. Floats or arrays alike."""
    inner = xp.maximum(xp.asarray(inner, dtype=float), 1.0)
    multi = inner * size > cards_per_node
    return multi, xp.clip(xp.floor(cards_per_node / inner), 1.0, xp.maximum(size, 1.0))


def inter_share(ranks_per_node: Any, cards_per_node: Any) -> Any:
    """Share of the node's inter-node bandwidth a group with `ranks_per_node` of its ranks on each node can use.
    Rail-optimized nodes give each card its own NIC (NVIDIA DGX SuperPOD reference architecture, compute fabric:
    eight rails, one per GPU position), a card reaches the network through its own NIC at full rate (NVIDIA/nccl
    issue #412, 2023-04: 8 A800s, one HDR NIC, 24 GB/s busbw inter-node; more NICs beside the GPUs give more), and
    the cards/r groups of a layout reduce at the same time, so a group with r ranks per node gets r NICs' worth:
    nccl-tests all_reduce on 4 nodes, 4 vs 8 GPUs per node: ~45 vs ~90 GB/s busbw (NVIDIA/nccl issue #1168,
    2024-02). A group holding every card of each node keeps the node total; never above it."""
    return xp.minimum(xp.asarray(ranks_per_node, dtype=float) / xp.maximum(cards_per_node, 1.0), 1.0)


def bus(intra_bw: Any, intra_lat: Any, inter_bw: Any, inter_lat: Any, multi_node: Any, ranks_per_node: Any,
        cards_per_node: Any) -> tuple[Any, Any]:
    """(bus bytes/s, latency s) of the slowest hop: hierarchical collectives are bound by the NICs the group
    reaches, `inter_bw` (the node's total) × ranks per node / cards per node (`group_ranks_per_node`,
    `inter_share`)."""
    inter = inter_bw * inter_share(ranks_per_node, cards_per_node)
    return (xp.where(multi_node, xp.minimum(intra_bw, inter), intra_bw),
            intra_lat + xp.where(multi_node, inter_lat, 0.0))


def bus_half(intra_half: Any, inter_half: Any, multi_node: Any) -> Any:
    """S_half of the slowest hop's curve (bytes): across nodes the larger of the two (see `bus`)."""
    return xp.where(multi_node, xp.maximum(intra_half, inter_half), intra_half)


def busbw_at(size_bytes: Any, bw: Any, half: Any, ll_share: float = LL_SHARE_ALLREDUCE) -> Any:
    """Bus bandwidth of an S-byte collective: busbw_max · S / (S + S_half), floored at NCCL's LL share of it
    (module docstring; tuning.cc). half = 0 gives busbw_max at every size."""
    s = xp.maximum(size_bytes, 1e-30)
    return xp.maximum(bw * s / (s + half), bw * ll_share)


def ring_allreduce_s(size_bytes: Any, n: Any, bw: Any, lat: Any, half: Any = 0.0) -> Any:
    """Ring all-reduce time over arrays: latency + 2(n−1)/n · S / busbw(S) (nccl-tests PERFORMANCE.md; busbw(S)
    from `busbw_at` with the link's S_half)."""
    return xp.where((n > 1) & (size_bytes > 0),
                    lat + 2 * (n - 1) / n * size_bytes / busbw_at(size_bytes, bw, half, LL_SHARE_ALLREDUCE), 0.0)


def ring_allgather_s(size_bytes: Any, n: Any, bw: Any, lat: Any, half: Any = 0.0) -> Any:
    """All-gather (or reduce-scatter) of S bytes in total over arrays: latency + (n−1)/n · S / busbw(S)."""
    return xp.where((n > 1) & (size_bytes > 0),
                    lat + (n - 1) / n * size_bytes / busbw_at(size_bytes, bw, half, LL_SHARE_ALLGATHER), 0.0)


def _bus(intra: Link, inter: Link | None, share: float = 1.0) -> tuple[float, float, float]:
    """(bus bytes/s, latency s, S_half bytes) of the slowest hop: hierarchical collectives are bound by the NICs
    the group reaches (`share` of the node's total: `inter_share`)."""
    bw = intra.bus_gb_per_s.value
    lat = intra.latency_us.value
    half = half_bytes(intra)
    if inter is not None:
        bw = min(bw, inter.bus_gb_per_s.value * share)
        lat += inter.latency_us.value
        half = max(half, half_bytes(inter))
    return bw * GB, lat * 1e-6, half


def _scalar_share(n: int, inner: int, cards_per_node: int | None) -> float:
    """The scalar paths' share of the inter-node link (`group_ranks_per_node`; None: the group holds every card
    of each node)."""
    if cards_per_node is None:
        return 1.0
    return float(inter_share(group_ranks_per_node(inner, n, cards_per_node)[1], cards_per_node))


def allreduce_s(size_bytes: float, n: int, intra: Link | None, inter: Link | None = None, inner: int = 1,
                cards_per_node: int | None = None) -> float:
    """Ring all-reduce of S bytes over n ranks `inner` apart on these links (see ring_allreduce_s, `bus`)."""
    if intra is None:
        return 0.0
    bw, lat, half = _bus(intra, inter, _scalar_share(n, inner, cards_per_node))
    return float(ring_allreduce_s(size_bytes, n, bw, lat, half))


def allgather_s(size_bytes: float, n: int, intra: Link | None, inter: Link | None = None, inner: int = 1,
                cards_per_node: int | None = None) -> float:
    """All-gather (or reduce-scatter) of S bytes in total on these links (see ring_allgather_s, `bus`)."""
    if intra is None:
        return 0.0
    bw, lat, half = _bus(intra, inter, _scalar_share(n, inner, cards_per_node))
    return float(ring_allgather_s(size_bytes, n, bw, lat, half))
