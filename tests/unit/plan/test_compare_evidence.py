"""`suanli compare` says, per row, what the out-of-sample validation says about its speed column on the device's
stack (as a plan's evidence warnings do), and the API's compare takes the CLI's serving targets."""

from __future__ import annotations

from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.cli.main import app
from suanli.estimate.estimate import ErrorBand
from suanli.plan.compare import compare_devices
from suanli.validate.bands import packaged_error_bands

BANDS = {
    "decode-speed": ErrorBand(group="decode-speed", median_abs_pct=20.0, p90_abs_pct=60.0, cases=80),
    "stack:cuda:decode-speed": ErrorBand(group="stack:cuda:decode-speed", median_abs_pct=21.0, p90_abs_pct=60.0,
                                         cases=80, median_signed_pct=7.0, stack="cuda"),
    "stack:cann:decode-speed": ErrorBand(group="stack:cann:decode-speed", median_abs_pct=117.0, p90_abs_pct=117.0,
                                         cases=1, median_signed_pct=117.0, stack="cann"),
}


def test_each_row_names_its_stack_evidence(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    rows = {r["device"]: r for r in compare_devices(cat, m, ["a100-80g", "910b"], "inference", 1, error_bands=BANDS)}
    cuda, cann = rows["a100-80g"], rows["ascend-910b"]
    assert cuda["evidence_i18n"]["id"] == "evidence.cases" and cuda["evidence_i18n"]["params"]["cases"] == 80
    assert "+7 %" in cuda["evidence"]
    assert cann["evidence_i18n"]["id"] == "evidence.little" and "+117 %" in cann["evidence"]


def test_without_bands_no_evidence_and_a_stack_without_cases_says_none(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2.5-7b")
    assert all(r["evidence"] is None for r in compare_devices(cat, m, ["a100-80g", "910b"], "inference", 1))
    only_cuda = {k: v for k, v in BANDS.items() if "cann" not in k}
    rows = compare_devices(cat, m, ["a100-80g", "910b"], "inference", 1, error_bands=only_cuda)
    assert rows[1]["evidence_i18n"]["id"] == "evidence.none"


def test_cli_prints_the_evidence_once_per_stack() -> None:
    r = CliRunner().invoke(app, ["compare", "--model", "qwen2.5-7b", "--gpu", "a100-80g", "--gpu", "h100", "--gpu",
                                 "910b"], env={"LANG": "en_US.UTF-8", "LC_ALL": "", "COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.output.splitlines() if ln.startswith("evidence:")]
    bands = packaged_error_bands()
    want = [s for s in ("cuda", "cann") if f"stack:{s}:decode-speed" in bands]
    assert len(lines) == len(want) and want  # two CUDA rows, one line



def test_migrate_cost_names_the_evidence_behind_each_speed(cat) -> None:  # type: ignore[no-untyped-def]
    from suanli.plan.compare import migration_cost

    m = lookup.model(cat, "qwen2.5-14b")
    out = migration_cost(cat, m, "910b", "h800", task="inference", error_bands=BANDS)
    assert out["derived"]["h800"]["evidence_i18n"]["id"] == "evidence.cases"
    assert out["derived"]["ascend-910b"]["evidence_i18n"]["id"] == "evidence.little"
    bare = migration_cost(cat, m, "910b", "h800", task="inference")
    assert bare["derived"]["h800"]["evidence"] is None


def test_migrate_cost_refusal_quotes_the_leanest_layouts_need(cat) -> None:  # type: ignore[no-untyped-def]
    """When no 8-card layout fits, the refusal names what the leanest layout needs — the figure `compare` prints —
    not the default ZeRO-3 micro-batch-1 layout's (final buyer review: 95.4 vs 65.0 GiB for Qwen2.5-32B on 910B)."""
    import pytest

    from suanli.errors import InputError
    from suanli.plan.compare import compare_devices, migration_cost

    m = lookup.model(cat, "qwen2.5-32b")
    kinds = ("listing", "index", "reference")
    row = next(r for r in compare_devices(cat, m, ["a100-80g", "910b"], "full", 8, kinds=kinds)
               if r["device"] == "ascend-910b")
    assert row["fits"] is False
    with pytest.raises(InputError) as e:
        migration_cost(cat, m, "910b", "a100-80g", task="full", kinds=kinds)
    need = e.value.i18n.params["need_gib"]
    assert abs(need - row["memory_per_gpu_bytes"] / 2**30) < 0.05
