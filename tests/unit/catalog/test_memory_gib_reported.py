"""memory_gib is the total the device reports (MiB / 1024), kept apart from the marketed "GB" figure."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup

# (device, default GiB, MiB the cited nvidia-smi / npu-smi / rocm-smi line shows, marketed GB)
REPORTED = [
    ("rtx-3090", 24.0, 24576, 24),
    ("rtx-4090", 23.99, 24564, 24),
    ("rtx-4090d", 23.99, 24564, 24),
    ("rtx-4090-48g", 47.99, 49140, 48),
    ("rtx-5090", 31.84, 32607, 32),
    ("l20", 44.99, 46068, 48),
    ("l40s", 44.99, 46068, 48),
    ("a10", 22.49, 23028, 24),
    ("a100-40g", 40.0, 40960, 40),
    ("a100-80g", 80.0, 81920, 80),
    ("a100-80g-pcie", 80.0, 81920, 80),
    ("a800", 80.0, 81920, 80),
    ("h100-sxm", 79.65, 81559, 80),
    ("h100-pcie", 79.65, 81559, 80),
    ("h800", 79.65, 81559, 80),
    ("h20", 95.58, 97871, 96),
    ("h200", 140.4, 143771, 141),
    ("b200", 179.06, 183359, 180),
    ("ascend-910b3", 64.0, 65536, 64),
    ("ascend-910c", 128.0, 65536, 128),  # two chips of 65536 MiB each
    ("hygon-k100-ai", 63.98, 65520, 64),
]


@pytest.mark.parametrize(("device", "gib", "mib", "marketed_gb"), REPORTED)
def test_default_is_the_reported_total(cat, device: str, gib: float, mib: int, marketed_gb: int) -> None:  # type: ignore[no-untyped-def]
    mem = lookup.accelerator(cat, device).specs.memory_gib
    assert mem is not None
    chips = 2 if device == "ascend-910c" else 1
    assert mem.value == gib == round(chips * mib / 1024, 2)
    src = next(v for v in mem.values if v.value == gib and (v.default or len(mem.values) == 1))
    assert f"{mib}" in (src.note or "") + cat.sources[src.source].title.replace(",", "") + (cat.sources[src.source].note or "")
    # the marketed figure stays beside it, as an alternative or in the note
    assert any(v.value == marketed_gb for v in mem.values) or f"{marketed_gb} GB" in (src.note or "")


def test_every_memory_figure_says_what_it_is(cat) -> None:  # type: ignore[no-untyped-def]
    """A default that is not a device-reported total says it is the marketed figure, unverified."""
    for acc in cat.accelerators:
        mem = acc.specs.memory_gib
        if mem is None:
            continue
        d = next((v for v in mem.values if v.default), mem.values[0])
        text = (d.note or "") + (cat.sources[d.source].note or "") if d.source in cat.sources else d.note or ""
        assert "MiB" in text or "MB" in text or "unverified" in text or "taken as GiB" in text, acc.id
