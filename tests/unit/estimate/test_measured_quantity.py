"""memory.measured_quantity_bytes: the estimate in the quantity a memory measurement counts (issue 12, like with like),
and its agreement with the planner's fits rule (usable_memory_bytes): one fragmentation relation, counted once."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.errors import InputError
from suanli.estimate.memory import MEASURED_AS, measured_quantity_bytes, usable_memory_bytes
from suanli.units import GiB

NEED = 20 * GiB
F = 0.15  # gmlake-2024: fragmentation ratio = 1 − peak active / peak reserved
RUNTIME = 0.5 * GiB


def test_allocated_and_unknown_are_the_need() -> None:
    assert measured_quantity_bytes(NEED, F, RUNTIME, "allocated") == NEED
    assert measured_quantity_bytes(NEED, F, RUNTIME, "unknown") == NEED


def test_reserved_is_need_over_one_minus_fragmentation() -> None:
    assert measured_quantity_bytes(NEED, F, RUNTIME, "reserved") == pytest.approx(NEED / 0.85)
    # GMLake's definition read back: 1 − allocated / reserved is the fragmentation ratio
    assert NEED / measured_quantity_bytes(NEED, F, RUNTIME, "reserved") == pytest.approx(1 - F)


def test_device_adds_the_runtime_outside_the_pool() -> None:
    assert measured_quantity_bytes(NEED, F, RUNTIME, "device") == pytest.approx(NEED / 0.85 + RUNTIME)


def test_preallocated_pool_takes_no_fragmentation() -> None:
    assert measured_quantity_bytes(NEED, F, RUNTIME, "reserved", preallocated=True) == NEED
    assert measured_quantity_bytes(NEED, F, RUNTIME, "device", preallocated=True) == NEED + RUNTIME


def test_arrays_work() -> None:
    got = measured_quantity_bytes(np.array([1.0, 2.0]) * GiB, F, 0.0, "reserved")
    assert got == pytest.approx(np.array([1.0, 2.0]) * GiB / 0.85)


def test_unknown_kind_is_refused() -> None:
    assert MEASURED_AS == ("allocated", "reserved", "device", "unknown")
    with pytest.raises(InputError, match="measured_as"):
        measured_quantity_bytes(NEED, F, RUNTIME, "nvidia-smi")


@pytest.mark.parametrize("capacity_gib", [20.0, 23.5, 23.6, 24.0, 80.0])
def test_fits_rule_is_the_reserved_relation(capacity_gib: float) -> None:
    """The planner fits a need (runtime item included) when need ≤ capacity × (1 − f): exactly when the reserved
    figure of that need, need / (1 − f), is at most the card: the margin is counted once."""
    cap = capacity_gib * GiB
    need = NEED + RUNTIME
    assert (need <= usable_memory_bytes(cap, F, None)) == (measured_quantity_bytes(need, F, 0.0, "reserved") <= cap)
