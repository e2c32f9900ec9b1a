"""Record which aten operators a model calls, without weights and without an accelerator.

This package is the only part of suanli's migration check that imports torch and transformers; it hands
plain data (`suanli.migrate.coverage.OpTrace`: operator name -> call count, plus the decompositions of
composite operators) to the pure classification in `suanli.migrate.coverage`. torch is imported lazily,
so `import suanli.trace` works without it; `trace_model` raises `suanli.errors.InputError` if torch or
transformers is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["shrink_config", "trace_model"]

if TYPE_CHECKING:
    from suanli.migrate.coverage import OpTrace


def trace_model(hf_config: dict[str, Any], **kwargs: Any) -> OpTrace:
    """See `suanli.trace.ops.trace_model`."""
    from suanli.trace.ops import trace_model as _trace

    return _trace(hf_config, **kwargs)


def shrink_config(hf_config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """See `suanli.trace.ops.shrink_config`."""
    from suanli.trace.ops import shrink_config as _shrink

    return _shrink(hf_config)
