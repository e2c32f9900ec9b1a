"""Buyer's review 2026-12-01 (afternoon), small CLI defects: migrate check's own table title; rent-vs-buy refuses
to spread a 1-card server over 8 cards and warns on export control; --tpot 30 warned, --tokens-per-s-per-user;
one short localized no-plan line; one error label; today's messages in Chinese; rent-vs-buy labels; a short
migrate cost line when the from-device has no price."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from suanli.errors import InputError, error_label, error_text
from suanli.i18n import Message, render, t
from suanli.plan.request import make_request


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUANLI_TODAY": "2026-12-01", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env)


def test_migrate_check_title_is_its_own() -> None:
    for lg in ("en", "zh"):
        title = t("cli.mig.check_title", lg, model="m", task=t("cli.mig.task.training", lg), version="2.6.0",
                  device="meta", shrunk="")
        assert "2.6.0" in title and "meta" in title and "m" in title
        assert title != t("cli.mig.title", lg)
    assert "training" in t("cli.mig.check_title", "en", model="m", task=t("cli.mig.task.training", "en"),
                           version="2.6.0", device="meta", shrunk="")


def test_rent_vs_buy_refuses_a_server_row_for_other_card_counts_and_warns_export() -> None:
    for lg, needle in (("en", "error: --cards: no server price for 8 rtx-4090 cards"), ("zh", "错误：--cards：型号库中没有装 8 张")):
        out = _run("--lang", lg, "rent-vs-buy", "--gpu", "rtx-4090", "--cards", "8")
        assert out.returncode == 2 and needle in out.stderr and "--server-share" in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
    ok = _run("--lang", "en", "rent-vs-buy", "--gpu", "rtx-4090", "--cards", "8", "--server-share", "3000")
    assert ok.returncode == 0 and "export-controlled for China" in ok.stdout
    assert "rent ¥/year at full use" in ok.stdout and "rent_cny_per_year_full_use" not in ok.stdout  # labelled
    domestic = _run("--lang", "en", "rent-vs-buy", "--gpu", "910b")
    assert "export-controlled" not in domestic.stdout


def test_slow_tpot_warns_and_tokens_per_s_per_user_sets_it() -> None:
    slow = make_request(model="m", task="inference", requests_per_s=1, tpot_s=30)
    note = slow.tpot_note()
    assert note is not None and "TPOT 30 s per token: did you mean 1/30 = 0.0333 s (30 tokens/s)?" in render(note)
    assert make_request(model="m", task="inference", requests_per_s=1, tpot_s=0.05).tpot_note() is None
    req = make_request(model="m", task="inference", concurrent_users=100, tokens_per_s_per_user=30)
    assert req.tpot_s == pytest.approx(1 / 30) and req.tpot_note() is None and req.requests_per_s is not None
    with pytest.raises(InputError) as e:
        make_request(model="m", task="inference", requests_per_s=1, tpot_s=0.1, tokens_per_s_per_user=30)
    assert e.value.field == "tokens-per-s-per-user" and "只能给出其一" in error_text(e.value, "zh")
    out = _run("--lang", "en", "plan", "--model", "qwen2.5-7b", "--task", "inference", "--requests-per-s", "1",
               "--tpot", "30", "--json")
    assert "did you mean 1/30" in out.stderr


def test_concurrent_users_errors_in_chinese() -> None:
    out = _run("--lang", "zh", "plan", "--model", "qwen2.5-7b", "--task", "inference", "--concurrent-users", "100")
    # the CLI names the field by its flag (i18n.field_name), the API by its JSON name
    assert out.returncode == 2 and "错误：--concurrent-users：需要 --tpot" in out.stderr and "tpot_s" not in out.stderr
    out = _run("--lang", "zh", "plan", "--model", "qwen2.5-7b", "--task", "inference", "--concurrent-users", "100",
               "--tpot", "0.05", "--requests-per-s", "3")
    assert "只能给出其一" in out.stderr and "not both" not in out.stderr


def test_no_plan_is_one_short_localized_line_with_the_common_label() -> None:
    out = _run("--lang", "zh", "plan", "--model", "qwen2.5-14b", "--task", "lora", "--tokens", "5e7",
               "--deadline-hours", "48", "--domestic-only")
    assert out.returncode == 1
    assert out.stderr.strip() == "错误：没有满足约束的方案；见上方可放宽项"
    assert "可放宽：" in out.stdout and "可放宽: " not in out.stdout


def test_one_error_label_everywhere() -> None:
    assert error_label("en") == "error" and error_label("zh") == "错误"
    from suanli.i18n import t  # the CLI's label: the same word, then ": " or the full-width "：" as every zh label
    assert t("cli.label.error", "en") == "error:" and t("cli.label.error", "zh") == "错误："
    usage = _run("--lang", "en", "migrate", "cost")  # click's usage error, once "Error: Missing option"
    assert usage.returncode == 2 and "error: Missing option '--model'" in usage.stderr and "Error:" not in usage.stderr


def test_why_not_region_and_kinds_in_words() -> None:
    m = Message("why.no_offer_region", kinds={"en": "listing", "zh": "挂牌"}, region={"en": "cn", "zh": "国内平台"},
                have_kinds={"en": "index", "zh": "指数"}, have_regions={"en": "cn", "zh": "国内平台"})
    assert render(m, "zh") == "区域“国内平台”没有挂牌报价（型号库中有国内平台的指数价格）"
    assert render(m, "en") == "no listing offer in region cn (the catalog has index prices in cn)"


def test_migrate_cost_without_a_price_is_one_short_line() -> None:
    # a typed --from-gpu (the default's line names --from-gpu: tests/unit/cli/test_migrate_cost_default_from_c1202.py)
    out = _run("--lang", "en", "migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h100-sxm")
    lines = out.stderr.strip().splitlines()
    # one line: the catalog's account once below it said "widen" and "pass --saving" a second time
    assert out.returncode == 2 and len(lines) == 1 and out.stderr.count("pass --saving") == 1  # and the field
    assert lines[0] == ("error: --saving: no cn (Chinese platforms) listing price for h100-sxm to derive the monthly "
                        "saving: pass --saving, or widen with --offer-kinds listing,index")
    assert len(lines[0]) < 200
    zh = _run("--lang", "zh", "migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "h100-sxm").stderr.strip().splitlines()
    assert len(zh) == 1 and zh[0].startswith("错误：--saving：h100-sxm 没有国内平台的挂牌价格")
