"""migrate check's effort basis says the stacks.yaml range it charged in words, on every interface and in both
languages (buyer review 2026-12-01: it printed the catalog key `cann.migration_weeks_unadapted`); a missing range
names the key once, as code in Chinese (it is a catalog field, and not a request field the API would quote again)."""

from __future__ import annotations

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


@pytest.mark.parametrize(("model", "ranges", "zh_words"), [
    ("qwen3-30b-a3b", ["mig.range.span"], "从型号库中清单内模型的周数到 MoE 或多模态模型的周数"),  # the MoE span
    ("llama-3.1-8b", ["mig.range.adapted"], "型号库中清单内模型的周数"),
    # an MoE model off the inference lists (Mixtral-8x7B is on MindSpeed-LLM's training list only): the MoE range
    ("mixtral-8x7b", ["mig.range.moe_multimodal"], "型号库中 MoE 或多模态模型的周数"),
    # DeepSeek-V3's FP8 release is a conversion, not a port: its lists' span, as Qwen3's (buyer review 2026-12-02)
    ("deepseek-v3", ["mig.range.span"], "从型号库中清单内模型的周数到 MoE 或多模态模型的周数"),
])
@pytest.mark.parametrize("surface", ["cli", "api", "web"])
def test_each_range_is_said_in_words(cat, model: str, ranges: list[str], zh_words: str, surface: str) -> None:  # type: ignore[no-untyped-def]
    """Buyer review 2026-12-01: the basis printed the catalog's key (`cann.migration_weeks_unadapted`); it says the
    range in words on every interface, in both languages, and no catalog key."""
    msg = _basis(cat, model)
    assert msg.id == "mig.basis.chosen"
    assert [msg.params["ranges"].id] == ranges
    zh, en = render(msg, "zh", surface), render(msg, "en", surface)  # type: ignore[arg-type]
    for text in (zh, en):
        assert "migration_weeks" not in text and "cann." not in text and "``" not in text
    assert zh.endswith(f"{zh_words}（来源 {msg.params['source'].replace(', ', '、')}）"), zh
    assert en.endswith(f"{render(msg.params['ranges'], 'en')} (source {msg.params['source']})") and "`" not in en
    assert "the catalog's weeks for " in en


def test_missing_range_is_quoted_once(cat) -> None:  # type: ignore[no-untyped-def]
    from suanli.migrate.effort import Listing, effort

    stack = lookup.stack(cat, "cann").model_copy(update={"migration_weeks_adapted": None})
    why = effort(stack, Listing(listed=True, lists=(), use=None), complex_arch=False).why
    assert why.id == "migration.no_data"
    for surface in ("cli", "api", "web"):
        zh = render(why, "zh", surface)  # type: ignore[arg-type]
        assert "`migration_weeks_adapted`" in zh and "``" not in zh
        assert "has no migration_weeks_adapted in the catalog" in render(why, "en", surface)  # type: ignore[arg-type]
