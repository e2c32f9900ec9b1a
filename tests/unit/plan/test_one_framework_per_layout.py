"""`plan.search._one_framework_per_layout` keeps, of the rows alike in every layout column (device, cards, tp, pp,
vpp, ep, ZeRO, recompute, micro-batch, optimizer option, precision, network), the fitting one first, then the
fastest, then the earliest — compared here with that rule written out row by row, on the planner's own grids and
on grids with the same layout under several frameworks. The rows are grouped by one integer code of the columns
(`_layout_code`), or by the columns themselves where a code cannot hold them (a fraction, a NaN beyond the network,
spans past 2^62): both ways are checked."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.catalog.offers import usable_offers
from suanli.plan.request import make_request
from suanli.plan.search import _LAYOUT_COLUMNS, _devices, _layout_code, _one_framework_per_layout, _train_grid

EVERY = dict(region="any", offer_kinds=("listing", "index", "reference"))


def _by_rule(grid: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The rule row by row: per layout (a NaN network is one network) the fitting row with the most tokens/s (a
    non-finite speed counts as none), the earliest of equals; the kept rows in grid order."""
    best: dict[tuple[Any, ...], int] = {}
    for i in range(grid["dev"].shape[0]):
        net = float(grid["net"][i])
        key = (*(float(grid[k][i]) for k in _LAYOUT_COLUMNS), -1.0 if math.isnan(net) else net)
        fits = bool(grid["fits"][i])
        tok = float(grid["tok_s"][i]) if fits and math.isfinite(float(grid["tok_s"][i])) else -math.inf
        j = best.get(key)
        if j is None:
            best[key] = i
            continue
        fits_j = bool(grid["fits"][j])
        tok_j = float(grid["tok_s"][j]) if fits_j and math.isfinite(float(grid["tok_s"][j])) else -math.inf
        if (fits, tok) > (fits_j, tok_j):
            best[key] = i
    keep = np.array(sorted(best.values()), dtype=int)
    return {k: v[keep] for k, v in grid.items()}


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a)


def _grid(cat: Any, **kw: Any) -> dict[str, np.ndarray]:
    m = lookup.model(cat, kw["model"])
    req = make_request(**kw, **EVERY)
    return _train_grid(cat, m, req, _devices(cat, m, req, usable_offers(cat, req.region, req.offer_kinds)))[0]


@pytest.mark.parametrize("kw", [
    dict(model="llama-2-70b", task="full", tokens=1e9),  # every framework: layouts under several
    dict(model="mixtral-8x7b", task="full", tokens=1e9, framework="megatron"),  # one framework: every row kept
    dict(model="qwen2.5-7b", task="lora", tokens=1e8),
], ids=["full-70b", "moe-megatron", "lora-7b"])
def test_the_planners_grids_keep_the_rules_rows(cat, kw) -> None:  # type: ignore[no-untyped-def]
    grid = _grid(cat, **kw)
    cols = [grid[k] for k in _LAYOUT_COLUMNS] + [np.nan_to_num(grid["net"], nan=-1.0)]
    assert _layout_code(cols) is not None  # the planner's columns: whole values, a code holds them
    assert _same(_one_framework_per_layout(grid), _by_rule(grid))


@pytest.mark.parametrize("variant", ["code", "fraction", "nan", "wide"])
def test_a_layout_under_several_frameworks_keeps_the_fitting_fastest_earliest(cat, variant: str) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    base = _grid(cat, model="qwen2.5-7b", task="lora", tokens=1e8)
    for _ in range(5):
        idx = rng.integers(0, base["dev"].shape[0], size=400)
        g = {k: v[idx].copy() for k, v in base.items()}
        dup = rng.integers(0, 400, size=200)  # the same layouts again, under other frameworks and speeds
        g = {k: np.concatenate([v, v[dup]]) for k, v in g.items()}
        g["fw"][400:] = rng.integers(0, 4, size=200)
        g["tok_s"][400:] = rng.choice([np.nan, 1.0, 2.0, float(g["tok_s"][0])], size=200)
        g["fits"][400:] = rng.random(200) < 0.5
        if variant == "fraction":
            g["net"] = g["net"] + rng.choice([0.0, 0.5], size=600)
        elif variant == "nan":
            g["b"] = np.where(rng.random(600) < 0.1, np.nan, g["b"])
        elif variant == "wide":
            g["gpus"] = g["gpus"] * 2.0**40
        cols = [g[k] for k in _LAYOUT_COLUMNS] + [np.nan_to_num(g["net"], nan=-1.0)]
        assert (_layout_code(cols) is not None) == (variant == "code")
        assert _same(_one_framework_per_layout(g), _by_rule(g))  # a NaN column value equals no other (its own row)
