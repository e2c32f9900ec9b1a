"""The page's sentences name inputs as its form labels do (web review 2026-12-01, item 5): each `field.<name>` (the
input as sentences name it with surface web) is the label of the form control that sends `name`, in both languages;
and a sentence that points to a setting the page has no control for is worded without it (`<id>.web`:
plan.assume.fresh.web, plan.assume.migration.web)."""

from __future__ import annotations

import pytest

from suanli.i18n import Message, field_name, messages, render

# the request field -> the page's label id (web.<id>, index.html's data-i18n) of the control that sends it
FORM_LABELS = {
    "model": "model", "task": "task", "tpot_s": "tpot_target", "ttft_s": "ttft_target", "hours": "period",
    "requests_per_s": "rps", "concurrent_users": "users", "output": "output", "budget_cny": "budget",
    "deadline_hours": "deadline", "max_gpus": "max_gpus", "region": "region", "offer_kinds": "kinds",
    "framework": "framework_pick", "domestic_only": "domestic", "already_on": "already_on", "gpu": "tco_gpu",
    "days": "period", "subsidy": "subsidy",  # Compare's period in days, the subsidy fields (task full-web)
    "tokens": "tokens", "tokens_per_s": "tco_tps", "ops": "rvb_ops", "uses": "mig_uses",  # buyer review H 2026-12-02
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_field_names_equal_the_form_labels(lang: str) -> None:
    cat = messages(lang)
    for field, label in FORM_LABELS.items():
        assert field_name(field, lang, "web").strip("“”") == cat[f"web.{label}"], (lang, field)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_pointer_to_a_control_the_page_lacks(lang: str) -> None:
    fresh = Message("plan.assume.fresh", months=12, field="stale_months")
    mig = Message("plan.assume.migration", months=12, field="migration_months")
    for m in (fresh, mig):
        web = render(m, lang, "web")
        for gone in ("stale_months", "migration_months", "Stale after", "Migration spread", "价格过期", "迁移分摊月数",
                     "choose with", "设置）"):
            assert gone not in web, (lang, web)
    assert "“Stacks already run (no migration)”" in render(mig, "en", "web")
    # the CLI and the API keep theirs
    assert "--stale-months" in render(fresh, lang, "cli") and "stale_months" in render(fresh, lang, "api")
