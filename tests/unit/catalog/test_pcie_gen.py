"""Every card a Chinese platform rents for training has a host-link generation (`pcie_gen`), so optimizer offload
is timed on it rather than left blank (code review 2026-12-01: rtx-3090, rtx-4090d, rtx-4090-48g, h20 had none)."""

from __future__ import annotations

import math

import pytest

from suanli.catalog import lookup
from suanli.estimate.speed import offload_rates
from suanli.estimate.workload import make_workload


@pytest.mark.parametrize(("device", "gen"), [("rtx-3090", 4), ("rtx-4090d", 4), ("rtx-4090-48g", 4), ("h20", 5),
                                             ("h20-141g", 5)])
def test_host_link_generation_and_offload_rate(cat, device: str, gen: int) -> None:  # type: ignore[no-untyped-def]
    acc = lookup.accelerator(cat, device)
    assert acc.specs.pcie_gen is not None and acc.specs.pcie_gen.value == gen
    w = make_workload(task="full", gpus=8, zero=3, offload_optimizer=True, framework="deepspeed")
    cpu_adam_s, h2d = offload_rates(cat, acc, w)
    assert math.isfinite(h2d) and math.isfinite(cpu_adam_s)
