"""`migrate check` sentences built in code are messages (mig.warn.*, mig.note.*, mig.basis.*): the CLI shows them in
its language, the English text and the --json dict stay as they were."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from suanli.i18n import Message, render
from suanli.migrate.coverage import OpTrace, classify, load_caveats, load_op_list, summarize

NPU21 = load_op_list("2.1")


def _trace() -> OpTrace:
    return OpTrace(model="m", task="inference", device="cpu", torch_version="2.13.0",
                   ops={"_scaled_dot_product_flash_attention_for_cpu": 2, "mode": 1, "foo::bar": 1, "odd_composite": 1},
                   decompositions={"odd_composite": None},
                   warnings=["MoE routing is data-dependent: traced a shrunk copy (same operator set) on the CPU"],
                   warnings_i18n=[Message("mig.warn.moe_shrunk").to_json()])


def test_report_sentences_are_messages_whose_english_is_the_text() -> None:
    rep = classify(_trace(), NPU21, caveats=load_caveats())
    assert len(rep.warnings_i18n) == len(rep.warnings)
    for text, m in zip(rep.warnings, rep.warnings_i18n):
        assert render(Message.from_json(m)) == text
    ids = [m["id"] for m in rep.warnings_i18n]
    assert ids[0] == "mig.warn.moe_shrunk" and "mig.warn.torch_mismatch" in ids
    assert any("traced with torch 2.13.0 but torch_npu 2.1.0" in w for w in rep.warnings)
    zh = [render(Message.from_json(m), "zh") for m in rep.warnings_i18n]
    assert "MoE 路由依赖输入数据" in zh[0] and any("追踪所用 torch 为 2.13.0" in w for w in zh)
    cav = load_caveats()
    assert cav.general_zh[0] in zh  # the general caveats in Chinese from caveats.yaml's general_zh
    notes = {r.op: r for r in rep.ops}
    alias = notes["_scaled_dot_product_flash_attention_for_cpu"]
    assert alias.note == "tracing-device op; NPU runs scaled_dot_product_attention"
    assert render(Message.from_json(alias.note_i18n or {}), "zh") == "追踪设备上的算子；NPU 上运行 scaled_dot_product_attention"
    assert notes["foo::bar"].note == "not an aten op: needs an NPU kernel or replacement"
    assert notes["odd_composite"].note == "composite; its decomposition was not recorded"
    assert render(Message.from_json(rep.migration_basis_i18n or {})) == rep.migration_basis


def test_json_dict_has_no_message_fields() -> None:
    d = summarize(classify(_trace(), NPU21, caveats=load_caveats()))
    assert "warnings_i18n" not in d and "migration_basis_i18n" not in d
    assert all("note_i18n" not in r for r in d["ops"])
    assert isinstance(d["warnings"][0], str)


def test_moe_check_in_chinese_has_no_english_trace_warnings() -> None:
    pytest.importorskip("torch", reason="tracing needs the optional `torch` extra; `make test` installs it, so CI runs this")
    pytest.importorskip("transformers", reason="tracing needs the optional `torch` extra (transformers); `make test` installs it")
    env = {**os.environ, "COLUMNS": "250"}
    r = subprocess.run([sys.executable, "-m", "suanli.cli.main", "--lang", "zh", "migrate", "check", "--model",
                        "deepseek-v3", "--torch-npu", "2.1"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert "调用次数来自缩小副本" in r.stdout and "MoE 路由依赖输入数据" in r.stdout
    assert "追踪所用 torch" in r.stdout and "在华为昇腾 CANN 推理适配清单（" in r.stdout
    # the released FP8 checkpoint (ModelArch.native_dtype) is converted first, named in Chinese too
    assert "权重：FP8（deepseek-ai/DeepSeek-V3 发布版）→ 用 msModelSlim 转换（W8A8/W4A8）或转为 bf16" in r.stdout
    for en in ("call counts are for the shrunk copy", "MoE routing is data-dependent", "traced with torch",
               "adapted list"):
        assert en not in r.stdout
    d = json.loads(subprocess.run([sys.executable, "-m", "suanli.cli.main", "migrate", "check", "--model",
                                   "deepseek-v3", "--torch-npu", "2.1", "--json"], capture_output=True, text=True,
                                  env=env).stdout)
    assert d["warnings"][0].startswith("call counts are for the shrunk copy")
    assert d["warnings"][1] == "MoE routing is data-dependent: traced a shrunk copy (same operator set) on the CPU"
