"""Buyer review C (2026-12-02, /tmp findings F1 rest, F7, F8, F10, F11, F15): small CLI defects, each in English and
Chinese.

1. `--tokens 50M` / `5亿` / `50B` / `2万` were refused ("must be a number (got '50M')"): a token count takes K, M,
   B (billion), T, 万, 百万, 千万 and 亿 (`units.count_from_text`, the one parser: plan, estimate, compare and a
   workload file's `tokens`), and a bad one lists the forms;
2. `models --family llama4` printed an empty table: now one line naming the closest families, or all of them;
3. `gpus --vendor amd` suggested kunlunxin (its alias 'baidu' looks like 'amd'): a vendor is suggested only for a
   typo of its name; else the catalog's vendors are listed;
4. "1 cards" (the passed-over warning, and every "{count} cards" in en): one plural rule, `{n:/card/cards}`;
5. `estimate --ep 2` on a dense model on one card said "ep (2) must divide the data-parallel size": now the
   dense-model refusal plan gives (2f98e0a), `estimate.check_ep_has_experts`;
6. `--engine` beside a training task was ignored: refused in one line as every serving flag is
   (`plan.request.serving_task_refusal`); without a task it makes the plan a serving one, as --requests-per-s does."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner
from suanli.cli.plan_cmd import read_workload_file
from suanli.errors import InputError, Invalid
from suanli.i18n import messages, t
from suanli.units import count_from_text


# ---- 1. token counts as typed -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("typed", "tokens"), [
    ("5e7", 5e7), ("50000000", 5e7), ("50M", 5e7), ("50m", 5e7), (" 50 M ", 5e7), ("1.15B", 1.15e9), ("50B", 5e10),
    ("2T", 2e12), ("500k", 5e5), ("2万", 2e4), ("5000万", 5e7), ("5千万", 5e7), ("3百万", 3e6), ("5亿", 5e8),
    ("0.1M", 1e5), (5e7, 5e7), (None, None),
])
def test_a_count_reads_its_suffix(typed: object, tokens: float | None) -> None:
    assert count_from_text(typed) == tokens


@pytest.mark.parametrize("typed", ["", "M", "50MB", "5 e7", "1,000", "nan", "inf", "0x10", "万", "50 tokens"])
def test_other_text_is_refused_naming_the_forms(typed: str) -> None:
    with pytest.raises(Invalid) as e:
        count_from_text(typed)
    assert e.value.i18n is not None and e.value.i18n.id == "error.v.count"


def _plan_tokens(args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                 tmp_path: Path) -> float:
    code, out, err = run_cli(("--lang", "en", "plan", *args, "--json"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    return float(json.loads(out)["request"]["tokens"])


@pytest.mark.parametrize("typed", ["50M", "5000万", "5千万", "0.05B"])
def test_plan_takes_a_token_count_with_its_suffix(typed: str, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    base = ("--model", "qwen2.5-7b", "--task", "lora", "--tokens")
    assert _plan_tokens((*base, typed), monkeypatch, capsys, tmp_path) == 5e7


@pytest.mark.parametrize(("command", "typed", "plain"), [
    (("estimate", "--model", "qwen2.5-7b", "--gpu", "a100", "--task", "lora"), "5亿", "5e8"),
    (("compare", "--model", "qwen2.5-7b", "--gpu", "4090", "--gpu", "a100", "--task", "lora"), "500M", "5e8"),
])
def test_estimate_and_compare_take_it_too(command: tuple[str, ...], typed: str, plain: str,
                                          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    answers = []
    for tokens in (typed, plain):
        code, out, err = run_cli(("--lang", "en", *command, "--tokens", tokens, "--json"), monkeypatch, capsys,
                                 tmp_path)
        assert code == 0, err
        answers.append(json.loads(out))
    assert answers[0] == answers[1]


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "--tokens: must be a number such as 5e7, 50M, 1.5B, 5000万 or 5亿 (K thousand, M million, B billion, "
           "T trillion; 万, 百万, 千万, 亿; got '50MB')"),
    ("zh", "--tokens：必须是数字，如 5e7、50M、1.5B、5000万 或 5亿（K 千、M 百万、B 十亿、T 万亿；万、百万、千万、亿；"
           "实际为 '50MB'）"),
])
def test_a_bad_count_lists_the_forms(lang: str, said: str, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, "plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "50MB"),
                             monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert said in " ".join(err.split()).replace("。 ", "。"), err


def _file(tmp_path: Path, tokens: str) -> str:
    p = tmp_path / "w.yaml"
    p.write_text(f"model: qwen2.5-7b\ntask: lora\ntokens: {tokens}\n", encoding="utf-8")
    return str(p)


@pytest.mark.parametrize(("written", "tokens"), [("50M", 5e7), ("5亿", 5e8), ("5e7", 5e7), ("50000000", 5e7)])
def test_a_workload_file_takes_it(written: str, tokens: float, tmp_path: Path) -> None:
    assert read_workload_file(_file(tmp_path, written))["tokens"] == tokens  # YAML reads 5e7 as text: a count too


def test_a_bad_count_in_a_file_names_tokens(tmp_path: Path) -> None:
    with pytest.raises(InputError) as e:
        read_workload_file(_file(tmp_path, "lots"))
    assert e.value.field == "tokens" and e.value.i18n is not None and e.value.i18n.id == "error.v.count"


# ---- 2. models --family: no empty table -------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "family", "said"), [
    ("en", "llama4", "--family: unknown model family 'llama4'. Did you mean: llama?"),
    ("zh", "llama4", "--family：未知的模型系列：'llama4'。你是不是要找：llama？"),
    ("en", "zzz", "--family: unknown model family 'zzz'; known: baichuan, chatglm, deepseek-v3,"),
])
def test_an_unknown_family_is_said(lang: str, family: str, said: str, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, "models", "--family", family), monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert said in err


def test_a_known_family_lists_its_models_any_case(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    code, out, err = run_cli(("models", "--family", "QWEN3", "--json"), monkeypatch, capsys, tmp_path)
    assert code == 0, err
    assert {r["family"] for r in json.loads(out)} == {"qwen3"}


# ---- 3. gpus --vendor: suggested only for a typo ----------------------------------------------------------------

@pytest.mark.parametrize(("lang", "vendor", "said"), [
    ("en", "amd", "--vendor: unknown vendor 'amd'; known: cambricon, huawei, hygon, kunlunxin, metax, moore-threads, "
                  "nvidia."),
    ("zh", "AMD", "--vendor：未知的厂商：'AMD'。已知的有：cambricon、huawei、hygon、kunlunxin、metax、moore-threads、"
                  "nvidia。"),
    ("en", "intel", "known: cambricon"),
    ("en", "nvida", "Did you mean: nvidia?"),
    ("en", "hauwei", "Did you mean: huawei?"),
    ("en", "cambrian", "Did you mean: cambricon?"),
])
def test_a_vendor_not_in_the_catalog_lists_the_vendors(lang: str, vendor: str, said: str,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, "gpus", "--vendor", vendor), monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert said in err and "kunlunxin?" not in err and "kunlunxin？" not in err


# ---- 4. one plural rule -----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("cards", "said"), [(1, "L, 1 card, ¥19"), (8, "L, 8 cards, ¥19")])
def test_the_passed_over_warning_counts_cards_in_english(cards: int, said: str) -> None:
    for key in ("plan.warn.cheaper_passed_over", "plan.warn.ahead_passed_over"):
        assert said in t(key, "en", layout="L", cards=cards, cost=19, tpot="30 ms", check="c")
    assert "1 张卡" in t("plan.warn.cheaper_passed_over", "zh", layout="L", cards=1, cost=19, tpot="30 ms", check="c")


def test_the_rule_keeps_a_number_format() -> None:
    assert t("error.wl.gpus_le_dies", "en", le=1, ranks=2, dies=2, value=3).startswith("must be at most 1 card (")
    assert "at most 32,768 cards (" in t("error.wl.gpus_le_dies", "en", le=32768, ranks=65536, dies=2, value=40000)
    assert t("plan.warn.idle_cards", "en", cards=8, idle=1) == "offer rents 8-card machines: 1 card idle"


def test_no_english_message_counts_cards_without_the_rule() -> None:
    """'{cards} cards' reads '1 cards' at one card: every count of cards in en takes `{n:/card/cards}` (a device
    name before 'cards', '{device} cards', is not a count)."""
    counted = re.compile(r"\{(?!device\}|gpus_field\})\w+(:[^}]*)?\} cards\b")
    assert [k for k, v in messages("en").items() if counted.search(v)] == []


# ---- 5. estimate --ep on a dense model ---------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "said"), [
    ("en", "--ep: expert parallelism (2) needs an MoE model; Qwen/Qwen2.5-32B-Instruct is dense"),
    ("zh", "--ep：专家并行（2）需要 MoE 模型；Qwen/Qwen2.5-32B-Instruct 是稠密模型"),
])
@pytest.mark.parametrize("task", ["lora", "inference"])
def test_estimate_ep_on_a_dense_model_says_so(lang: str, said: str, task: str, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, "estimate", "--model", "qwen2.5-32b", "--gpu", "4090", "--task", task,
                              "--ep", "2"), monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert said in err and "data-parallel" not in err


def test_estimate_ep_on_an_moe_keeps_the_layout_check(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", "estimate", "--model", "qwen3-30b-a3b", "--gpu", "4090", "--ep", "2"),
                           monkeypatch, capsys, tmp_path)
    assert code == 2 and "must divide the data-parallel size" in err


# ---- 6. --engine beside a training task ---------------------------------------------------------------------------

_ENGINE_EN = "--engine: --engine can only be used when serving (task inference), and task lora was given"
_ENGINE_ZH = "--engine：--engine 只用于推理服务（任务 inference），而给出的任务是 lora"


@pytest.mark.parametrize(("lang", "said"), [("en", _ENGINE_EN), ("zh", _ENGINE_ZH)])
@pytest.mark.parametrize("command", [
    ("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "5e7", "--engine", "sglang"),
    ("estimate", "--model", "qwen2.5-7b", "--gpu", "4090", "--task", "lora", "--engine", "vllm"),
])
def test_an_engine_beside_training_is_refused(lang: str, said: str, command: tuple[str, ...],
                                              monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    code, out, err = run_cli(("--lang", lang, *command), monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert said in err


def test_an_engine_without_a_task_serves(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    code, out, err = run_cli(("plan", "--model", "qwen2.5-7b", "--tokens", "5e7", "--engine", "sglang", "--json"),
                             monkeypatch, capsys, tmp_path)
    assert code == 0, err
    req = json.loads(out)["request"]
    assert req["task"] == "inference" and req["engine"] == "sglang"
