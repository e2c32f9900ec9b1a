"""bench compare / calibrate: measured efficiency changes the next estimate for that device."""

from __future__ import annotations

import pytest
from factories import synthetic

from suanli.bench.feedback import calibrate_results, compare_result, load_calibration, save_calibration
from suanli.catalog.load import packaged_catalog


def _result(decode_eff: float, mfu: float):  # type: ignore[no-untyped-def]
    r = synthetic(decode_eff, mfu, 0.8, 0.9, accelerator="h100-sxm")
    return r.model_copy(update={"model": r.model.model_copy(update={"name": "llama-2-7b", "key": "llama-2-7b"})})


def test_calibration_moves_the_estimate_to_the_measurement() -> None:
    cat = packaged_catalog()
    r = _result(decode_eff=0.35, mfu=0.2)
    _, before = compare_result(cat, r)
    rejected: list[str] = []
    factors = calibrate_results(cat, [r], rejected)
    assert any("fp8" in x for x in rejected)  # the synthetic 1 TFLOPS fp8 matmul is implausible for an H100
    dec = [f for f in factors if f.metric == "decode_bandwidth"]
    assert dec and dec[0].device == "h100-sxm" and dec[0].source.startswith("measured:")
    save_calibration(factors)
    stored = load_calibration()
    assert {f.id for f in stored} == {f.id for f in factors}
    _, after = compare_result(cat, r, stored)
    err = {row.metric: abs(row.error_pct or 0) for row in after}
    err_before = {row.metric: abs(row.error_pct or 0) for row in before}
    assert err["decode_tokens_per_s"] < err_before["decode_tokens_per_s"]
    assert err["decode_tokens_per_s"] < 10


def test_saving_one_device_keeps_the_others() -> None:
    cat = packaged_catalog()
    a = calibrate_results(cat, [_result(0.3, 0.2)])
    save_calibration(a)
    b = [f.model_copy(update={"device": "a100-80g", "id": f.id.replace("h100-sxm", "a100-80g")}) for f in a]
    save_calibration(b)
    devices = {f.device for f in load_calibration()}
    assert devices == {"h100-sxm", "a100-80g"}


def test_a_result_without_device_or_microbenchmarks_is_refused() -> None:
    from suanli.errors import InputError

    r = _result(0.3, 0.2).model_copy(update={"accelerator": None, "micro": None})
    with pytest.raises(InputError, match="microbenchmarks"):
        compare_result(packaged_catalog(), r)
