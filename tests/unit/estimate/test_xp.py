"""`estimate.xp`: the estimate core's element-wise functions compute plain numbers as numpy does, without numpy, so
`suanli estimate` (and `gpus`, `gpu`) never imports it (~266 M of ~1.46 G instructions, valgrind 2026-12-03), while
arrays still go to numpy (the planner's search) and every formula stays written once."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cli_probe import NUMPY_LOADED, probe_cli  # tests/cli_probe.py: the one probe script
from suanli.catalog.load import load_catalog
from suanli.estimate import xp
from suanli.estimate.memory import training_peak
from suanli.estimate.speed import RECOMPUTE, inference_rates, inference_speed_terms, inference_step, reads_kv_per_query_head
from suanli.estimate.speed import runs_awq_gemm, training_rates, training_speed_terms, training_step
from suanli.estimate.workload import Workload

NAN, INF = math.nan, math.inf
VALUES = [0, 3, -2, 0.0, -0.0, 2.5, -1.5, 1e300, INF, -INF, NAN, True, False]


def _same(plain: Any, ref: Any) -> None:
    """`plain` is a plain Python number of numpy's value and kind (float, int or bool)."""
    assert type(plain) in (int, float, bool), type(plain)
    r = np.asarray(ref).item()
    assert type(plain) is type(r), (plain, r)
    assert (math.isnan(plain) and math.isnan(r)) if isinstance(r, float) and math.isnan(r) else plain == r, (plain, r)


@pytest.mark.parametrize("a", VALUES)
@pytest.mark.parametrize("b", VALUES)
def test_two_argument_functions_match_numpy(a: Any, b: Any) -> None:
    with np.errstate(all="ignore"):
        for f in ("maximum", "minimum", "logical_and", "divide"):
            _same(getattr(xp, f)(a, b), getattr(np, f)(a, b))
        if not (type(a) is bool and type(b) is bool):  # np.mod of two bools is an int8: the core never asks it
            _same(xp.mod(a, b), np.mod(a, b))
        for c in (True, False):
            _same(xp.where(c, a, b), np.where(c, a, b))
        _same(xp.clip(a, -1.0, 2), np.clip(a, -1.0, 2))


@pytest.mark.parametrize("x", VALUES)
def test_one_argument_functions_match_numpy(x: Any) -> None:
    with np.errstate(all="ignore"):
        for f in ("ceil", "floor", "sqrt", "isnan", "isfinite", "logical_not"):
            if f in ("ceil", "floor", "sqrt") and type(x) is bool:
                continue  # numpy types these float16: the core never asks it
            _same(getattr(xp, f)(x), getattr(np, f)(x))
    _same(xp.asarray(x, dtype=float), np.asarray(x, dtype=float))
    assert xp.ndim(x) == 0 and xp.full_like(x, True) is True
    assert xp.isin(x, (3, 2.5)) == bool(np.isin(x, (3, 2.5)))


def test_arrays_and_numpy_scalars_go_to_numpy() -> None:
    a = np.array([1.0, 4.0, NAN])
    assert isinstance(xp.maximum(a, 2.0), np.ndarray) and isinstance(xp.where(a > 1, a, 0.0), np.ndarray)
    assert isinstance(xp.maximum(np.float64(1.0), 2.0), np.float64)  # a numpy scalar keeps numpy's division
    np.testing.assert_array_equal(xp.take((10, 20, 30), np.array([2, 0])), [30, 10])
    assert xp.take((10, 20, 30), 1) == 20
    assert xp.full_like(a, True).tolist() == [True, True, True] and xp.ndim(a) == 1
    assert xp.logical_not(np.array([True, False])).tolist() == [False, True]


def test_training_peak_with_plain_numbers_picks_one_moment() -> None:
    assert training_peak(10.0, 1.0, 5.0, 6.0) == (1.0, 5.0, 6.0, "start")
    assert training_peak(20.0, 1.0, 5.0, 6.0) == (20.0, 0.0, 0.0, "end")


def _equal(plain: dict[str, Any], ref: dict[str, Any]) -> None:
    assert plain.keys() == ref.keys()
    for k, v in plain.items():
        r = np.asarray(ref[k]).item()
        assert type(v) in (int, float, bool), (k, type(v))
        assert (math.isnan(v) and math.isnan(r)) if isinstance(r, float) and math.isnan(r) else v == r, (k, v, r)


@pytest.mark.parametrize("kw", [dict(task="inference", tp=1, batch=8),
                                dict(task="inference", tp=2, pp=2, batch=4),
                                dict(task="full", tp=2, pp=2, dp=2, zero=3, recompute="full",
                                     grad_accum=4, vpp=2),
                                dict(task="lora", tp=1, dp=4, zero=2, tp_comm_overlap=True)])
def test_one_workload_in_plain_numbers_equals_numpy_scalars(kw: dict[str, Any]) -> None:
    """The estimate kernels give the very figures, bit for bit, with plain numbers as they gave with numpy scalars
    (`inference_speed`, `training_step_of` passed np.float64 before)."""
    cat = load_catalog()
    m = next(x for x in cat.models if x.id == "meta-llama/Llama-2-7b-hf")
    acc = next(x for x in cat.accelerators if x.id == "a100-80g")
    w = Workload(**{k: v for k, v in kw.items() if k != "dp"}, gpus=kw.get("tp", 1) * kw.get("pp", 1) * kw.get("dp", 1))
    assert w.dp == kw.get("dp", 1)
    f = np.float64
    if w.training:
        t = training_speed_terms(m, w, cat)
        rates, _ = training_rates(cat, acc, w, ())
        args: tuple[Any, ...] = (w.tp, w.pp, w.dp, w.ep)
        rc = RECOMPUTE.index(w.recompute)
        common = dict(vpp=w.vpp, cp=w.cp)
        plain = training_step(t, *map(float, args), int(w.zero), rc, float(w.batch), float(w.grad_accum), rates,
                              **{k: float(v) for k, v in common.items()}, tp_overlap=bool(w.tp_comm_overlap),
                              offload=bool(w.offload_optimizer))
        ref = training_step(t, *map(f, args), np.int64(w.zero), rc, f(w.batch), f(w.grad_accum), rates,
                            **{k: f(v) for k, v in common.items()}, tp_overlap=np.bool_(w.tp_comm_overlap),
                            offload=np.bool_(w.offload_optimizer))
    else:
        t = inference_speed_terms(m, w, reads_kv_per_query_head(cat, w), runs_awq_gemm(cat, w))
        rates, _ = inference_rates(cat, acc, w, ())
        plain = inference_step(t, float(w.tp), float(w.ep), float(w.batch), rates, float(w.pp))
        ref = inference_step(t, f(w.tp), f(w.ep), f(w.batch), rates, f(w.pp))
    _equal(plain, ref)


@pytest.mark.parametrize("args", [
    ("estimate", "--model", "llama-2-7b", "--gpu", "rtx-4090"),
    ("estimate", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--json"),
    ("estimate", "--model", "llama-2-7b", "--task", "full", "--gpu", "a100-80g", "--gpus", "8", "--zero", "3"),
    ("--lang", "zh", "estimate", "--model", "llama-2-7b", "--task", "lora", "--gpu", "910b"),
    ("gpus",), ("gpu", "h100-sxm"),
    # a replica that does not fit: the hint names plan's sizes (plan.sizes), not the search module
    ("estimate", "--model", "deepseek-r1", "--gpu", "910c", "--gpus", "8", "--tp", "8", "--ep", "2", "--batch", "25"),
], ids=["inference", "json", "full-zero3", "lora-910b-zh", "gpus", "gpu", "replica-hint"])
def test_one_workload_commands_import_no_numpy(tmp_path: Path, args: tuple[str, ...]) -> None:
    r = probe_cli(args, tmp_path, NUMPY_LOADED)
    assert r.stdout.strip(), r.stderr
    assert "NUMPY False" in r.stderr, r.stderr
