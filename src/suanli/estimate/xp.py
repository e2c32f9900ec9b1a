"""The element-wise functions the estimate core writes its formulas with, once for one workload and for the
planner's grid: with plain Python numbers (int, float, bool; not numpy's scalars) they compute in Python, as numpy
would, and return a plain number; with anything else (numpy arrays or scalars) they call numpy, imported only then.
So `suanli estimate`, `gpus` and `gpu` run without numpy (its import: ~266 M of ~1.46 G instructions of an estimate,
valgrind, 2026-12-03), and the planner's search keeps its arrays.

The plain path keeps numpy's results: NaN propagates through `maximum`/`minimum`/`clip`; `ceil`/`floor` of inf
or NaN return it and of an int the int (numpy 2.1+); `sqrt` of a negative is NaN; `mod` by zero is 0 (ints) or NaN;
a result is a float where numpy's would be (`where(c, 1, 2.0)`: 1.0 or 2.0). Plain `/` by zero raises where numpy
scalars gave inf: the core's divisors are nonzero for a valid workload (tests/unit/estimate, tests/property), except
a speed, which an input could make 0 (a step past float's range: `--inter-node-gbit 5e-324`, refused since
2026-12-02 by `catalog.schema.MIN_INTER_NODE_GBIT_PER_S`; tests/unit/estimate/test_zero_speed_hours_1203.py),
divided by `divide`, numpy's inf."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["asarray", "ceil", "clip", "divide", "floor", "full_like", "isfinite", "isin", "isnan", "logical_and",
           "logical_not", "maximum", "minimum", "mod", "ndim", "plain", "sqrt", "take", "where"]

_PLAIN = frozenset((int, float, bool))
_NUMPY: Any = None  # numpy, once the first array came (`_np`)


def plain(*xs: Any) -> bool:
    """True when every argument is a plain Python number (int, float or bool; a numpy scalar is not)."""
    for x in xs:  # a loop, not all(<generator>): the planner's grid calls this ~20,000 times a plan (~4x faster)
        if type(x) not in _PLAIN:
            return False
    return True


def _np() -> Any:
    global _NUMPY
    if _NUMPY is None:
        import numpy  # here: the one-workload commands never import numpy (tests/unit/estimate/test_xp.py)

        _NUMPY = numpy
    return _NUMPY


def _promote(result: Any, *xs: Any) -> Any:
    """`result` as numpy types it for plain arguments: a float if any is a float, else an int (bools: a bool)."""
    if any(type(x) is float for x in xs):
        return float(result)
    if all(type(x) is bool for x in xs):
        return bool(result)
    return int(result)


def asarray(x: Any, dtype: type | None = None) -> Any:
    """`np.asarray(x, dtype)`; a plain number stays one (a float where dtype is float)."""
    if plain(x):
        return float(x) if dtype is float else x
    return _np().asarray(x, dtype=dtype)


def where(cond: Any, a: Any, b: Any) -> Any:
    """`np.where(cond, a, b)`."""
    if plain(cond, a, b):
        return _promote(a if cond else b, a, b)
    return _np().where(cond, a, b)


def maximum(a: Any, b: Any) -> Any:
    """`np.maximum(a, b)`: NaN if either is NaN."""
    if plain(a, b):
        if a != a or b != b:  # NaN
            return math.nan
        return _promote(a if a >= b else b, a, b)
    return _np().maximum(a, b)


def minimum(a: Any, b: Any) -> Any:
    """`np.minimum(a, b)`: NaN if either is NaN."""
    if plain(a, b):
        if a != a or b != b:  # NaN
            return math.nan
        return _promote(a if a <= b else b, a, b)
    return _np().minimum(a, b)


def clip(x: Any, lo: Any, hi: Any) -> Any:
    """`np.clip(x, lo, hi)`."""
    if plain(x, lo, hi):
        return minimum(maximum(x, lo), hi)
    return _np().clip(x, lo, hi)


def ceil(x: Any) -> Any:
    """`np.ceil(x)`: a float of a float (inf and NaN stay), an int of an int (numpy 2.1+)."""
    if plain(x):
        if type(x) is not float:
            return int(x)
        return float(math.ceil(x)) if math.isfinite(x) else x
    return _np().ceil(x)


def floor(x: Any) -> Any:
    """`np.floor(x)`: a float of a float (inf and NaN stay), an int of an int (numpy 2.1+)."""
    if plain(x):
        if type(x) is not float:
            return int(x)
        return float(math.floor(x)) if math.isfinite(x) else x
    return _np().floor(x)


def sqrt(x: Any) -> Any:
    """`np.sqrt(x)`: NaN for a negative."""
    if plain(x):
        return math.sqrt(x) if x >= 0 else math.nan
    return _np().sqrt(x)


def divide(a: Any, b: Any) -> Any:
    """`np.divide(a, b)` (true division): ±inf where b is 0 (a's sign times b's: -0.0 is negative), NaN for 0 / 0."""
    if plain(a, b):
        if b == 0:
            return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    return _np().divide(a, b)


def mod(a: Any, b: Any) -> Any:
    """`np.mod(a, b)` (the divisor's sign, as Python's %): 0 for ints and NaN for floats where b is 0."""
    if plain(a, b):
        if b == 0:
            return _promote(0, a, b) if type(a) is not float and type(b) is not float else math.nan
        return _promote(a % b, a, b)
    return _np().mod(a, b)


def isnan(x: Any) -> Any:
    """`np.isnan(x)`."""
    return math.isnan(x) if plain(x) else _np().isnan(x)


def isfinite(x: Any) -> Any:
    """`np.isfinite(x)`."""
    return math.isfinite(x) if plain(x) else _np().isfinite(x)


def logical_and(a: Any, b: Any) -> Any:
    """`np.logical_and(a, b)`."""
    return bool(a) and bool(b) if plain(a, b) else _np().logical_and(a, b)


def logical_not(x: Any) -> Any:
    """`np.logical_not(x)` (not `~`, which on a plain bool is -2 or -1)."""
    return not x if plain(x) else _np().logical_not(x)


def isin(x: Any, values: Sequence[Any]) -> Any:
    """`np.isin(x, values)`."""
    return x in values if plain(x) else _np().isin(x, values)


def take(values: Sequence[Any], index: Any) -> Any:
    """`np.asarray(values)[index]`: the element of a plain index, an array for an array of indices."""
    return values[index] if plain(index) else _np().asarray(values)[index]


def ndim(x: Any) -> int:
    """`np.ndim(x)`: 0 for a plain number."""
    return 0 if plain(x) else int(_np().ndim(x))


def full_like(x: Any, value: Any) -> Any:
    """`value` for a plain `x`, else an array of `value` in `x`'s shape (`np.full(np.shape(x), value)`)."""
    return value if plain(x) else _np().full(_np().shape(x), value)
