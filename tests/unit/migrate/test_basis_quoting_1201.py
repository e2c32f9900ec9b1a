"""migrate check's effort basis quotes each stacks.yaml range once as code in Chinese, on every interface: the range
is not a request field (the API would quote it again: "`cann.`migration_weeks_unadapted``"), and the MoE span's two
ranges ("a … b") are two code spans, not one."""

from __future__ import annotations

import re

import pytest

from suanli.catalog import lookup
from suanli.i18n import Message, render
from suanli.migrate.coverage import OpTrace, cann_stack, classify, load_op_list
from suanli.migrate.effort import checkpoint_uses, stack_lists
from suanli.migrate.identity import identify_preset


def _basis(cat, model: str) -> Message:  # type: ignore[no-untyped-def]
    m, stack = lookup.model(cat, model), cann_stack(cat)
    trace = OpTrace(model=m.id, task="inference", device="meta", torch_version="2.13.0", ops={"mm": 4})
    rep = classify(trace, load_op_list("2.13"), adapted_lists=stack_lists(stack, identify_preset(m).names),
                   stack=stack, moe_or_multimodal=m.moe is not None, libraries=checkpoint_uses(m, cat))
    return Message.from_json(rep.migration_basis_i18n or {})


@pytest.mark.parametrize(("model", "ranges"), [
    ("qwen3-30b-a3b", ["cann.migration_weeks_adapted", "cann.migration_weeks_moe_multimodal"]),  # the MoE span
    ("llama-3.1-8b", ["cann.migration_weeks_adapted"]),
    ("deepseek-v3", ["cann.migration_weeks_moe_multimodal"]),  # a port (its FP8 checkpoint)
])
@pytest.mark.parametrize("surface", ["cli", "api", "web"])
def test_each_range_is_quoted_once(cat, model: str, ranges: list[str], surface: str) -> None:  # type: ignore[no-untyped-def]
    msg = _basis(cat, model)
    assert msg.id == "mig.basis.chosen"
    zh, en = render(msg, "zh", surface), render(msg, "en", surface)  # type: ignore[arg-type]
    assert "``" not in zh and zh.count("`") == 2 * len(ranges)
    assert re.findall(r"`([^`]*)`", zh)[-len(ranges):] == ranges
    assert en.endswith(f": {' … '.join(ranges)} (source {msg.params['source']})") and "`" not in en


def test_missing_range_is_quoted_once(cat) -> None:  # type: ignore[no-untyped-def]
    from suanli.migrate.effort import Listing, effort

    stack = lookup.stack(cat, "cann").model_copy(update={"migration_weeks_adapted": None})
    why = effort(stack, Listing(listed=True, lists=(), use=None), complex_arch=False).why
    assert why.id == "migration.no_data"
    for surface in ("cli", "api", "web"):
        zh = render(why, "zh", surface)  # type: ignore[arg-type]
        assert "`migration_weeks_adapted`" in zh and "``" not in zh
        assert "has no migration_weeks_adapted in the catalog" in render(why, "en", surface)  # type: ignore[arg-type]
