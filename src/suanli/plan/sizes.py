"""The sizes the planner's search tries, as plain tuples: `plan.search` builds its grid from them and `suanli estimate`'s
replica hint (estimate.replica_fit_hint) names the same ones without importing the search (or numpy)."""

from __future__ import annotations

__all__ = ["EP_SIZES", "GPU_COUNTS", "MICRO_BATCHES", "NEED_TPS", "PP_SIZES", "TP_SIZES", "VPP_SIZES", "ZERO_STAGES"]

GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
TP_SIZES = (1, 2, 4, 8)
# tensor-parallel groups a serving why-not line may name as what one replica needs (beyond a node: never planned)
NEED_TPS = (1, 2, 4, 8, 16, 32, 64)
PP_SIZES = (1, 2, 4, 8)
VPP_SIZES = (1, 2, 4)  # virtual stages per device searched (interleaved schedule); more is pinned with --vpp
EP_SIZES = (1, 2, 4, 8)
ZERO_STAGES = (0, 1, 2, 3)
MICRO_BATCHES = (1, 2, 4, 8, 16, 32)
