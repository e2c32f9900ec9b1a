"""suanli.migrate.coverage: pure classification of an op trace against a torch_npu operator list."""

from __future__ import annotations

import sys

import pytest

from suanli.catalog.schema import SoftwareStack
from suanli.errors import InputError
from suanli.migrate.coverage import (
    AdaptedList,
    Caveats,
    OpTrace,
    available_versions,
    classify,
    load_caveats,
    load_fused,
    load_op_list,
    parse_op_list,
    resolve_version,
    summarize,
)

OPS = parse_op_list(
    "# torch_npu 9.9.0: test list\n"
    "# requires: torch==2.13.0.*\n"
    "supported mm acl_op+op_api\n"
    "supported add.Tensor acl_op+op_api\n"
    "supported gelu.out op_api\n"
    "supported scaled_dot_product_attention op_api\n"
    "custom npu_fusion_attention op_api\n"
)


def _trace(ops: dict[str, int], decomps: dict[str, dict[str, int] | None] | None = None, **kw) -> OpTrace:
    return OpTrace(model="m", task="inference", device="meta", ops=ops, decompositions=decomps or {},
                   torch_version="2.13.0+cpu", **kw)


def test_native_composite_and_fallback() -> None:
    tr = _trace(
        {"mm": 4, "gelu": 2, "mode": 3},
        {"gelu": {"gelu.out": 1}},
    )
    rep = classify(tr, OPS)
    status = {r.op: r.status for r in rep.ops}
    assert status == {"mm": "npu", "gelu": "composite", "mode": "cpu-fallback"}
    assert rep.fallback_ops == {"mode": 3}
    assert rep.verdict == "cpu-fallback"
    assert rep.ops[0].op == "mode"  # fallbacks first


def test_composite_that_decomposes_into_a_fallback_counts_the_leaf_calls() -> None:
    tr = _trace({"weird": 5}, {"weird": {"mm": 1, "inner": 2}, "inner": {"mode": 3}})
    rep = classify(tr, OPS)
    (row,) = rep.ops
    assert row.status == "composite-fallback"
    assert row.falls_back == {"mode": 30}  # 5 calls x 2 inner x 3 mode
    assert rep.fallback_ops == {"mode": 30}


def test_all_native_is_npu_native() -> None:
    rep = classify(_trace({"mm": 1, "add.Tensor": 2}), OPS)
    assert rep.verdict == "npu-native" and rep.fallback_ops == {}


def test_non_aten_op_needs_a_port() -> None:
    rep = classify(_trace({"mm": 1, "flash_attn::fwd": 2}), OPS)
    assert rep.verdict == "needs-port"
    assert rep.non_aten_ops == {"flash_attn::fwd": 2}


def test_tracing_device_alias_counts_as_npu() -> None:
    caveats = Caveats.model_validate({"aliases": [{
        "op": "_scaled_dot_product_flash_attention_for_cpu", "npu": "scaled_dot_product_attention",
        "reason": "cpu backend", "source": "test"}]})
    tr = _trace({"_scaled_dot_product_flash_attention_for_cpu": 2})
    assert classify(tr, OPS, caveats=caveats).verdict == "npu-native"
    assert classify(tr, OPS).verdict == "cpu-fallback"  # without the alias it would be a (false) fallback


def test_caveat_becomes_a_warning_only_when_the_op_is_called() -> None:
    caveats = Caveats.model_validate({"caveats": [
        {"op": "mm", "kind": "cpu-inside", "message": "copies to the CPU for int64", "source": "x.cpp"}]})
    assert any("copies to the CPU" in w for w in classify(_trace({"mm": 1}), OPS, caveats=caveats).warnings)
    assert not any("copies" in w for w in classify(_trace({"add.Tensor": 1}), OPS, caveats=caveats).warnings)


def test_torch_version_mismatch_is_warned() -> None:
    old = parse_op_list("# torch_npu 2.1.0.post17: x\n# requires: torch (==2.1.0+cpu)\nsupported mm -\n")
    rep = classify(_trace({"mm": 1}), old)
    assert any("targets torch 2.1" in w for w in rep.warnings)


def _stack(**kw) -> SoftwareStack:
    return SoftwareStack.model_validate({"id": "cann", "name": "CANN", "vendor": "huawei", "source": "seed-000", **kw})


def test_effort_uses_the_catalog_ranges() -> None:
    stack = _stack(
        migration_weeks_adapted={"value": [1, 2], "source": "seed-000"},
        migration_weeks_unadapted={"value": [2, 4], "source": "seed-000"},
        migration_weeks_moe_multimodal={"value": [4, 8], "source": "seed-003"},
    )
    listed = [AdaptedList(stack="cann", name="vllm", use="inference", listed=True)]
    unlisted = [AdaptedList(stack="cann", name="vllm", use="inference", listed=False)]
    tr = _trace({"mm": 1})
    assert classify(tr, OPS, stack=stack, adapted_lists=listed).migration_weeks == (1.0, 2.0)
    assert classify(tr, OPS, stack=stack, adapted_lists=unlisted).migration_weeks == (2.0, 4.0)
    moe = classify(tr, OPS, stack=stack, adapted_lists=unlisted, moe_or_multimodal=True)
    assert moe.migration_weeks == (4.0, 8.0) and "seed-003" in moe.migration_basis
    # adapted but a fallback was found: operators must be adapted
    fb = classify(_trace({"mode": 1}), OPS, stack=stack, adapted_lists=listed)
    assert fb.migration_weeks == (2.0, 4.0)


def test_effort_missing_data_is_explained() -> None:
    rep = classify(_trace({"mm": 1}), OPS, stack=None)
    assert rep.migration_weeks is None and "unknown" in rep.migration_basis
    rep = classify(_trace({"mm": 1}), OPS, stack=_stack())
    assert rep.migration_weeks is None and "no migration_weeks" in rep.migration_basis


def test_json_summary_has_the_stable_keys() -> None:
    d = summarize(classify(_trace({"mm": 1}), OPS))
    for key in ("model", "torch_npu_version", "ops", "fallback_ops", "verdict", "adapted_lists", "warnings",
                "migration_weeks"):
        assert key in d
    assert d["ops"][0] == {"op": "mm", "calls": 1, "status": "npu", "impl_ns": "acl_op+op_api", "fused": None,
                           "falls_back": {}, "note": None}


# ------------------------------------------------------------------------------------ shipped data


def test_versions_resolve() -> None:
    versions = available_versions()
    assert {"2.1.0.post17", "2.6.0.post5", "2.13.0"} <= set(versions)
    assert resolve_version("2.1") == "2.1.0.post17"  # not 2.13.0
    assert resolve_version("2.6") == "2.6.0.post5"
    assert resolve_version("2.13") == "2.13.0"
    assert resolve_version(None) == versions[-1]
    with pytest.raises(InputError, match="torch-npu"):
        resolve_version("1.8")
    with pytest.raises(InputError, match="torch_npu"):
        resolve_version("latest")


def test_shipped_lists_hold_the_core_ops() -> None:
    for v in ("2.1.0.post17", "2.6.0.post5", "2.13.0"):
        ops = load_op_list(v)
        assert {"mm", "add.Tensor", "view", "scaled_dot_product_attention"} <= ops.aten
        assert {"npu_fusion_attention", "npu_rms_norm"} <= ops.custom
        assert len(ops.aten) > 900


def test_fused_and_caveat_data_are_sourced_and_consistent() -> None:
    ops = load_op_list("2.13.0")
    fused = load_fused()
    assert {f.id for f in fused} >= {"npu_fusion_attention", "npu_rms_norm", "npu_rotary_mul", "npu_swiglu"}
    for f in fused:
        assert f.source and f.id in ops.custom, f.id
    cav = load_caveats()
    assert cav.caveats and cav.aliases and cav.general
    for a in cav.aliases:
        assert a.npu in ops.aten and a.source
    for c in cav.caveats:
        assert c.source


def test_pure_module_does_not_import_torch() -> None:
    import suanli.migrate.coverage as cov

    src = open(cov.__file__, encoding="utf-8").read()
    assert "import torch" not in src and "from torch" not in src and "import transformers" not in src
    assert "suanli.migrate.coverage" in sys.modules
