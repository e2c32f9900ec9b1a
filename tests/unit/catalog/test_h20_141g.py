"""The H20's 141 GB HBM3e variant is its own device (variant_of h20): SMM's '141GB H20 八卡服务器' month is priced
on it, not on the 96 GB part, so a plan on that offer gets 141 GiB per card (buyer review 2026-12-01)."""

from __future__ import annotations

from suanli.catalog import lookup


def test_the_141g_variant_and_its_offer(cat) -> None:  # type: ignore[no-untyped-def]
    big, small = lookup.accelerator(cat, "h20-141g"), lookup.accelerator(cat, "h20")
    assert big.variant_of == "h20" and big in lookup.variants(cat, small)
    # the 96 GB part as nvidia-smi reports it: 97871 MiB = 95.58 GiB; no device figure for the 141 GB part yet
    assert big.specs.memory_gib.value == 141 and small.specs.memory_gib.value == 95.58
    assert big.specs.bf16_dense_tflops.value == small.specs.bf16_dense_tflops.value  # same die, same compute
    smm = next(o for o in cat.offers if o.id == "smm-h20-141g-8card-month-2026-07")
    assert smm.device == "h20-141g" and "141GB H20" in (smm.price_cny.chosen.note or "")
    assert not [o for o in cat.offers if o.device == "h20" and "141" in (o.note or "") + (o.price_cny.chosen.note or "")]
    assert {u.device for u in cat.unpriced} >= {"h20", "h20-141g"}
