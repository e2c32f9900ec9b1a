"""compare's serving rows are labelled by plan's one label function (task ifx, item 5): a MoE layout whose replicas
share the routed experts names its expert-parallel group (`8×tp1·ep8 b256 bf16`), as `suanli plan`'s table does;
compare's label dropped it (`tp1 × 8 replicas · batch 256`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.cli.plan_cmd import _layout
from suanli.i18n import Message, render
from suanli.plan.compare import compare_devices
from suanli.plan.labels import serving_label


def test_serving_label() -> None:
    assert serving_label(8, 1, 8, 256, "bf16") == "8×tp1·ep8 b256 bf16"
    assert serving_label(4, 2, 1, 128, "fp8") == "4×tp2 b128 fp8"  # no expert parallelism: no ep


def test_plan_table_uses_it() -> None:
    p = SimpleNamespace(replicas=8, tp=1, ep=8, micro_batch=34, precision="int4")
    assert _layout(p) == serving_label(8, 1, 8, 34, "int4") == "8×tp1·ep8 b34 int4"


def test_compare_rows_name_the_expert_group(cat: Catalog) -> None:
    rows = compare_devices(cat, lookup.model(cat, "qwen3-30b-a3b"), ["h100", "910b"], "inference", 8)
    eps = [r["layout"]["ep"] for r in rows]
    assert any(ep > 1 for ep in eps), eps  # the case this pins: a MoE serving layout with expert parallelism
    for r in rows:
        lay: dict[str, Any] = r["layout"]
        label = serving_label(lay["dp"], lay["tp"], lay["ep"], lay["batch"], lay["precision"])
        assert lay["label"] == f"{label} · {lay['engine']}", lay
        assert (f"·ep{lay['ep']}" in lay["label"]) == (lay["ep"] > 1), lay
        said = Message.from_json(lay["label_i18n"])
        assert render(said, "zh") == render(said, "en") == lay["label"]  # numbers and ids only: one label


def test_dense_rows_keep_no_ep(cat: Catalog) -> None:
    rows = compare_devices(cat, lookup.model(cat, "qwen2.5-72b"), ["h200", "910b"], "inference", 8)
    for r in rows:
        assert "·ep" not in r["layout"]["label"] and r["layout"]["label"].startswith(f"{r['layout']['dp']}×tp"), r
