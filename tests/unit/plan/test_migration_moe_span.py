"""Migration effort for an MoE model on the adapted list: the seeds disagree (seed-000 prices it by the list, 1–2
weeks; seed-003's community figure by the architecture, 1–2 months), so `migrate cost`, `plan` and `migrate check`
(one rule, `migrate.effort`) give both sources' span, and a dense model on the list keeps the adapted range."""

from __future__ import annotations

from suanli.catalog import lookup
from suanli.i18n import render
from suanli.migrate.effort import Listing, effort
from suanli.plan.search import migration_weeks


def test_moe_on_the_list_spans_both_sources(cat) -> None:  # type: ignore[no-untyped-def]
    cann = lookup.stack(cat, "cann")
    adapted, moe = cann.migration_weeks_adapted.value, cann.migration_weeks_moe_multimodal.value
    # Qwen3-30B-A3B is on the serving and the training lists (DeepSeek-V3 too, but its FP8-only checkpoint is a port)
    for task in ("inference", "full"):
        lo, hi, why = migration_weeks(cat, cann, lookup.model(cat, "qwen3-30b-a3b"), task=task)
        assert (lo, hi) == (adapted[0], moe[1]) and why.id == "migration.adapted_moe"
        assert "seed-003" in render(why) and "参考文章 003" in render(why, "zh")
    lo, hi, why = migration_weeks(cat, cann, lookup.model(cat, "qwen2.5-7b"), task="inference")  # dense, on the list
    assert (lo, hi) == tuple(adapted) and why.id == "migration.adapted"


def test_the_span_is_the_rules_not_the_callers(cat) -> None:  # type: ignore[no-untyped-def]
    cann = lookup.stack(cat, "cann")
    on = Listing(listed=True, lists=(), use=None)
    e = effort(cann, on, complex_arch=True)
    assert e.weeks == migration_weeks(cat, cann, lookup.model(cat, "qwen3-30b-a3b"), task="full")[:2]
    assert "MoE" in render(e.why) and e.field and "migration_weeks_moe_multimodal" in e.field
    assert effort(cann, on, complex_arch=False).weeks == tuple(float(x) for x in cann.migration_weeks_adapted.value)
