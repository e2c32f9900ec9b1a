"""Task G2 (2026-12-01): an efficiency factor names where it really came from. A device with no measurement of its own
took the family median (Hopper 0.80, set by H100/H20/H200 runs) and the estimate printed a measurement id
("meas-zzc-db") as if that device had been measured. `efficiency.basis` decides, for every caller: measured on this
device, inherited from the variant's parent, family median (with the members), a row for a family or device list,
one row for every device, or assumed (no source, or a family with no measured device: the median of all of them)."""

from __future__ import annotations

import json
import statistics

import pytest
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import MEASURED_MATMUL, read_yaml
from suanli.catalog.schema import Catalog
from suanli.cli.main import app
from suanli.estimate.efficiency import basis, efficiency
from suanli.i18n import Message, render

_MEASURED = {r["device"] for r in (read_yaml(MEASURED_MATMUL) or {})["measurements"]}


def test_own_measurement_says_measured(cat: Catalog) -> None:
    e = efficiency(cat, lookup.accelerator(cat, "h100-sxm"), "matmul", "bf16")
    assert (e.basis, e.basis_devices, e.source) == ("measured", ["h100-sxm"], "meas-zzc-db")
    assert e.provenance == "measured on h100-sxm, source meas-zzc-db"


def test_variant_inherits(cat: Catalog) -> None:
    e = efficiency(cat, lookup.accelerator(cat, "h20-141g"), "matmul", "bf16")
    assert "h20-141g" not in _MEASURED and (e.basis, e.basis_devices) == ("inherited", ["h20"])
    assert e.provenance.startswith("inherited from h20 ") and "measured" not in e.provenance


def test_unmeasured_device_says_family_median_with_members(cat: Catalog) -> None:
    acc = lookup.accelerator(cat, "h800")
    e = efficiency(cat, acc, "matmul", "bf16")
    members = tuple(sorted(d for d in _MEASURED if lookup.accelerator(cat, d).family == "hopper"))
    assert "h800" not in _MEASURED and members == ("h100-sxm", "h20", "h200")  # h20-141g inherits, not a member
    assert (e.basis, tuple(e.basis_devices)) == ("family-median", members)
    assert e.provenance == "family median of h100-sxm, h20, h200, source meas-zzc-db"
    own = [efficiency(cat, lookup.accelerator(cat, d), "matmul", "bf16").value for d in members]
    assert e.value == statistics.median(own)  # three members: the middle one
    zh = render(Message.from_json(e.provenance_i18n or {}), "zh")
    assert zh == "同系列 h100-sxm、h20、h200 实测的中位数，来源 meas-zzc-db"


def test_family_median_source_is_its_members(cat: Catalog) -> None:
    """The median's source is the source of the member whose value it is (was: the first device's source for every
    family, so the DaVinci median of the 910B2's own run said meas-zzc-db)."""
    e = efficiency(cat, lookup.accelerator(cat, "ascend-910b"), "matmul", "bf16")
    assert (e.basis, e.basis_devices, e.source) == ("family-median", ["ascend-910b2"], "meas-zzc-issue-109")


@pytest.mark.parametrize("gpu", ["mtt-s4000", "kunlunxin-p800", "mlu590"])
def test_device_in_no_measured_family_says_assumed(cat: Catalog, gpu: str) -> None:
    acc = lookup.accelerator(cat, gpu)
    assert not any(lookup.accelerator(cat, d).family == acc.family for d in _MEASURED)
    e = efficiency(cat, acc, "matmul", "bf16")
    own = {f.device for f in cat.efficiency if f.metric == "matmul" and f.id.endswith("-bf16") and f.derived is None
           and isinstance(f.device, str)}  # the devices with a run and a dense peak to divide it by
    assert e.basis == "assumed" and set(e.basis_devices) == own and len(own) >= 10
    assert e.provenance.startswith(f"assumed: no measured device in the {acc.family} family, median of all ")
    t = efficiency(cat, acc, "train_mfu", "bf16")
    assert (t.basis, t.basis_devices, t.provenance) == ("assumed", [], "assumed default")


def test_group_and_general_rows(cat: Catalog) -> None:
    h800 = lookup.accelerator(cat, "h800")
    fam = efficiency(cat, h800, "train_mfu", "bf16")
    assert (fam.factor_id, fam.basis, fam.basis_devices) == ("mfu-hopper", "family", [])
    assert fam.provenance == "set for the hopper family, source eff-fit-engines"
    a800 = efficiency(cat, lookup.accelerator(cat, "a800"), "train_mfu", "bf16")
    assert a800.basis == "family" and a800.basis_devices == ["a100-40g", "a100-80g", "a100-80g-pcie", "a800"]
    gen = efficiency(cat, h800, "decode_step_overhead_s", "bf16", "vllm")
    assert (gen.basis, gen.provenance) == ("general", "same for every device, source eff-fit-decode")


def test_every_device_and_metric_has_a_basis_that_matches_its_row(cat: Catalog) -> None:
    """No device is said to be measured unless the row is its own; nothing derived says measured."""
    for acc in cat.accelerators:
        for metric in ("matmul", "train_mfu", "decode_bandwidth"):
            for precision in ("bf16", "fp16", "fp8", "int4"):
                e = efficiency(cat, acc, metric, precision)
                row = next(f for f in cat.efficiency if f.id == e.factor_id)
                assert basis(row, acc) == (e.basis, tuple(e.basis_devices))
                if e.basis == "measured":
                    assert row.device_ids == (acc.id,) and row.derived is None
                if metric == "matmul" and acc.id not in _MEASURED:
                    assert e.basis != "measured" and "measured on" not in e.provenance


def _estimate(*args: str, json_: bool = False) -> str:
    r = CliRunner().invoke(app, [*args, "estimate", "--model", "qwen2.5-7b", "--task", "inference", "--gpu", "h800",
                                 *(["--json"] if json_ else [])], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    return r.output


def test_cli_text_json_and_chinese_say_it() -> None:
    assert "efficiency matmul = 0.80 (family median of h100-sxm, h20, h200, source meas-zzc-db)" in _estimate()
    assert "同系列 h100-sxm、h20、h200 实测的中位数，来源 meas-zzc-db" in _estimate("--lang", "zh")
    out = json.loads(_estimate(json_=True))
    mm = next(x for x in out["speed"]["efficiency"] if x["metric"] == "matmul")
    assert mm["basis"] == "family-median" and mm["basis_devices"] == ["h100-sxm", "h20", "h200"]
    assert mm["provenance_i18n"]["id"] == "est.basis.family_median"
