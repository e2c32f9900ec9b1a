"""Buyer review 2026-12-02 (G3): English ids left in Chinese output — `bench compare`'s "假设值：host无实测设备…"
(the family id), `compare --precision int8`'s "DeepSeek-R1-W8A8 仅为 cann 制作" (the stack id) and "int4
compressed-tensors", `estimate`'s memory row "logits", `bench run`'s "峰值内存（process-peak-rss）". Each is now
rendered through the catalog's name or a message (English code in backticks), in one place; English is unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model, stack
from suanli.estimate.precision import unpublished_checkpoint_note
from suanli.i18n import Message, render

CAT = packaged_catalog()


def _bare_english(zh: str) -> list[str]:
    """Latin words in a Chinese sentence outside backticks (code) and parentheses of ids."""
    outside = re.sub(r"`[^`]*`", "", zh)
    return re.findall(r"[A-Za-z][A-Za-z-]{2,}", outside)


def test_host_family_is_named_in_chinese() -> None:
    msg = Message("est.basis.assumed_median", family="host", n=12, source="efficiency.yaml")
    assert render(msg, "zh").startswith("假设值：主机 CPU 系列无实测设备")
    assert "host" not in render(msg, "zh")
    assert render(msg) == "assumed: no measured device in the host family, median of all 12 measured devices, " \
        "source efficiency.yaml"


@pytest.mark.parametrize(("kind", "zh"), [("process-peak-rss", "进程常驻内存峰值"),
                                          ("device-max-allocated", "设备已分配显存峰值")])
def test_bench_memory_kind_in_chinese(kind: str, zh: str) -> None:
    assert render(Message("cli.bench.m_peak", memory_kind=kind), "zh") == f"峰值内存（{zh}）"
    assert render(Message("cli.bench.m_peak", memory_kind=kind)) == f"peak memory ({kind})"


def test_unpublished_checkpoint_names_the_stack_and_quotes_the_method() -> None:
    acc = accelerator(CAT, "h20")
    n = unpublished_checkpoint_note(model(CAT, "deepseek-r1"), stack(CAT, acc.stack), "inference", "int8",
                                    stacks=CAT.stacks)
    assert n is not None
    zh = render(n, "zh")
    assert "DeepSeek-R1-W8A8 仅为华为昇腾 CANN 制作" in zh and "cann" not in zh
    assert "int4 `compressed-tensors`" in zh
    en = render(n)
    assert "DeepSeek-R1-W8A8 is made for Huawei Ascend CANN only" in en


def test_estimate_logits_row_in_chinese(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    code, out, _ = run_cli(["--lang", "zh", "estimate", "--model", "qwen2.5-7b", "--gpu", "910b"],
                           monkeypatch, capsys, tmp_path)
    assert code == 0
    rows = [ln.split("  ")[0] for ln in out.splitlines()]
    assert "输出层分数（logits）" in rows and "logits" not in rows  # the term kept as code, the row named in Chinese
    assert not _bare_english(render(Message("memory.logits"), "zh"))
