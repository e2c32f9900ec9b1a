"""The per-operator caveats of caveats.yaml carry their Chinese (`message_zh`, as the general caveats' `general_zh`):
`migrate check --lang zh` shows it, English output and --json keep the English message."""

from __future__ import annotations

import re

from suanli.i18n import Message, render
from suanli.migrate.coverage import OpTrace, classify, load_caveats, load_op_list, summarize

_CJK = re.compile(r"[\u4e00-\u9fff]")


def test_every_caveat_has_its_chinese() -> None:
    cav = load_caveats()
    assert len(cav.caveats) == 12
    assert [c.op for c in cav.caveats if not (c.message_zh and _CJK.search(c.message_zh))] == []


def test_caveat_warnings_render_in_the_output_language() -> None:
    cav = load_caveats()
    ops = load_op_list("2.13")
    shown = [c for c in cav.caveats if c.op in ops.aten]
    assert len(shown) >= 11  # all but isin.Scalar_Tensor, which 2.13 does not register
    trace = OpTrace(model="m", task="training", device="cpu", torch_version="2.13.0", ops={c.op: 1 for c in shown})
    rep = classify(trace, ops, caveats=cav)
    msgs = [Message.from_json(m) for m in rep.warnings_i18n if m["id"] == "mig.warn.caveat"]
    assert len(msgs) == len(shown)
    by_op = {c.op: c for c in shown}
    for m in msgs:
        c = by_op[m.params["op"]]
        en, zh = render(m), render(m, "zh")
        assert en == f"{c.op}: {c.message} [{c.kind}; {c.source}]"  # English as before
        assert c.message_zh is not None and c.message_zh in zh and c.message not in zh
    d = summarize(rep)  # --json: the English text
    assert all(f"{c.op}: {c.message} [" in "\n".join(d["warnings"]) for c in shown)
