"""Buyer review 2026-12-01 (migcheck): `migrate check` sees the CUDA-era libraries a config names (quant_method,
attn_implementation) or `--uses` gives, prints each one's Ascend caveat with its sources and lowers the verdict when
one has no NPU build; an unlisted model's npu-native verdict and its 2–4 weeks say one thing; a stack with no
adapted list (Hygon DTK) says so and labels its range assumed, with seed-003's statement. en and zh."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model as lookup_model
from suanli.catalog.lookup import stack as lookup_stack
from suanli.errors import InputError
from suanli.i18n import Message, render
from suanli.migrate.coverage import AdaptedList, OpTrace, cann_stack, classify, load_caveats, load_op_list, summarize
from suanli.migrate.libraries import MAX_USES, from_config, load_libraries, merge, resolve_uses
from suanli.plan.search import migration_weeks

NPU = load_op_list("2.13")
BUYER_CFG = {"model_type": "qwen2", "attn_implementation": "flash_attention_2",
             "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}}


def _trace(task: str = "training") -> OpTrace:
    return OpTrace(model="my/ft", task=task, device="meta", torch_version="2.13.0", ops={"mm": 4, "add.Tensor": 2})


def _listed(listed: bool) -> list[AdaptedList]:
    return [AdaptedList(stack="cann", name="MindSpeed-LLM supported models", use="training", listed=listed)]


def _zh(m: dict | None) -> str:
    assert m is not None
    return render(Message.from_json(m), "zh")


def test_buyer_config_names_bitsandbytes_fp4_and_flash_attn() -> None:
    uses = {u.id: u for u in from_config(BUYER_CFG)}
    assert set(uses) == {"bitsandbytes-fp4", "flash-attn"}  # transformers' default bnb_4bit_quant_type is fp4
    assert uses["flash-attn"].status == "replace" and uses["flash-attn"].replacement == "torch_npu.npu_fusion_attention"
    assert "https://github.com/huggingface/transformers/pull/36696" in uses["flash-attn"].sources
    assert "Ascend/op-plugin:docs/context/torch_npu-npu_fusion_attention.md" in uses["flash-attn"].sources
    assert uses["bitsandbytes-fp4"].blocks
    # the private spelling transformers writes, once
    again = from_config({**BUYER_CFG, "_attn_implementation": "flash_attention_2"})
    assert [u.id for u in again].count("flash-attn") == 1


@pytest.mark.parametrize(("q", "lib", "status"), [
    ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"}, "bitsandbytes-nf4", "npu"),
    ({"quant_method": "bitsandbytes", "load_in_8bit": True}, "bitsandbytes-8bit", "none"),
    ({"quant_method": "gptq", "bits": 4}, "gptq", "replace"),
    ({"quant_method": "awq", "bits": 4}, "awq", "replace"),
    ({"quant_method": "fp8"}, "fp8", "convert"),  # FP8-stored weights: converted once (msModelSlim), not a port
    ({"quant_method": "hqq"}, "hqq", "unknown"),
])
def test_quant_methods(q: dict, lib: str, status: str) -> None:
    (u,) = from_config({"model_type": "llama", "quantization_config": q})
    assert (u.id, u.status) == (lib, status)
    assert u.message and u.message_zh
    assert u.sources or status == "unknown"


def test_torch_own_attention_is_not_a_library() -> None:
    assert from_config({"model_type": "llama", "attn_implementation": "sdpa"}) == []
    assert from_config({"model_type": "llama", "_attn_implementation": "eager"}) == []


def test_every_library_cites_a_listed_source() -> None:
    libs = load_libraries()
    ids = {s.id for s in libs.sources}
    for lib in libs.libraries:
        assert lib.sources and set(lib.sources) <= ids, lib.id
    assert all(s.url for s in libs.sources)


def test_uses_is_validated_bounded_and_suggests() -> None:
    assert [u.id for u in resolve_uses(["flash_attn", "BNB", "flash-attn"])] == ["flash-attn", "bitsandbytes"]
    with pytest.raises(InputError) as e:
        resolve_uses(["flsh-attn"])
    assert "did you mean flash-attn?" in str(e.value)
    with pytest.raises(InputError):
        resolve_uses([f"x{i}" for i in range(MAX_USES + 1)])
    # a --uses name the config already names is not repeated (bitsandbytes-* are one library)
    merged = merge(from_config(BUYER_CFG), resolve_uses(["bitsandbytes", "flash-attn", "deepspeed"]))
    assert [u.id for u in merged] == ["bitsandbytes-fp4", "flash-attn", "deepspeed"]


def test_a_library_with_no_npu_build_lowers_the_verdict_and_the_effort() -> None:
    stack = cann_stack(packaged_catalog())
    rep = classify(_trace(), NPU, caveats=load_caveats(), adapted_lists=_listed(True), stack=stack,
                   libraries=from_config(BUYER_CFG))
    assert rep.verdict == "needs-port"
    assert "flash-attn → torch_npu.npu_fusion_attention" in rep.verdict_text
    assert "every traced operator has an NPU kernel" in rep.verdict_text  # what the trace found, still said
    assert rep.migration_weeks == (2.0, 4.0)
    assert "uses libraries with no NPU build (bitsandbytes-fp4, flash-attn)" in rep.migration_basis
    assert "没有 NPU 版本的库" in _zh(rep.verdict_text_i18n)
    assert "没有 NPU 版本的库" in _zh(rep.migration_basis_i18n)
    lib_warn = [w for w in rep.warnings if w.startswith("flash-attn (attn_implementation flash_attention_2)")]
    assert lib_warn and "npu_fusion_attention" in lib_warn[0] and "pull/36696" in lib_warn[0]
    zh = [_zh(m) for m in rep.warnings_i18n]
    assert any(w.startswith("flash-attn（attn_implementation flash_attention_2）：没有 NPU 版本") for w in zh)
    d = summarize(rep)
    assert [x["id"] for x in d["libraries"]] == ["bitsandbytes-fp4", "flash-attn"]
    assert "verdict_text_i18n" not in d


def test_a_library_that_runs_keeps_the_verdict_and_warns() -> None:
    cfg = {"model_type": "qwen2", "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True,
                                                          "bnb_4bit_quant_type": "nf4"}}
    rep = classify(_trace(), NPU, adapted_lists=_listed(True), stack=cann_stack(packaged_catalog()),
                   libraries=from_config(cfg))
    assert rep.verdict == "npu-native" and rep.migration_weeks == (1.0, 2.0)
    assert any("plain PyTorch" in w and "pull/1422" in w for w in rep.warnings)


def test_unlisted_npu_native_says_the_weeks_are_for_being_unlisted() -> None:
    rep = classify(_trace(), NPU, adapted_lists=_listed(False), stack=cann_stack(packaged_catalog()))
    assert rep.verdict == "npu-native" and rep.migration_weeks == (2.0, 4.0)
    assert "not on the vendor's adapted lists" in rep.verdict_text
    assert "not for operators to adapt" in rep.migration_basis
    assert "模型不在厂商适配清单上" in _zh(rep.verdict_text_i18n)
    assert "而不是因为要适配算子" in _zh(rep.migration_basis_i18n)
    # with a CPU fallback the range is for operators again: no such wording
    rep2 = classify(OpTrace(model="m", task="training", device="meta", ops={"no_such_op_xyz": 1}), NPU,
                    adapted_lists=_listed(False), stack=cann_stack(packaged_catalog()))
    assert rep2.verdict == "cpu-fallback" and "not for operators to adapt" not in rep2.migration_basis


def test_stack_without_adapted_list_says_so_and_labels_the_range_assumed() -> None:
    cat = packaged_catalog()
    m = lookup_model(cat, "qwen2.5-7b")
    lo, hi, msg = migration_weeks(cat, lookup_stack(cat, "dtk"), m, task="full")
    assert (lo, hi) == (2, 4) and msg.id == "migration.no_list_assumed"
    en, zh = render(msg), render(msg, "zh")
    assert "Hygon DTK (DCU Toolkit) publishes no adapted-model list; the range is assumed" in en
    assert "类CUDA兼容生态，迁移成本较低" in en and "operators to adapt" not in en
    assert "海光 DTK（DCU 工具包）未公布适配模型清单；该区间为假设值" in zh and "类CUDA兼容生态" in zh
    # CANN keeps its list-based wording
    _, _, cann_msg = migration_weeks(cat, lookup_stack(cat, "cann"), lookup_model(cat, "mistral-nemo"), task="full")
    assert cann_msg.id == "migration.not_adapted"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_migrate_cost_k100_header(lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                  tmp_path: Path) -> None:
    code, out, _ = run_cli(["--lang", lang, "migrate", "cost", "--model", "qwen2.5-7b", "--from-gpu", "a100-80g",
                            "--to-gpu", "k100", "--saving", "5000"], monkeypatch, capsys, tmp_path)
    assert code == 0
    if lang == "en":
        assert "publishes no adapted-model list; the range is assumed" in out and "operators to adapt" not in out
    else:
        assert "未公布适配模型清单；该区间为假设值" in out and "需要适配算子" not in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_uses_typo_is_refused_before_tracing(lang: str, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(["--lang", lang, "migrate", "check", "--model", "qwen2.5-7b", "--uses", "flsh-attn"],
                             monkeypatch, capsys, tmp_path)
    assert code == 2
    text = out + err
    assert ("did you mean flash-attn?" in text) if lang == "en" else ("是否想用 flash-attn？" in text)
