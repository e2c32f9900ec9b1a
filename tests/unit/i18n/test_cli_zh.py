"""What a Chinese buyer reads on the command line: catalog, estimate and cost commands speak `--lang zh` (labels,
titles, headers through the message catalog) and name domestic devices and stacks as their vendors do
(`name_zh`: 华为昇腾 910B, 华为昇腾 CANN); English output keeps its labels."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from suanli.cli.main import app
from suanli.i18n import messages


def _zh(*args: str) -> str:
    r = CliRunner().invoke(app, ["--lang", "zh", *args], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return r.stdout


def _en(*args: str) -> str:
    r = CliRunner().invoke(app, ["--lang", "en", *args], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return r.stdout


def test_every_message_has_chinese() -> None:
    zh = messages("zh")
    assert [k for k, v in messages("en").items() if not (zh.get(k) or "").strip()] == []


def test_gpu_zh_names_the_vendor_product() -> None:
    out = _zh("gpu", "910b")
    assert out.startswith("华为昇腾 910B（ascend-910b）— 华为，达芬奇架构，数据中心，模组")
    assert "软件栈：华为昇腾 CANN" in out
    assert "Huawei Ascend 910B" not in out
    assert _en("gpu", "910b").startswith("Huawei Ascend 910B (ascend-910b) — Huawei, davinci, datacenter, module")


def test_gpus_zh_title_and_headers() -> None:
    out = _zh("gpus", "--market", "domestic")
    assert "加速卡" in out and "显存 GiB" in out and "Accelerators" not in out


def test_compare_zh_names_domestic_devices() -> None:
    out = _zh("compare", "--model", "qwen2.5-72b", "--gpu", "h20", "--gpu", "910b", "--gpu", "h200", "--gpus", "8")
    assert "华为昇腾 910B" in out and "华为昇腾 CANN" in out
    assert "每种设备 8 张卡" in out and "价格：区域为国内平台，报价类型为挂牌" in out
    for english in ("cards each", "prices: region", "unpriced:", "layout"):
        assert english not in out
    en = _en("compare", "--model", "qwen2.5-72b", "--gpu", "h20", "--gpu", "910b", "--gpus", "8")
    assert "Huawei Ascend 910B" in en and "华为昇腾 910B" not in en and "prices: region cn (Chinese platforms), offer kinds listing" in en


def test_tco_and_rent_vs_buy_zh() -> None:
    out = _zh("tco", "--gpu", "910b", "--gpus", "8", "--hours", "300")
    assert "8 张华为昇腾 910B，租用 300 小时" in out and "挂牌" in out and "¥/卡时" in out
    out = _zh("rent-vs-buy", "--gpu", "910b")
    assert "华为昇腾 910B：租用 ¥" in out and "盈亏平衡利用率" in out and "租用价格取自" in out
    assert "rent_cny_per_year_full_use" not in out and "Rent vs buy" not in out
    en = _en("rent-vs-buy", "--gpu", "910b")  # labelled rows in English too, not the JSON keys
    assert "rent_cny_per_year_full_use" not in en and "rent ¥/year at full use" in en


def test_scenarios_and_migrate_cost_zh() -> None:
    out = _zh("scenarios", "--id", "research-xinchuang")
    assert "参考文章场景" in out and "华为昇腾 910B" in out
    out = _zh("migrate", "cost", "--model", "qwen2.5-14b", "--from-gpu", "h100", "--to-gpu", "910b",
              "--monthly-spend", "100000", "--offer-kinds", "listing,index")
    assert "迁移成本与收益" in out and "华为昇腾 910B，8 张卡" in out and "周 × 2 名工程师" in out


@pytest.mark.parametrize("args", [
    ("estimate", "--model", "llama-2-7b", "--task", "inference", "--gpu", "rtx-4090"),
    ("estimate", "--model", "llama-2-7b", "--task", "full", "--gpu", "h100", "--gpus", "8", "--zero", "3",
     "--tokens", "1e9"),
])
def test_estimate_zh_labels(args: tuple[str, ...]) -> None:
    out = _zh(*args)
    assert "每卡显存" in out and "已验证误差" in out and "合计" in out
    for english in ("Memory per GPU", "largest batch", "validated error", "\ndevice memory", "method default",
                    "train_tokens_per_s", "decode_tokens_per_s", "Multi-card scaling"):
        assert english not in out


def test_estimate_on_910b_names_stack_in_chinese() -> None:
    out = _zh("estimate", "--model", "qwen2.5-7b", "--gpu", "910b")
    assert "华为昇腾 910B" in out and "华为昇腾 CANN 上的默认引擎" in out


def test_plan_assumptions_name_stacks_in_chinese() -> None:
    out = _zh("plan", "--file", "examples/lora-7b.yaml")
    assumed = [line for line in out.splitlines() if line.startswith("假设：")]
    assert any("华为昇腾 CANN" in a for a in assumed) and any("摩尔线程 MUSA" in a for a in assumed)
    assert not any("Huawei Ascend" in a or "Moore Threads" in a for a in assumed)


def test_estimate_notes_zh_json_stays_english() -> None:
    args = ("estimate", "--model", "llama-2-7b", "--task", "full", "--gpu", "h100", "--gpus", "8", "--zero", "3")
    out = _zh(*args)
    assert "峰值出现在反向传播" in out and "of backward" not in out
    out = _zh("estimate", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--engine", "lmdeploy", "--precision", "int4")
    assert "lmdeploy 预先占用 90% 的显存" in out and "pre-allocates" not in out
    import json

    assert any("of backward" in n for n in json.loads(_zh(*args, "--json"))["memory"]["notes"])


def test_compare_layouts_unpriced_and_stale_zh() -> None:
    # the H100: no Chinese listing (the H20 was this example until offers-7.yaml listed it)
    out = _zh("compare", "--model", "qwen2.5-72b", "--gpu", "h100", "--gpu", "910b", "--gpus", "8")
    assert re.search(r"\d×tp\d b\d+ bf16 · vllm", out) and "h100-sxm 没有国内平台的挂牌报价" in out and "推理批大小" in out
    for english in ("replicas", "no cn listing offer", "widen"):
        assert english not in out
    out = _zh("compare", "--model", "qwen2.5-14b", "--task", "lora", "--gpu", "rtx-4090", "--gpu", "910b", "--gpus", "8",
              "--tokens", "1e8")
    assert "重计算" in out and "recompute" not in out
    assert "4×tp2 b256 bf16 · vllm" in _en("compare", "--model", "qwen2.5-72b", "--gpu", "h200", "--gpu", "910b",
                                           "--gpus", "8")  # plan's layout label (plan.labels.serving_label)


def test_tco_notes_stale_migrate_verdict_and_break_even_zh() -> None:
    out = _zh("tco", "--gpu", "h100", "--gpus", "8", "--hours", "40", "--offer-kinds", "all")
    assert "按 1 个月计费 = 730 小时" in out and "请向平台核实现价" in out
    assert "billed 1 month" not in out and "check the platform" not in out
    assert "billed 1 month = 730 h for a 40.0 h job" in _en("tco", "--gpu", "h100", "--gpus", "8", "--hours", "40",
                                                               "--offer-kinds", "all")
    out = _zh("migrate", "cost", "--model", "qwen2.5-14b", "--from-gpu", "h100", "--to-gpu", "910b",
              "--monthly-spend", "100000", "--offer-kinds", "listing,index")
    assert "回本：值得迁移" in out and "pays back" not in out and "adapted list" not in out
    out = _zh("rent-vs-buy", "--gpu", "910b")
    assert "任何利用率下买卡都不划算" in out and "buying never pays off" not in out


def test_scenarios_and_validate_zh() -> None:
    out = _zh("scenarios")
    assert "规划器选" in out and "planner picks" not in out and "agrees:" not in out
    out = _zh("validate")
    assert "验证：" in out and "样本外中位数" in out and "Validation:" not in out and "out median" not in out
