"""A native Chinese reader's review of the zh output (2026-12-01, task full-zhfix): months counted (1 个月, not
1 月 "January"), compare's TFLOPS-per-yuan header and a device name kept whole at 80 columns (软件栈 goes first),
one TTFT/TPOT wording in 毫秒, the garbled metric names, and --lang zh-CN accepted."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.i18n import Message, messages, render

COMPARE = ("compare", "--model", "qwen2.5-7b", "--task", "inference", "--gpu", "h800", "--gpu", "910b",
           "--gpu", "a100-80g")


def _run(*args: str, lang: str = "zh", columns: int = 200) -> str:
    r = CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": str(columns)})
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.mark.parametrize(("unit", "counted"), [("hour", "小时"), ("day", "天"), ("week", "周"), ("month", "个月"),
                                               ("year", "年"), ("minute", "分钟"), ("second", "秒")])
def test_billing_units_are_counted(unit: str, counted: str) -> None:
    billed = render(Message("cost.note.billed", units=1, billing_unit=unit, billed_h=730, hours=10.0), "zh")
    least = render(Message("cost.note.min_units", units=12, billing_unit=unit, billed_h=8760, hours=10.0), "zh")
    deal = render(Message("rvb.note.commitment", offer="x", units=60, billing_unit=unit, years=5, total=1.0,
                          share=0.2), "zh")
    assert billed.startswith(f"按 1 {counted}计费")
    assert least.startswith(f"最少租 12 {counted}：")
    assert f"是 60 {counted}的合约" in deal
    if unit == "month":  # "按月计费" keeps the bare unit; a count never does
        assert "1 月" not in billed and "12 月" not in least
        assert render(Message("import.band.unit", billing_unit="month"), "zh") == "按月计费"


def test_english_billing_unit_unchanged() -> None:
    assert render(Message("cost.note.billed", units=2, billing_unit="month", billed_h=1460, hours=10.0), "en") == \
        "billed 2 months = 1,460 h for a 10.0 h job"


def test_compare_at_80_columns_keeps_device_names_whole() -> None:
    out = _run(*COMPARE, columns=80)
    assert "华为昇腾 910B" in out and "NVIDIA H800 SXM5 80GB" in out  # not 华为昇 | 腾
    assert "2.57（按月）" in out  # not 2.57（按月 | ）
    assert "TFLOPS 每" not in out and "软件栈" in out.split("─")[-1]  # named among the columns left out
    assert "每元" in out and "TFLOPS/(" not in out  # 每元 TFLOPS, one unit word (review 2026-12-01)


def test_compare_header_in_english_wide_unchanged() -> None:
    assert "TFLOPS per ¥/h" in _run(*COMPARE, lang="en", columns=300)


def test_plan_names_ttft_and_tpot_one_way() -> None:
    out = _run("plan", "--model", "qwen2.5-7b", "--task", "inference", "--requests-per-s", "2", columns=300)
    assert "首 token 延迟（TTFT）" in out and "每 token 间隔（TPOT）" in out
    assert "首字" not in out and "每字" not in out and "`" not in out


def test_one_ttft_tpot_pair_in_the_catalog() -> None:
    zh = messages("zh")
    assert [k for k, v in zh.items() if "每字" in v or "首字" in v] == []
    assert zh["web.ttft"].startswith("首 token 延迟（TTFT") and zh["web.tpot"].startswith("每 token 间隔（TPOT")
    assert [k for k, v in zh.items() if " ms" in v.replace("`", "")] == []


def test_garbled_metric_names_fixed() -> None:
    assert render(Message("est.metric.ttft_joining_s", batch=8), "zh") == "TTFT：加入已有 8 个请求的运行中批次（秒，规划用）"
    assert render(Message("est.metric.tpot_steady_s", batch=8), "zh") == "TPOT：批次保持 8 个请求满载（秒，规划用）"
    assert "样本外：构建和拟合估算器时未用过的案例" in messages("zh")["cli.val.title"]


@pytest.mark.parametrize("value", ["zh-CN", "zh_CN", "zh_CN.UTF-8", "ZH"])
def test_lang_tags_accepted_as_chinese(value: str) -> None:
    r = CliRunner().invoke(app, ["--lang", value, "gpu", "910b"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "华为昇腾 910B" in r.stdout


def test_unknown_lang_still_refused() -> None:
    r = CliRunner().invoke(app, ["--lang", "fr", "gpu", "910b"])
    assert r.exit_code != 0 and "fr" in repr(r.exception)
