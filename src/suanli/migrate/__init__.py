"""Will a model run on Ascend? Offline operator coverage against torch_npu, adapted lists and effort.

`suanli.migrate.coverage` is pure (no torch): it classifies an `OpTrace` against a torch_npu operator
list. The trace itself comes from `suanli.trace` (the only part that imports torch/transformers).
"""

from __future__ import annotations

from suanli.migrate.coverage import (
    AdaptedList,
    CoverageReport,
    NpuOpList,
    OpRow,
    OpTrace,
    available_versions,
    classify,
    load_caveats,
    load_fused,
    load_op_list,
    resolve_version,
)

__all__ = [
    "AdaptedList",
    "CoverageReport",
    "NpuOpList",
    "OpRow",
    "OpTrace",
    "available_versions",
    "classify",
    "load_caveats",
    "load_fused",
    "load_op_list",
    "resolve_version",
]
