"""Will a model run on Ascend? Offline operator coverage against torch_npu, adapted lists and effort.

`suanli.migrate.coverage` is pure (no torch): it classifies an `OpTrace` against a torch_npu operator
list. The trace itself comes from `suanli.trace` (the only part that imports torch/transformers).

The names below are `suanli.migrate.coverage`'s, loaded when first asked for (PEP 562): `suanli plan` imports
`suanli.migrate.effort` for the migration weeks, which needs none of coverage's nine pydantic models (~8 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    if name in __all__:
        from suanli.migrate import coverage

        return getattr(coverage, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
