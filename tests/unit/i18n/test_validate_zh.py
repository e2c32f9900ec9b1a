"""`suanli --lang zh validate` in Chinese (README sweep 2026-12-01): the seeds' scaling claims, their case and why,
the met column, the sample labels; `--json` keeps its English fields with `_i18n` twins. And `migrate check`'s
operator notes numbered under the table, so the table fits 80 columns in both languages."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from typer.testing import CliRunner

from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.i18n import Message, render
from suanli.validate.report import seed_scaling_claims

from .test_catalog_notes_zh import _SENTENCE, _latin_words

# names a Chinese reader sees in the claims (a framework, a GPU architecture, an interconnect)
_CLAIM_NAMES = {"MindFormers", "Hopper", "NVSwitch"}


def _run(lang: str, *args: str, columns: int = 80) -> str:
    r = CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": str(columns)})
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture(scope="module")
def zh_validate() -> str:
    return _run("zh", "validate", "--cases", "--by-source")


def test_zh_validate_has_no_english_sentence(zh_validate: str) -> None:
    """The claims table and its numbered whys are Chinese (they were English on the old code)."""
    claims = zh_validate[zh_validate.index("参考文章关于多卡扩展的说法"):]
    assert _SENTENCE.findall(zh_validate) == []
    assert [w for w in _latin_words(claims) if w not in _CLAIM_NAMES] == []
    wide = _run("zh", "validate", columns=200)  # a claim's words whole (at 80 columns 集群： may wrap as 集 | 群：)
    assert "NVLink + NVSwitch 集群" in wide and "被反向传播掩盖" in claims and "(1) " in claims


def test_zh_validate_met_and_sample_are_chinese(zh_validate: str) -> None:
    summary = zh_validate[:zh_validate.index("─" * 20, zh_validate.index("─" * 20) + 80)]
    assert re.search(r"\b(yes|no)\b", summary) is None and "in-sample" not in zh_validate
    assert "仅样" in summary and "是" in summary
    assert "development-set" not in zh_validate and "样本内：" in zh_validate
    assert "开发集" in _run("zh", "validate", "--cases", columns=300)  # the label wraps in the 80-column table


def test_validate_tables_fit_80_columns(zh_validate: str) -> None:
    from rich.cells import cell_len

    en = _run("en", "validate", "--cases")
    assert max(cell_len(x) for x in (zh_validate + en).splitlines()) <= 80


def test_english_claims_unchanged_and_json_twins() -> None:
    claims = seed_scaling_claims(packaged_catalog())
    assert claims[0].claim == "8-card NVLink + NVSwitch cluster: > 90 % of compute is useful"
    assert claims[0].case == "Llama-2-7B full, ZeRO-3, 8× H100 SXM, micro-batch 1 × 2048"
    assert claims[0].explanation == ("gradient all-reduce over NVSwitch (370 GB/s bus) hides behind the backward "
                                     "pass")
    assert claims[1].explanation.startswith("host-staged PCIe all-reduce (14 GB/s bus): exposed: the backward pass")
    assert claims[-1].case == "Llama-2-7B full, ZeRO-3, micro-batch 2 × 2048, tokens/s ratio"
    assert "compute efficiency 0.54 on the 910B (fitted to MindFormers runs)" in claims[-1].explanation
    for c in claims:  # each English field is its message rendered in English
        for f in ("claim", "case", "explanation"):
            assert render(Message.from_json(getattr(c, f + "_i18n"))) == getattr(c, f)
    out = json.loads(_run("zh", "validate", "--json"))
    got = out["seed_scaling_claims"][0]
    assert got["claim"] == claims[0].claim and got["claim_i18n"]["id"] == "val.claim.nvlink"
    assert out["groups"][-1]["met"] in ("yes", "no", "in-sample only")  # ids in JSON


# ---- migrate check: the operator table's notes as numbered footnotes ------------------------------------------


def _report_with_notes() -> Any:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from suanli.cli.migrate_cmd import run_check

    report, _ = run_check("qwen2.5-7b")
    notes = [Message("mig.note.no_decomposition"), Message("mig.note.non_aten"), Message("mig.note.no_decomposition")]
    ops = [r.model_copy(update={"note": render(m), "note_i18n": m.to_json()}) if i < 3 else r
           for i, (r, m) in enumerate(zip(report.ops, notes + [notes[0]] * len(report.ops)))]
    return report.model_copy(update={"ops": ops})


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_migrate_notes_numbered_under_the_table(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.cells import cell_len

    import suanli.cli.migrate_cmd as mig

    report = _report_with_notes()
    monkeypatch.setattr(mig, "run_check", lambda *a, **k: (report, 1.0))
    out = _run(lang, "migrate", "check", "--model", "qwen2.5-7b")
    table = out[:out.index("\n(1) ")]  # the table (output.emit_rows), then the numbered notes under it
    assert max(cell_len(x) for x in table.splitlines()) <= 80
    assert "(1)" in table
    first = render(Message("mig.note.no_decomposition"), lang)
    assert f"(1) {first}" in out.replace("\n", "") or f"(1) {first[:20]}" in out
    assert "(2) " in out and "(3) " not in out  # one number per distinct sentence
    table = out[:out.index("(1) " + first[:10])]
    assert first[:15] not in table  # the sentence is not squeezed into the column


def test_by_source_headers_do_not_wrap_one_character_a_line(zh_validate: str) -> None:
    """At 80 columns the by-source table's count header (“样本外 n”) wrapped one character a line: the title says
    out-of-sample, the header is n."""
    table = zh_validate[zh_validate.index("按类别和来源"):]
    head = table[:table.index("─" * 20)].splitlines()[1:]
    assert not any(re.fullmatch(r"\s*[样本外]\s*", x) for x in head), head
    assert re.search(r"来源\s+n\s+中位数", table), head
