"""An offer's `may_be` (the other parts a listing that leaves out its card's form factor or memory size may rent:
`Offer.unstated`) names catalog accelerators: the loader refuses an unknown id, naming the file, row and field,
as it does an unknown `device` (buyer review 2026-12-02 #2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from suanli.catalog.load import DATA_DIR, load_files
from suanli.errors import DataFileError

SEEDS = DATA_DIR / "seeds.yaml"

ROWS = """
accelerators:
  - id: x1
    name: X1 SXM
    vendor: nvidia
    family: ada
    domestic: false
    segment: datacenter
    form_factor: sxm
    stack: cuda
    interconnect: nvswitch
    specs:
      memory_gib: {value: 80, source: seed-000}
  - id: x1-pcie
    name: X1 PCIe
    vendor: nvidia
    family: ada
    domestic: false
    segment: datacenter
    form_factor: pcie
    stack: cuda
    interconnect: none
    specs:
      memory_gib: {value: 80, source: seed-000}
stacks:
  - {id: cuda, name: CUDA, vendor: nvidia, source: seed-000}
offers:
  - id: o1
    provider: P
    device: x1
    kind: reference
    cards: 8
    billing_unit: month
    price_cny: {value: 25000, source: seed-000}
    date: 2026-10-10
    source: seed-000
    unstated: [form_factor]
    may_be: [PART]
"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "a.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_may_be_loads_with_a_catalog_part(tmp_path: Path) -> None:
    cat = load_files([SEEDS, _write(tmp_path, ROWS.replace("PART", "x1-pcie"))])
    o = next(o for o in cat.offers if o.id == "o1")
    assert o.unstated == ("form_factor",) and o.may_be == ("x1-pcie",)


def test_an_unknown_may_be_part_is_refused_naming_row_and_field(tmp_path: Path) -> None:
    with pytest.raises(DataFileError) as e:
        load_files([SEEDS, _write(tmp_path, ROWS.replace("PART", "x9"))])
    msg = str(e.value)
    assert "a.yaml" in msg and "o1" in msg and "may_be" in msg and "'x9'" in msg
