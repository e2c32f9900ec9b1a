"""Every source id a catalog row names resolves (`source` and every `*_source` field), and every source row is
cited somewhere."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from suanli.catalog.load import DATA_DIR, load_files
from suanli.catalog.schema import Framework
from suanli.errors import DataFileError

SRC = DATA_DIR.parent.parent  # src/suanli


@pytest.mark.parametrize(("field", "sid"), [("pp_zero_source", "deepspeed-pipe-engine"),
                                            ("tp_zero_source", "torchtitan-apply-fsdp"),
                                            ("offload_source", "deepspeed-offload-optimizer"),
                                            ("adamw8bit_source", "torchtune-readme")])
def test_a_typo_in_a_framework_source_field_fails_loading_naming_the_field(tmp_path: Path, field: str,
                                                                           sid: str) -> None:
    shutil.copytree(DATA_DIR, tmp_path / "catalog")
    fw = tmp_path / "catalog" / "frameworks.yaml"
    text = fw.read_text(encoding="utf-8")
    assert f"    {field}: {sid}\n" in text
    fw.write_text(text.replace(f"    {field}: {sid}\n", f"    {field}: {sid}-typo\n", 1), encoding="utf-8")
    with pytest.raises(DataFileError) as e:
        load_files((tmp_path / "catalog").glob("*.yaml"))
    msg = str(e.value)
    assert "frameworks.yaml" in msg and field in msg and f"'{sid}-typo'" in msg


def test_every_source_field_of_the_schema_is_a_checked_field() -> None:
    # the loader checks `source` and every field named *_source; these are the framework ones the review found
    fields = {f for f in Framework.model_fields if f.endswith("_source")}
    assert {"pp_zero_source", "tp_zero_source", "offload_source", "adamw8bit_source"} <= fields


def test_every_catalog_source_row_is_cited() -> None:
    """A source row is cited by id: in a `source`/`*_source` field or in a note that names it, in the data or code."""
    texts = [p.read_text(encoding="utf-8") for p in sorted(SRC.glob("data/**/*.yaml"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(SRC.rglob("*.py"))]
    uncited = []
    for p in sorted(DATA_DIR.glob("*.yaml")):
        for s in (yaml.safe_load(p.read_text(encoding="utf-8")) or {}).get("sources", []) or []:
            pat = re.compile(r"(?<![\w-])" + re.escape(s["id"]) + r"(?![\w-])")
            if sum(len(pat.findall(t)) for t in texts) < 2:  # the row's own `id:` is one
                uncited.append(f"{p.name}: {s['id']}")
    assert not uncited, uncited
