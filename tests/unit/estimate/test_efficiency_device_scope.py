"""An efficiency row may be scoped to a list of devices (the chip its measurements ran on): mfu-ampere is fitted to A100
runs (GA100), so the A100 variants and the A800 take it while the RTX 3090 and the A10 (GA102, same family, no fitted
training run) keep mfu-default (buyer's review 2026-12-01: 4x RTX 3090 out-trained 2x RTX 4090 on the A100's MFU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import load_files
from suanli.catalog.schema import Catalog
from suanli.errors import DataFileError
from suanli.estimate.efficiency import efficiency

CATALOG = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "catalog"


@pytest.mark.parametrize("device", ["a100-40g", "a100-80g", "a100-80g-pcie", "a800"])
def test_ga100_parts_take_the_a100_fit(cat: Catalog, device: str) -> None:
    assert efficiency(cat, lookup.accelerator(cat, device), "train_mfu", "bf16").factor_id == "mfu-ampere"


@pytest.mark.parametrize("device", ["rtx-3090", "a10"])
def test_ga102_cards_keep_the_default(cat: Catalog, device: str) -> None:
    acc = lookup.accelerator(cat, device)
    assert acc.family == "ampere"  # same family: only the device list keeps the fit off them
    assert efficiency(cat, acc, "train_mfu", "bf16").factor_id == "mfu-default"


def test_an_unknown_device_in_an_efficiency_row_is_refused(tmp_path: Path) -> None:
    for f in CATALOG.glob("*.yaml"):
        text = f.read_text(encoding="utf-8")
        if f.name == "efficiency.yaml":
            text = text.replace("device: [a100-40g, a100-80g,", "device: [a100-40gb, a100-80g,")
            assert "a100-40gb" in text
        (tmp_path / f.name).write_text(text, encoding="utf-8")
    with pytest.raises(DataFileError, match="a100-40gb"):
        load_files(sorted(tmp_path.glob("*.yaml")))
