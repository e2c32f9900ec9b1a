"""Migration effort for an MoE model on the adapted list: the seeds disagree (seed-000 prices it by the list, 1–2
weeks; seed-003's community figure by the architecture, 1–2 months), so `migrate cost`, `plan` and `migrate check`
give both sources' span, and a dense model on the list keeps the adapted range."""

from __future__ import annotations

from suanli.catalog import lookup
from suanli.i18n import render
from suanli.migrate.coverage import _effort
from suanli.plan.search import migration_weeks


def test_moe_on_the_list_spans_both_sources(cat) -> None:  # type: ignore[no-untyped-def]
    cann = lookup.stack(cat, "cann")
    adapted, moe = cann.migration_weeks_adapted.value, cann.migration_weeks_moe_multimodal.value
    lo, hi, why = migration_weeks(cat, cann, lookup.model(cat, "deepseek-v3"))
    assert (lo, hi) == (adapted[0], moe[1]) and why.id == "migration.adapted_moe"
    assert "seed-003" in render(why) and "种子资料 003" in render(why, "zh")
    lo, hi, why = migration_weeks(cat, cann, lookup.model(cat, "qwen2.5-7b"))  # dense, on the list
    assert (lo, hi) == tuple(adapted) and why.id == "migration.adapted"


def test_migrate_check_uses_the_same_span(cat) -> None:  # type: ignore[no-untyped-def]
    cann = lookup.stack(cat, "cann")
    weeks, why = _effort(cann, adapted=True, moe_or_multimodal=True, has_fallback=False)
    lo, hi, _ = migration_weeks(cat, cann, lookup.model(cat, "deepseek-v3"))
    assert weeks == (lo, hi)
    assert "MoE" in render(why)
    assert _effort(cann, adapted=True, moe_or_multimodal=False, has_fallback=False)[0] == tuple(
        float(x) for x in cann.migration_weeks_adapted.value)
