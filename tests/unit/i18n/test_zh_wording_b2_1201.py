"""Chinese wording from a native reader's review (2026-12-01, task full-B2), fixed where the text is built so every
caller gets it: large counts in 万/亿 (one spec, `{n:cn_count}`), whole hours without ".0", no space between the
template's Chinese and a Chinese value, lists joined in code shown with 、, pydantic's "or" lists, the warning label,
accelerator families and offer regions in Chinese, and GET /api/offers' scope and note in the request's language."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from suanli.errors import or_list
from suanli.i18n import Message, cn_count, messages, render, t


@pytest.mark.parametrize(("n", "text"), [(1e8, "1 亿"), (2e12, "2 万亿"), (1e14, "100 万亿"), (3.16e6, "316 万"),
                                         (68.98e9, "689.8 亿"), (5000, "5,000"), (12_345_678, "1,235 万")])
def test_cn_count(n: float, text: str) -> None:
    assert cn_count(n) == text


def test_counts_and_hours_in_chinese_english_unchanged() -> None:
    assert t("plan.what.tokens", "zh", tokens=1e8) == "1 亿个 token"  # the space after 亿 goes with the value's
    assert t("plan.what.tokens", "en", tokens=1e8) == messages("en")["plan.what.tokens"].format(tokens=1e8)
    assert t("cli.est.params", "zh", total=68.98, active=68.98) == "参数量 689.8 亿（激活参数 689.8 亿）"
    assert render(Message("duration.h", n=730.0), "zh") == "730 小时"
    assert render(Message("duration.h", n=730.0), "en") == "730.0 h"
    assert render(Message("duration.h", n=20.34), "zh") == "20.3 小时"
    zh = t("cli.est.setup_total", "zh", setup=19.45, env=10, download=1.8, checkpoint=572.3, lost=3.0, total=19.5)
    assert "检查点 9.5 小时" in zh and "572.3" not in zh


def test_no_space_between_chinese_text_and_a_chinese_value() -> None:
    assert t("cli.tco.title", "zh", gpus=8, device="华为昇腾 910B", hours=300.0) == "8 张华为昇腾 910B，租用 300 小时"
    assert t("cli.tco.title", "zh", gpus=8, device="NVIDIA H100", hours=40.0) == "8 张 NVIDIA H100，租用 40 小时"
    targets = t("cmp.serving.tpot", "zh", tpot_ms=50.0)
    assert t("cmp.serving.targets", "zh", targets=targets).startswith("推理批大小：每种设备取满足稳态 TPOT")
    assert "50 毫秒时每副本" in t("cmp.serving.targets", "zh", targets=targets)
    assert t("cmp.layout.training", "zh", dims="tp2", recompute="none") == "tp2 · 不重计算"


def test_lists_built_in_code_use_the_chinese_mark() -> None:
    assert t("est.basis.family_median", "zh", devices="l20, l40s, rtx-4090", source="x").startswith("同系列 l20、l40s、rtx-4090")
    assert "（可用：GET、POST）" in t("error.http.method", "zh", path="/p", method="PUT", allowed="GET, POST")
    assert "GET, POST" in t("error.http.method", "en", path="/p", method="PUT", allowed="GET, POST")
    searched = t("plan.assume.frameworks_searched", "zh", stack="华为昇腾 CANN", framework="MindSpeed-LLM", field="framework",
                 others="DeepSpeed, LLaMA-Factory (PEFT + DeepSpeed/FSDP)")
    assert "及 DeepSpeed、LLaMA-Factory (PEFT + DeepSpeed/FSDP)，" in searched
    assert or_list("'any', 'cn' or 'international'") == {"en": "'any', 'cn' or 'international'",
                                                          "zh": "`any`、`cn` 或 `international`"}


def test_families_regions_and_names_in_chinese() -> None:
    assert t("est.basis.family", "zh", family="hopper", source="s") == "Hopper 架构通用，来源 s"
    assert "hopper" in t("est.basis.family", "en", family="hopper", source="s")
    assert t("plan.warn.international_offer", "zh", provider="Paperspace", region="international") == \
        "价格来自境外报价（Paperspace，境外）"
    assert t("cli.named", "zh", name="rtx-4090", text="x") == "rtx-4090：x"
    assert t("cli.named", "en", name="rtx-4090", text="x") == "rtx-4090: x"


def test_api_offers_scope_label_and_note_follow_lang() -> None:
    from suanli.api.app import create_app

    c = TestClient(create_app())
    zh = c.get("/api/offers?lang=zh&device=910b&limit=200").json()
    en = c.get("/api/offers?device=910b&limit=200").json()
    node = next(o for o in zh if o["scope"] == "node")
    assert node["scope_label"].endswith("无节点间网络）") and "HCCS" in node["scope_label"]
    assert "scope_label_i18n" in node and "note_zh" not in node
    # an offer's note shows its Chinese twin (`note_zh`) where the data has one (no packaged offer has one yet)
    assert next(o for o in en if o["id"] == node["id"])["scope_label"].endswith("no inter-node fabric)")
