"""Buyer review C (2026-12-02): the bare `suanli migrate cost --model qwen2.5-72b` — the first thing a buyer runs after
README's "Will it run on Ascend?" — failed with "--saving: no cn (Chinese platforms) listing price for h100-sxm to
derive the monthly saving: pass --saving, or widen with --offer-kinds listing,index": it named a flag the buyer never
typed and not the one to fix, --from-gpu, whose default (h100-sxm) no Chinese listing prices. Where --from-gpu is left
at its default the line now says so and asks for the device run today; a typed --from-gpu keeps the old line."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "error: --from-gpu: no cn (Chinese platforms) listing price for h100-sxm (the default): pass --from-gpu "
           "with the device you run today, --saving, or widen with --offer-kinds listing,index"),
    ("zh", "错误：--from-gpu：h100-sxm（默认值）没有国内平台的挂牌价格，无法推算每月节省：请用 --from-gpu 给出你现在用"
           "的设备，或用 --saving 给出，或用 --offer-kinds listing,index 放宽"),
])
def test_the_default_from_gpu_unpriced_names_from_gpu(lang: str, said: str, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, "migrate", "cost", "--model", "qwen2.5-72b"), monkeypatch, capsys,
                             tmp_path)
    assert code == 2 and out == ""
    assert err.strip() == said  # one line, short (tests/unit/cli/test_review2_fixes.py: under 200 characters)
    assert len(err.strip()) < 200


def test_a_typed_from_gpu_keeps_the_saving_line(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", "migrate", "cost", "--model", "qwen2.5-72b", "--from-gpu", "h100"),
                           monkeypatch, capsys, tmp_path)
    assert code == 2
    assert ("--saving: no cn (Chinese platforms) listing price for h100-sxm to derive the monthly saving: pass "
            "--saving, or widen with --offer-kinds listing,index") in err
    assert "default" not in err


def test_a_priced_from_gpu_answers(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", "en", "migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h800",
                              "--task", "inference"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert "NVIDIA H800" in out
