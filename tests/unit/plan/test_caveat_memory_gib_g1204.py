"""Buyer review 2026-12-04 #1: an offer's caveat said the assumed card's memory in "GB" ("specs assume the NVIDIA
H800 SXM5 80GB (79.65 GB, 3.35 TB/s …)", "910B2 (64 GB, 1.6 TB/s)") while the figure it prints is the catalog's
`memory_gib`, which is GiB (nvidia-smi's MiB / 1024). The caveat and each part it re-estimates on (`plan.variant.*`)
say GiB, in English and Chinese."""

from __future__ import annotations

import datetime as dt
import re

from suanli.catalog import lookup
from suanli.i18n import render
from suanli.plan.caveats import Rerun, card_warning, variant_warning
from suanli.plan.request import make_request
from suanli.plan.search import plan as run_plan
from suanli.plan.search import plan_workload

TODAY = dt.date(2026, 12, 4)


def _rerun(cat, model: str, device: str) -> Rerun:  # type: ignore[no-untyped-def]
    req = make_request(model=model, task="lora", tokens=50_000_000, devices=(device,), region="cn")
    r = run_plan(cat, lookup.model(cat, model), req, TODAY)
    return Rerun(workload=plan_workload(r.plans[0], r.request), tokens_per_s=r.plans[0].tokens_per_s)


def _gib(acc) -> str:  # type: ignore[no-untyped-def]
    return f"{acc.specs.memory_gib.value:g}"


def test_the_form_factor_caveat_says_the_h800_memory_in_gib(cat) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "h800")
    offer = next(o for o in cat.offers if o.id == "autodl-h800-hour-2026-08")
    w = card_warning(cat, m, acc, offer, _rerun(cat, "qwen2.5-7b", "h800"))
    assert w is not None and w.id == "plan.warn.card_unstated_alone"
    assert _gib(acc) == "79.65"  # 81559 MiB / 1024, not the marketed 80 GB
    en, zh = render(w), render(w, "zh")
    assert f"({_gib(acc)} GiB, 3.35 TB/s" in en and f"（{_gib(acc)} GiB，3.35 TB/s" in zh
    assert not re.search(r"\d GB(?!/)", en) and not re.search(r"\d GB(?!/)", zh)


def test_the_variant_caveat_and_each_other_part_say_gib(cat) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "ascend-910b")
    w = variant_warning(cat, m, acc, "an-offer", _rerun(cat, "qwen2.5-7b", "ascend-910b"))
    assert w is not None and w.id == "plan.warn.variant_unstated"
    en, zh = render(w), render(w, "zh")
    b2, b4 = lookup.accelerator(cat, "ascend-910b2"), lookup.accelerator(cat, "ascend-910b4")
    assert f"Huawei Ascend 910B2 ({_gib(b2)} GiB, 1.6 TB/s)" in en
    assert f"Huawei Ascend 910B4 ({_gib(b4)} GiB, 0.8 TB/s)" in en  # a plan.variant.* outcome
    assert f"（{_gib(b2)} GiB，1.6 TB/s）" in zh and f"（{_gib(b4)} GiB，0.8 TB/s）" in zh
    assert not re.search(r"\d GB(?!/)", en) and not re.search(r"\d GB(?!/)", zh)
