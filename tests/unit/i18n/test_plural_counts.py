"""English messages say "1 card", "2 cards", never "{n} card(s)": a noun whose count is a message parameter takes the
catalog's plural spec (`{n:/card/cards}`, `{n:noun/group/groups}` after another word, a verb that agrees
`{n:/card holds/cards hold}`, a noun that is itself a field `{units:/{billing_unit}/{billing_unit}s}`), on the CLI,
in the API and on the page alike. Left with "(s)": only nouns whose count the message does not have (`cli.cal.tf32_runs`
"tf32 run(s) {ids}", `err.unknown_source_ids`, `error.cli.extra_args`) and "(s)" as the unit seconds ("TPOT target (s)")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from page_js import run_app_js  # tests/page_js.py (tests/ on the path: tests/conftest.py)
from suanli.i18n import Message, messages, render

_FIELD = re.compile(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")  # a field, with the fields inside its format spec
_CLAUSE = re.compile(r"[,;:.!?()\[\]“”]")  # where a clause ends: a count before it is not the noun's


def counted_plurals(template: str) -> list[str]:
    """Each "(s)" plural in `template` whose clause has a field among the four words before it: a count the
    message has, so the plural spec can say the noun ("{n} card(s)", "{units} {billing_unit}(s)",
    "{cases} out-of-sample {group} case(s)"); not "tf32 run(s) {ids}" nor the unit "TPOT target (s)"."""
    text = _FIELD.sub("§", template)
    out = []
    for m in re.finditer(r"(?<=[\w§])\(s\)", text):
        words = _CLAUSE.split(text[:m.start()])[-1].split()
        if "§" in "".join(words[-4:]):
            out.append(" ".join(words[-4:]) + "(s)")
    return out


@pytest.mark.parametrize(("template", "flagged"), [
    ("{n} card(s)", True), ("on {gpus} card(s) here", True), ("{units:,} {billing_unit}(s) = ¥{cost}", True),
    ("{cases} out-of-sample {group} case(s) on {stack}", True), ("{n} non-aten operator(s) need", True),
    ("{servers} × {server_cards}-card server(s) bought", True), ("at the {n} fresh price(s) of a year", True),
    ("tf32 run(s) {ids}", False), ("unknown source id(s): {ids}", False), ("“TPOT target (s)”", False),
    ("Got unexpected extra argument(s) ({args})", False), ("{n:/card/cards}", False),
])
def test_the_check_finds_a_counted_plural(template: str, flagged: bool) -> None:
    assert bool(counted_plurals(template)) is flagged, template


def test_no_english_message_writes_s_after_a_noun_it_counts() -> None:
    found = {k: counted_plurals(v) for k, v in messages("en").items() if counted_plurals(v)}
    assert found == {}


@pytest.mark.parametrize(("msg_id", "params", "one", "many"), [
    ("plan.evidence.stack", {"stack": "NVIDIA CUDA"}, "1 case on NVIDIA CUDA", "2 cases on NVIDIA CUDA"),
    ("why.slots_gpus", {"slots": 4, "users": 9, "layout": "tp1"}, "but 1 card holds at most 4 of", "but 2 cards hold at most 4 of"),
    ("why.rate_gpus_dies", {"ranks": 2, "rps": 1.5, "thin": "", "want": 3},
     "but 1 card (2 dies) serves at most 1.5 req/s", "but 2 cards (2 dies) serve at most 1.5 req/s"),
    ("layout.ep_groups_engine", {"engine": "vllm", "cards": 8, "tp": 1, "ep": 8},
     "1 vllm group of 8 cards sharing", "2 vllm groups of 8 cards sharing"),
    ("error.wl.gpus_tp_pp_dies", {"ranks": 4, "tp": 8, "pp": 1, "n": 8, "gpus_field": "gpus", "try_cards": 4, "try_ranks": 8},
     "1 card is 4 dies", "2 cards are 4 dies"),
    ("mig.vt.needs_port", {}, "1 non-aten operator needs an NPU kernel", "2 non-aten operators need an NPU kernel"),
    ("mig.vt.needs_port_more", {}, "; 1 more falls back to the CPU", "; 2 more fall back to the CPU"),
    ("cmp.fits_lower", {"why": "w", "precision": "bf16", "layout": "tp1", "pin": "p"}, "on this 1 card: tp1", "on these 2 cards: tp1"),
    ("web.rvb_capex_all", {}, "capex, 1 card", "capex, all 2 cards"),
    ("cli.rvb.amortized", {}, "amortized over 1 year (--years)", "amortized over 2 years (--years)"),
])
def test_one_and_two_read_as_english(msg_id: str, params: dict[str, object], one: str, many: str) -> None:
    count = {"plan.evidence.stack": "cases", "layout.ep_groups_engine": "groups", "error.wl.gpus_tp_pp_dies": "cards",
             "mig.vt.needs_port": "n", "mig.vt.needs_port_more": "n", "web.rvb_capex_all": "cards", "cli.rvb.amortized": "years"}.get(msg_id, "gpus")
    assert one in render(Message(msg_id, params, **{count: 1}), "en")
    assert many in render(Message(msg_id, params, **{count: 2}), "en")


@pytest.mark.parametrize(("units", "said"), [(1, "billed 1 month = "), (3, "billed 3 months = "),
                                              ("1", "billed 1 month = "), ("1–2", "billed 1–2 months = ")])
def test_a_billing_unit_is_counted_as_a_noun(units: object, said: str) -> None:
    """The unit is a field (`billing_unit.month`: month); a count given as text (`span`) is one only as "1"."""
    msg = Message("cost.note.billed", units=units, billing_unit="month", billed_h=730, hours=40.0)
    assert render(msg, "en").startswith(said)
    assert render(msg, "zh").startswith(f"按 {units} 个月计费")  # Chinese has no plural: unchanged


def test_a_contract_term_is_a_compound_adjective() -> None:
    def said(units: int, years: float) -> str:
        return render(Message("rvb.note.commitment", offer="o", units=units, billing_unit="month", years=years,
                              total=1000.0, share=0.5), "en")

    assert said(12, 1).startswith("o is a 12-month contract (1 year, ")
    assert said(36, 3).startswith("o is a 36-month contract (3 years, ")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_counts_as_the_cli_does(tmp_path: Path, lang: str) -> None:
    """app.js `cell` takes the plural as i18n does, a count the page formatted first (`fmt(tot.years, 2)`: "1") too."""
    ids = ["web.rvb_total", "web.rvb_capex_all", "web.plan_more_warn"]
    cases = [{"cards": 1, "years": 1, "n": 1}, {"cards": 1, "years": "1", "n": 1}, {"cards": 8, "years": "2.5", "n": 3}]
    script = (f"lang = {lang!r}; console.log(JSON.stringify(DATA.ids.flatMap("
              "k => DATA.cases.map(p => fill(DATA.tpl[k], p)))));")
    got = run_app_js(tmp_path, script, {"ids": ids, "cases": cases, "tpl": {k: messages(lang)[k] for k in ids}})
    assert got == [render(Message(k, p), lang) for k in ids for p in cases]
    if lang == "en":
        assert got[:3] == ["1 card × 1 year", "1 card × 1 year", "8 cards × 2.5 years"]
        assert got[3:6] == ["capex, 1 card", "capex, 1 card", "capex, all 8 cards"]
        assert got[-1] == "Details, 3 warnings" and got[-2] == "Details, 1 warning"
