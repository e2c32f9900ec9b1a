"""The message catalog: both languages carry every id with the same parameters, and rendering follows the
documented rules (nested messages, enum values, flags on the CLI and field labels on the page)."""

from __future__ import annotations

import re
import string

import pytest

from suanli.i18n import (
    LANGS,
    Message,
    duration,
    lang_from_accept_language,
    lang_from_env,
    messages,
    normalize_lang,
    render,
    t,
)

_LATIN_WORD = re.compile(r"[A-Za-z]{4,}")
# words that stay in Latin letters in Chinese text: names, units, technical terms
_NAMES = {"suanli", "torch", "aten", "NVLink", "TFLOPS", "TOPS", "PCIe", "LoRA", "QLoRA", "GiB", "token", "logits",
          "bench", "pip", "install", "plans", "TDP", "MoE", "None",
          "SQLite", "PostgreSQL", "Hugging", "Face", "cuda", "Llama", "Young",  # names: a model family, an author
          "tokens", "FLOPs", "vLLM",  # terms Chinese ML teams write in English (tokens/s), an engine's name
          "cache", "ZeRO", "Offload", "rank", "RoPE", "scaling", "adafactor",  # KV cache, ZeRO-Offload, RoPE scaling
          "TensorRT", "transformers", "AdamW", "Adam", "bitsandbytes", "DeepSpeed",  # library / optimizer names
          "loss", "SkyPilot", "Kubernetes",  # the training loss, written in English by Chinese ML teams; a launcher's name
          "NVSwitch", "MindFormers", "Hopper", "reduce",  # validate's seed claims: names; all-reduce (a collective)
          "Ampere", "Blackwell", "GeForce", "Gbit"}  # accelerator families (family.*)


def _fields(template: str) -> set[str]:
    """The fields a template uses, those inside another's format spec too (`{units:/{billing_unit}/{billing_unit}s}`)."""
    return {x for _, f, spec, _ in string.Formatter().parse(template) if f for x in (f, *_fields(spec or ""))}


def test_every_id_in_both_languages() -> None:
    zh, en = messages("zh"), messages("en")
    assert set(zh) - set(en) == set(), "ids only in zh.json"
    assert set(en) - set(zh) == set(), "ids only in en.json"


@pytest.mark.parametrize("msg_id", sorted(messages("en")))
def test_same_parameters_in_both_languages(msg_id: str) -> None:
    assert _fields(messages("zh")[msg_id]) == _fields(messages("en")[msg_id]), msg_id


def test_chinese_has_no_english_sentences() -> None:
    bad = {}
    for k, v in messages("zh").items():
        text = re.sub(r"\{[^}]*\}|`[^`]*`|'[^']*'|--[a-z-]+", "", v)  # placeholders, commands, flags
        words = [w for w in _LATIN_WORD.findall(text) if w not in _NAMES and not w.isupper()]
        if words:
            bad[k] = words
    assert bad == {}


def test_render_nested_enum_and_field() -> None:
    msg = Message("relax.budget", need=2649.4, by=1000, field="budget_cny")
    assert render(msg, "en", "cli") == ("budget: the cheapest plan that meets the other constraints costs ¥2,649; "
                                        "raise --budget by ¥1,000")
    assert "“预算（元）”" in render(msg, "zh", "web") and "--budget" not in render(msg, "zh", "web")
    reason = Message("plan.reason.train", objective="cheapest", gpus=2, device="RTX 4090", hours=duration(6.57),
                     cost=17.36, billing="hour", mem_gib=21.2, cap_gib=24)
    assert render(reason, "zh").startswith("按“最便宜”排序：2 张 RTX 4090 训练用时 6.6 小时，费用 ¥17（按小时计费）")
    assert render(reason, "en").startswith("cheapest: 2× RTX 4090 trains it in 6.6 h for ¥17 (hourly billing)")


def test_render_never_raises() -> None:
    assert render("plain text", "zh") == "plain text"
    assert render(Message("no.such.id"), "zh") == "no.such.id"
    assert render(Message("plan.searched"), "en") == messages("en")["plan.searched"]  # missing params


def test_t_and_duration() -> None:
    assert t("plan.searched", "zh", n=249984, ms=67.2) == "评估了 249,984 种配置，用时 67 毫秒"
    assert render(duration(0.2), "en") == "12 min"
    assert render(duration(0.0001), "zh") == "0 秒"
    # a step time a missing rate left NaN (or an infinite one) reads as such, never 'nan s'
    assert render(duration(float("nan")), "en") == "not estimated"
    assert render(duration(float("inf")), "zh") == "未估算"
    assert t("vendor.huawei", "zh") == "华为"


def test_message_json() -> None:
    m = Message("why.over_deadline", hours=duration(3), deadline=duration(2))
    assert m.to_json() == {"id": "why.over_deadline", "params": {
        "hours": {"id": "duration.h", "params": {"n": 3}}, "deadline": {"id": "duration.h", "params": {"n": 2}}}}


@pytest.mark.parametrize(("env", "lang"), [
    ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LANG": "en_US.UTF-8"}, "en"), ({}, "en"),
    ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"), ({"LC_ALL": "", "LANG": "zh_TW.UTF-8"}, "zh"),
    ({"LC_MESSAGES": "zh_CN", "LANG": "en_US"}, "zh"),
])
def test_lang_from_env(env: dict[str, str], lang: str) -> None:
    assert lang_from_env(env) == lang


@pytest.mark.parametrize(("header", "lang"), [
    ("zh-CN,zh;q=0.9,en;q=0.8", "zh"), ("en-US,en;q=0.9,zh-CN;q=0.8", "en"), ("fr-FR, zh;q=0.5", "zh"),
    ("", "en"), (None, "en"), ("en;q=0.2, zh;q=0.7", "zh"), ("zh;q=0", "en"), ("zh;q=abc, en", "en"),
])
def test_accept_language(header: str | None, lang: str) -> None:
    assert lang_from_accept_language(header) == lang


def test_normalize_lang() -> None:
    assert [normalize_lang(x) for x in ("zh", "ZH-hans", "中文", "en", "de", None)] == ["zh", "zh", "zh", "en", "en", "en"]
    assert LANGS == ("zh", "en")
