"""Issue 12 (decode-speed out-of-sample band): AutoGPTQ's exllama (v1) and cuda-old kernels read their packed int4
weights on the A100 at their kernel benchmark's share of the 16-bit read rate (fxmarty/q4f16-gemm-gemv-benchmark, one
1 x 8192 x 8192 layer: 0.357 and 0.293 of fp16 nn.Linear's rate; efficiency.yaml gptq-*-share-ga100), on every pass
over the packed weights; elsewhere no measurement, the 16-bit rate, and the estimate says which."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.schema import EfficiencyFactor
from suanli.estimate import speed
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload


def _w(kernel: str | None, batch: int = 1):  # type: ignore[no-untyped-def]
    return make_workload(task="inference", precision="int4", batch=batch, input=512, output=512, engine="hf",
                         gptq_kernel=kernel)


@pytest.mark.parametrize("kernel,share", [("exllama", 0.36), ("cuda-old", 0.29), ("exllamav2", None)])
def test_a100_rate_per_kernel(cat, kernel, share) -> None:  # type: ignore[no-untyped-def]
    acc, m = lookup.accelerator(cat, "a100-80g"), lookup.model(cat, "llama-2-13b")
    r, used = speed.inference_rates(cat, acc, _w(kernel))
    assert r.get("e_quant") == share
    assert ("gptq-" in " ".join(e.factor_id for e in used)) == (share is not None)
    t = speed.inference_speed_terms(m, _w(kernel))
    for tokens in (1, 4):
        passes = 1 if kernel == "exllamav2" else tokens  # exllamav2: one pass per 8 rows
        factor = float(speed.quant_kernel_byte_factor(t, tokens, r))
        assert factor == pytest.approx(1.0 + t.quant_weight_share * (passes / (share or 1.0) - 1.0))


def test_other_devices_keep_the_16_bit_rate(cat) -> None:  # type: ignore[no-untyped-def]
    """The old kernels are instruction-bound on the A100 only (the same benchmark's A10G rows: 0.89 / 0.77): a GA102
    or Hopper card gets no measured share."""
    for device in ("rtx-4090", "h100-sxm", "a10"):
        r, _ = speed.inference_rates(cat, lookup.accelerator(cat, device), _w("cuda-old"))
        assert r["e_quant"] == 1.0


def test_slower_kernel_decodes_slower_and_reconstruct_path_is_unchanged(cat) -> None:  # type: ignore[no-untyped-def]
    acc, m = lookup.accelerator(cat, "a100-80g"), lookup.model(cat, "llama-2-13b")

    def tpot(kernel: str | None, batch: int = 1) -> float:
        return speed.inference_speed(cat, m, acc, _w(kernel, batch)).tpot_s

    assert tpot("cuda-old") > tpot("exllama") > tpot("exllamav2") == pytest.approx(tpot(None))
    # from 8 rows exllama reconstructs a 16-bit copy: the packed-pass rate no longer applies
    no_share = (EfficiencyFactor(id="t", metric="gptq_exllama_share", value=1.0, source="assumed"),)
    w8 = _w("exllama", 8)
    with_share = speed.inference_speed(cat, m, acc, w8).tpot_s
    without = speed.inference_speed(cat, m, acc, w8, overrides=no_share).tpot_s
    assert with_share == pytest.approx(without)


@pytest.mark.parametrize("device,msg_id", [("a100-80g", "est.note.quant_kernel_share"),
                                           ("rtx-4090", "est.note.quant_kernel_share_unmeasured")])
def test_estimate_says_the_rate_it_charged(cat, device, msg_id) -> None:  # type: ignore[no-untyped-def]
    r = estimate(cat, lookup.model(cat, "llama-2-13b"), lookup.accelerator(cat, device), _w("exllama"))
    ids = [n["id"] for n in r.notes_i18n if isinstance(n, dict) and n["id"].startswith("est.note.quant_kernel_share")]
    assert ids == [msg_id]
    # past its reconstruct size the kernel's packed passes are gone: no rate line
    r8 = estimate(cat, lookup.model(cat, "llama-2-13b"), lookup.accelerator(cat, device), _w("exllama", 8))
    assert not [n for n in r8.notes_i18n if isinstance(n, dict) and n["id"].startswith("est.note.quant_kernel_share")]
