"""Across nodes a communication group reaches only its ranks-per-node share of the node's NICs (rail-optimized nodes,
one NIC per card): the data-parallel group under tp8 on 8-card nodes has one rank per node, so one rail of eight."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.estimate.scaling import (
    allgather_s,
    allreduce_s,
    bus,
    bus_half,
    group_ranks_per_node,
    inter_share,
    link_for,
    rented_inter_node_bytes_per_s,
    ring_allreduce_s,
)
from suanli.estimate.speed import training_rates, training_speed_terms, training_step
from suanli.estimate.workload import make_workload

F = np.float64


def test_ranks_per_node_follow_megatrons_rank_order() -> None:
    # data-parallel group `tp` apart: tp8 → 1 rank per node, tp2 → 4, tp1 → all 8
    assert tuple(map(float, group_ranks_per_node(8, 2, 8))) == (True, 1.0)
    assert tuple(map(float, group_ranks_per_node(2, 8, 8))) == (True, 4.0)
    assert tuple(map(float, group_ranks_per_node(1, 16, 8))) == (True, 8.0)
    # a context-parallel group of 2 under tp2 sits in one node
    assert not bool(group_ranks_per_node(2, 2, 8)[0])
    # arrays alike (the planner's path)
    multi, r = group_ranks_per_node(np.array([8.0, 4.0, 1.0]), np.array([4.0, 4.0, 32.0]), 8.0)
    assert multi.tolist() == [True, True, True] and r.tolist() == [1.0, 2.0, 8.0]
    assert inter_share(np.array([1.0, 4.0, 8.0, 16.0]), 8.0).tolist() == [0.125, 0.5, 1.0, 1.0]  # never above the node


def _dp(gpus: int, tp: int) -> tuple[float, float]:
    cat = packaged_catalog()
    m, acc = lookup.model(cat, "llama-2-70b"), lookup.accelerator(cat, "h100-sxm")
    w = make_workload(task="pretrain", precision="bf16", seq=4096, gpus=gpus, tp=tp, pp=1, grad_accum=8, zero=0)
    t = training_speed_terms(m, w)
    r, _ = training_rates(cat, acc, w)
    k = training_step(t, F(tp), F(1), F(gpus // tp), F(1), np.int64(0), 0, F(1), F(8), r)
    # the all-node figure: the node's whole inter-node bus
    full = min(r["intra_bw"], r["inter_bw"])
    half = bus_half(r["intra_half"], r["inter_half"], True)
    ref = ring_allreduce_s(t.grad_comm_bytes / tp, F(gpus // tp), full, r["intra_lat"] + r["inter_lat"], half)
    return float(k["dp_s"]), float(ref)


def test_tp8_data_parallel_reduce_across_two_nodes_takes_eight_times_the_full_node_figure() -> None:
    dp_s, full = _dp(16, 8)
    assert dp_s / full == pytest.approx(8.0, rel=0.02)


def test_a_group_holding_every_card_of_each_node_is_unchanged() -> None:
    dp_s, full = _dp(16, 1)
    assert dp_s == pytest.approx(full)


def test_scalar_path_and_a_published_node_network_take_the_same_share() -> None:
    cat = packaged_catalog()
    acc = lookup.accelerator(cat, "h100-sxm")
    intra, inter = link_for(cat, acc, "intra-node"), link_for(cat, acc, "inter-node")
    size = 4e9
    full = allreduce_s(size, 2, intra, inter)
    assert allreduce_s(size, 2, intra, inter, inner=8, cards_per_node=8) / full == pytest.approx(8.0, rel=0.02)
    assert allreduce_s(size, 16, intra, inter, inner=1, cards_per_node=8) == allreduce_s(size, 16, intra, inter)
    assert allgather_s(size, 4, intra, inter, inner=2, cards_per_node=8) > allgather_s(size, 4, intra, inter)
    # an offer publishing 8 × 100 Gbit/s per node: the tp8 group gets one NIC of it, 12.5 GB/s
    node = rented_inter_node_bytes_per_s(inter.bus_gb_per_s.value * 1e9, 800.0)
    bw, _ = bus(intra.bus_gb_per_s.value * 1e9, 0.0, node, 0.0, True, 1.0, 8.0)
    assert float(bw) == pytest.approx(12.5e9)
