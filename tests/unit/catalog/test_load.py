"""The loader: schema errors name file, row and field; cross-references and look-ups."""

from __future__ import annotations

from pathlib import Path

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import DATA_DIR, load_files
from suanli.errors import DataFileError, NotFoundError

SEEDS = DATA_DIR / "seeds.yaml"

ACC = """
accelerators:
  - id: x1
    name: X1
    vendor: nvidia
    family: ada
    domestic: false
    segment: consumer
    form_factor: pcie
    stack: cuda
    interconnect: none
    specs:
      memory_gib: {value: 24, source: seed-000}
stacks:
  - {id: cuda, name: CUDA, vendor: nvidia, source: seed-000}
"""


def _write(tmp_path: Path, text: str, name: str = "a.yaml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_valid_file_loads(tmp_path: Path) -> None:
    cat = load_files([SEEDS, _write(tmp_path, ACC)])
    assert lookup.accelerator(cat, "X1").specs.memory_gib.value == 24


def test_error_names_file_row_and_field(tmp_path: Path) -> None:
    bad = ACC.replace("memory_gib: {value: 24", "memory_gib: {value: lots")
    with pytest.raises(DataFileError) as e:
        load_files([SEEDS, _write(tmp_path, bad)])
    msg = str(e.value)
    assert "a.yaml" in msg and "accelerators[1 (x1)]" in msg and "specs.memory_gib" in msg


def test_unknown_source_is_refused(tmp_path: Path) -> None:
    bad = ACC.replace("source: seed-000}\nstacks", "source: nowhere}\nstacks")
    with pytest.raises(DataFileError, match="source 'nowhere'"):
        load_files([SEEDS, _write(tmp_path, bad)])


def test_assumed_needs_a_reason(tmp_path: Path) -> None:
    bad = ACC.replace("{value: 24, source: seed-000}", "{value: 24, source: assumed}")
    with pytest.raises(DataFileError, match="must say why"):
        load_files([SEEDS, _write(tmp_path, bad)])
    ok = ACC.replace("{value: 24, source: seed-000}", "{value: 24, source: assumed, note: because}")
    load_files([SEEDS, _write(tmp_path, ok)])


def test_conflicting_values_need_exactly_one_default(tmp_path: Path) -> None:
    two = ACC.replace(
        "memory_gib: {value: 24, source: seed-000}",
        "memory_gib:\n        - {value: 24, source: seed-000}\n        - {value: 48, source: seed-003}",
    )
    with pytest.raises(DataFileError, match="exactly one 'default: true'"):
        load_files([SEEDS, _write(tmp_path, two)])


def test_unknown_stack_and_duplicate_alias(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="unknown stack"):
        load_files([SEEDS, _write(tmp_path, ACC.replace("stack: cuda", "stack: rocm"))])
    dup = ACC + ACC.split("stacks:")[0].replace("accelerators:", "").replace("id: x1", "id: x2").replace(
        "name: X1", "name: X2\n    aliases: [x1]"
    )
    with pytest.raises(DataFileError):
        load_files([SEEDS, _write(tmp_path, dup.replace("accelerators:\n", "accelerators:\n", 1))])


def test_invalid_yaml_names_the_line(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="line"):
        load_files([SEEDS, _write(tmp_path, "accelerators: [\n  {id: x")])


def test_did_you_mean(cat) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFoundError) as e:
        lookup.accelerator(cat, "h10")
    assert "h100-sxm" in e.value.suggestions  # the id, where the alias h100 matched (full-hB)
    with pytest.raises(NotFoundError) as e2:
        lookup.model(cat, "qwen2.5-7")
    assert any("Qwen2.5-7B" in s or "qwen2.5-7b" in s for s in e2.value.suggestions)


def test_model_lookup_is_case_insensitive_with_optional_org(cat) -> None:  # type: ignore[no-untyped-def]
    a = lookup.model(cat, "Qwen/Qwen2.5-7B-Instruct")
    assert lookup.model(cat, "qwen2.5-7b-instruct") is a
    assert lookup.model(cat, "qwen2.5-7b") is a


def test_910b_names_variants(cat) -> None:  # type: ignore[no-untyped-def]
    a = lookup.accelerator(cat, "910b")
    names = {v.id for v in lookup.variants(cat, a)}
    assert {"ascend-910b1", "ascend-910b2", "ascend-910b3", "ascend-910b4"} <= names
