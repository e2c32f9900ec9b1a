"""Checks on the accelerator data files (accelerators-nvidia.yaml, accelerators-domestic.yaml) and on the
measured matmul table (data/measured/matmul_tflops.yaml).

These test the *data*, not the loader: every required device is present, every value has a source,
dense never exceeds sparse, the seeds' disagreements are kept with both sources, and every measured
matmul number is plausible against its device's dense peak.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import Accelerator, Alternatives, Catalog, Sourced

MEASURED = Path(__file__).resolve().parents[3] / "src" / "suanli" / "data" / "measured" / "matmul_tflops.yaml"

# The canonical ids the project agreed on (issue 2, item 3a).
REQUIRED_IDS = {
    "rtx-3090", "rtx-4090", "rtx-4090d", "rtx-4090-48g", "rtx-5090", "l20", "l40s", "a10", "a100-40g",
    "a100-80g", "a100-80g-pcie", "a800", "h100-sxm", "h100-pcie", "h800", "h20", "h200", "b200",
    "ascend-910b", "ascend-910b1", "ascend-910b2", "ascend-910b3", "ascend-910b4", "ascend-910c",
    "hygon-k100", "hygon-k100-ai", "mlu590", "mlu370-x8", "metax-c500", "kunlunxin-p800", "mtt-s4000",
}
# Every device the two seed articles mention (seed-000: 4090, H100, 910B; seed-003: 910B1-B4, A100 80GB,
# H100, H20, RTX 4090/5090, Hygon K100, MLU590, MetaX C500).
SEED_DEVICES = {
    "rtx-4090", "h100-sxm", "ascend-910b", "ascend-910b1", "ascend-910b2", "ascend-910b3", "ascend-910b4",
    "a100-80g", "h20", "rtx-5090", "hygon-k100", "mlu590", "metax-c500",
}
DENSE_SPARSE = [
    ("tf32_dense_tflops", "tf32_sparse_tflops"),
    ("fp16_dense_tflops", "fp16_sparse_tflops"),
    ("bf16_dense_tflops", "bf16_sparse_tflops"),
    ("fp8_dense_tflops", "fp8_sparse_tflops"),
    ("int8_dense_tops", "int8_sparse_tops"),
]
PEAK_FIELD = {"fp16": "fp16_dense_tflops", "bf16": "bf16_dense_tflops", "fp32": "fp32_tflops"}

# Measured matmul may exceed a dense peak only for these explicit, explained reasons:
# GeForce cards boost above the rated boost clock the peak is computed from (4090: ~2.7 GHz vs 2.52 GHz
# rated; 5090 likewise), so measured FP32-accumulate matmul can beat the "peak" by up to ~16%.
GEFORCE_OVERBOOST_MAX = 1.16
# MetaX C500: fp32_tflops is the 18 TFLOPS vector rate; torch's fp32 matmul runs on the 36 TFLOPS matrix
# FP32 units (gitee-domestic-gpu), so 29.8 measured is above the vector peak but below the matrix one.
C500_MATRIX_FP32_TFLOPS = 36.0


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return packaged_catalog()


@pytest.fixture(scope="module")
def accs(catalog: Catalog) -> dict[str, Accelerator]:
    return {a.id: a for a in catalog.accelerators}


@pytest.fixture(scope="module")
def measured() -> dict[str, Any]:
    return yaml.safe_load(MEASURED.read_text(encoding="utf-8"))


def _sourced_values(acc: Accelerator) -> list[tuple[str, Sourced[Any]]]:
    """Every sourced value of an accelerator (specs and china_market) with its field name."""
    out: list[tuple[str, Sourced[Any]]] = []
    fields: list[tuple[str, Alternatives[Any] | None]] = [("china_market", acc.china_market)]
    fields += [(name, getattr(acc.specs, name)) for name in type(acc.specs).model_fields]
    for name, alts in fields:
        out += [(name, v) for v in (alts.values if alts is not None else ())]
    return out


def _field(acc: Accelerator, name: str) -> Alternatives[Any] | None:
    return getattr(acc.specs, name)


def _sources_of(alts: Alternatives[Any] | None) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for v in alts.values if alts is not None else ():
        out.setdefault(v.source, []).append(v.value)
    return out


def test_at_least_30_accelerators_with_the_canonical_ids(accs: dict[str, Accelerator]) -> None:
    assert len(accs) >= 30
    missing = REQUIRED_IDS - set(accs)
    assert not missing, f"missing accelerator ids: {sorted(missing)}"


def test_every_seed_device_is_present(accs: dict[str, Accelerator]) -> None:
    assert SEED_DEVICES <= set(accs)


def test_every_accelerator_has_a_source(accs: dict[str, Accelerator]) -> None:
    for acc in accs.values():
        sources = {v.source for _, v in _sourced_values(acc)}
        assert sources, f"{acc.id} has no sourced value"


def test_every_source_id_is_defined(catalog: Catalog) -> None:
    for acc in catalog.accelerators:
        for path, v in _sourced_values(acc):
            assert v.source == "assumed" or v.source in catalog.sources, f"{acc.id}.{path}: {v.source}"


def test_910b_variants_point_at_the_family(accs: dict[str, Accelerator]) -> None:
    for vid in ("ascend-910b1", "ascend-910b2", "ascend-910b3", "ascend-910b4"):
        assert accs[vid].variant_of == "ascend-910b"


def test_domestic_flag_matches_vendor(accs: dict[str, Accelerator]) -> None:
    for acc in accs.values():
        assert acc.domestic == (acc.vendor not in {"nvidia", "amd", "intel"}), acc.id


def test_no_dense_value_exceeds_its_sparse_counterpart(accs: dict[str, Accelerator]) -> None:
    for acc in accs.values():
        for dense_name, sparse_name in DENSE_SPARSE:
            dense, sparse = _field(acc, dense_name), _field(acc, sparse_name)
            if dense is None or sparse is None:
                continue
            assert dense.value <= sparse.value, f"{acc.id}: {dense_name} {dense.value} > {sparse_name} {sparse.value}"
            # and the largest published dense figure does not beat the largest published sparse one
            assert max(v.value for v in dense.values) <= max(v.value for v in sparse.values), acc.id


def test_geforce_fp32_accumulate_is_at_most_fp16_accumulate(accs: dict[str, Accelerator]) -> None:
    geforce = [a for a in accs.values() if a.vendor == "nvidia" and a.segment == "consumer"]
    assert len(geforce) >= 5
    for acc in geforce:
        acc16 = _field(acc, "fp16_acc16_dense_tflops")
        acc32 = _field(acc, "fp16_dense_tflops")
        assert acc16 is not None and acc32 is not None, f"{acc.id} needs both accumulate rates"
        assert acc32.value <= acc16.value, acc.id
        # GeForce runs FP32-accumulate at half the FP16-accumulate rate (Ada/Ampere GeForce)
        assert acc32.value == pytest.approx(acc16.value / 2, rel=0.02), acc.id


def test_h100_dense_and_sparse_fp16_are_separate_and_the_seed_figure_is_kept(accs: dict[str, Accelerator]) -> None:
    h100 = accs["h100-sxm"]
    dense, sparse = _field(h100, "fp16_dense_tflops"), _field(h100, "fp16_sparse_tflops")
    assert dense is not None and sparse is not None
    assert dense.value == pytest.approx(989.4)
    assert sparse.value == pytest.approx(1978.9)
    assert 1979 in _sources_of(sparse)["seed-000"]
    assert "seed-000" not in _sources_of(dense), "the seed's 1979 is the sparse figure, never a dense one"


@pytest.mark.parametrize("device", ["ascend-910b", "ascend-910b2"])
def test_910b_bandwidth_disagreement_is_kept_with_all_sources(accs: dict[str, Accelerator], device: str) -> None:
    bw = _field(accs[device], "memory_bandwidth_gb_per_s")
    assert bw is not None and bw.conflicting
    by_source = _sources_of(bw)
    assert by_source["ascend-perf-model"] == [1600]
    assert by_source["seed-000"] == [1200]
    assert by_source["seed-003"] == [392]
    assert bw.chosen.value == 1600 and bw.chosen.source == "ascend-perf-model"
    assert bw.chosen.note, "the default needs its reason"


def test_rtx4090_seed_330_is_not_the_pytorch_dense_rate(accs: dict[str, Accelerator]) -> None:
    acc = accs["rtx-4090"]
    dense = _field(acc, "fp16_dense_tflops")
    assert dense is not None and dense.value == pytest.approx(165.15)
    assert "seed-000" not in _sources_of(dense)
    placed = _sources_of(_field(acc, "fp16_sparse_tflops")).get("seed-000", []) + _sources_of(
        _field(acc, "fp16_acc16_dense_tflops")
    ).get("seed-000", [])
    assert placed == [330]


# (device, field, seed source, value) — the seeds' figures for every device they mention.
SEED_FIGURES = [
    ("rtx-4090", "memory_gib", "seed-000", 24),
    ("rtx-4090", "memory_bandwidth_gb_per_s", "seed-000", 1008),
    ("rtx-4090", "tdp_w", "seed-000", 450),
    ("h100-sxm", "memory_gib", "seed-000", 80),
    ("h100-sxm", "memory_bandwidth_gb_per_s", "seed-000", 3350),
    ("h100-sxm", "tdp_w", "seed-000", 700),
    ("ascend-910b", "memory_gib", "seed-000", 64),
    ("ascend-910b", "fp16_dense_tflops", "seed-000", 320),
    ("ascend-910b", "tdp_w", "seed-000", 350),
    ("ascend-910b2", "fp16_dense_tflops", "seed-003", 376),
    ("ascend-910b2", "memory_gib", "seed-003", 64),
    ("ascend-910b2", "tdp_w", "seed-003", 400),
    ("ascend-910b2", "tdp_w", "seed-003", 310),
    ("a100-80g", "memory_gib", "seed-003", 80),
    ("a100-80g", "fp16_dense_tflops", "seed-003", 312),
    ("a100-80g", "memory_bandwidth_gb_per_s", "seed-003", 2000),
    ("a100-80g", "tdp_w", "seed-003", 400),
    ("h100-sxm", "fp16_sparse_tflops", "seed-003", 1979),
    ("h100-sxm", "memory_bandwidth_gb_per_s", "seed-003", 3350),
    ("h100-sxm", "tdp_w", "seed-003", 700),
    ("h20", "memory_gib", "seed-003", 96),
    ("h20", "fp16_dense_tflops", "seed-003", 148),
    ("h20", "memory_bandwidth_gb_per_s", "seed-003", 4000),
    ("h20", "tdp_w", "seed-003", 400),
    ("ascend-910b1", "fp16_dense_tflops", "seed-003", 414),
    ("ascend-910b3", "fp16_dense_tflops", "seed-003", 313),
    ("ascend-910b4", "fp16_dense_tflops", "seed-003", 280),
    ("ascend-910b1", "memory_gib", "seed-003", 64),
    ("ascend-910b3", "memory_gib", "seed-003", 64),
    ("ascend-910b4", "memory_gib", "seed-003", 32),
    ("hygon-k100", "fp16_dense_tflops", "seed-003", 128),
    ("mlu590", "memory_bandwidth_gb_per_s", "seed-003", 2000),
    ("mlu590", "memory_gib", "seed-003", 96),
    ("mlu590", "int8_dense_tops", "seed-003", 256),
    ("metax-c500", "memory_gib", "seed-003", 64),
    ("metax-c500", "memory_bandwidth_gb_per_s", "seed-003", 1800),
]


@pytest.mark.parametrize(("device", "field", "source", "value"), SEED_FIGURES)
def test_seed_figures_are_recorded(
    accs: dict[str, Accelerator], device: str, field: str, source: str, value: float
) -> None:
    assert value in _sources_of(_field(accs[device], field)).get(source, []), f"{device}.{field} lacks {source}={value}"


def test_derived_values_say_how(catalog: Catalog) -> None:
    for acc in catalog.accelerators:
        for path, v in _sourced_values(acc):
            if v.source == "acc-derived":
                assert v.note and "=" in v.note, f"{acc.id}.{path}: a derived value needs its formula"


# ---------------------------------------------------------------- measured matmul table


def test_measured_file_shape(measured: dict[str, Any]) -> None:
    assert set(measured) == {"sources", "measurements"}
    source_ids = {s["id"] for s in measured["sources"]}
    assert len(measured["measurements"]) >= 40
    for row in measured["measurements"]:
        assert set(row) <= {"device", "dtype", "tflops", "platform", "source", "note"}
        assert row["dtype"] in PEAK_FIELD
        assert isinstance(row["tflops"], float | int) and row["tflops"] > 0
        assert row["platform"]
        assert row["source"] in source_ids


def test_measurements_refer_to_known_accelerators(measured: dict[str, Any], accs: dict[str, Accelerator]) -> None:
    unknown = {r["device"] for r in measured["measurements"]} - set(accs)
    assert not unknown, f"measurements for unknown devices: {sorted(unknown)}"


def _exception_limit(acc: Accelerator, dtype: str, peak: float) -> float:
    """The largest plausible measured value for this device and dtype (explicit exceptions only)."""
    if acc.vendor == "nvidia" and acc.segment == "consumer" and dtype in ("fp16", "bf16"):
        return peak * GEFORCE_OVERBOOST_MAX
    if acc.id == "metax-c500" and dtype == "fp32":
        return C500_MATRIX_FP32_TFLOPS
    return peak


def test_measurements_are_below_the_dense_peak(measured: dict[str, Any], accs: dict[str, Accelerator]) -> None:
    checked = 0
    for row in measured["measurements"]:
        acc = accs[row["device"]]
        peak_alts = _field(acc, PEAK_FIELD[row["dtype"]])
        if peak_alts is None:  # no published peak (Hygon K100_AI; 910B2 fp32): nothing to compare
            continue
        limit = _exception_limit(acc, row["dtype"], peak_alts.value)
        assert row["tflops"] <= limit, f"{row['device']} {row['dtype']} {row['tflops']} > {limit}"
        checked += 1
    assert checked >= 40


def test_overboost_exceptions_are_real_and_flagged(measured: dict[str, Any], accs: dict[str, Accelerator]) -> None:
    """The exceptions above are used (else they would hide nothing) and each such row says so in its note."""
    over = []
    for row in measured["measurements"]:
        acc = accs[row["device"]]
        peak_alts = _field(acc, PEAK_FIELD[row["dtype"]])
        if peak_alts is not None and row["tflops"] > peak_alts.value:
            over.append(row)
            assert "above" in (row.get("note") or ""), f"{row['device']} {row['dtype']} exceeds its peak silently"
    assert {r["device"] for r in over} <= {"rtx-3090", "rtx-4090", "rtx-4090d", "rtx-4090-48g", "rtx-5090", "metax-c500"}
    assert over, "no row exceeds a rated peak: drop the exceptions"
