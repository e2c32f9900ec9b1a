"""Buyer review 2026-12-02 (G1): a library the catalog has no Ascend source for (a config's quant_method aqlm) gave
the clean verdict npu-native, an effort saying "this trace found no operator or library missing" and a warning
ending in an empty source bracket "[-]"; `--uses triton` (apex, xformers, liger-kernel) was refused, so a team with
custom Triton/CUDA ops could not declare them. Now the verdict is needs-check, the effort says the catalog cannot
tell, no empty bracket, and the four libraries are catalog rows with cited statuses. en and zh."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model as lookup_model
from suanli.i18n import Message, render
from suanli.migrate.coverage import AdaptedList, OpTrace, cann_stack, classify, load_op_list
from suanli.migrate.libraries import from_config, resolve_uses
from suanli.plan.search import migration_weeks

NPU = load_op_list("2.13")
AQLM = {"model_type": "qwen2", "quantization_config": {"quant_method": "aqlm", "num_codebooks": 1}}


def _trace() -> OpTrace:
    return OpTrace(model="my/aqlm", task="inference", device="meta", torch_version="2.13.0",
                   ops={"mm": 4, "add.Tensor": 2})


def _listed(listed: bool) -> list[AdaptedList]:
    return [AdaptedList(stack="cann", name="vLLM-Ascend supported models", use="inference", listed=listed)]


def _zh(m: dict | None) -> str:
    assert m is not None
    return render(Message.from_json(m), "zh")


@pytest.mark.parametrize("listed", [True, False])
def test_an_unknown_library_is_never_a_clean_verdict(listed: bool) -> None:
    rep = classify(_trace(), NPU, adapted_lists=_listed(listed), stack=cann_stack(packaged_catalog()),
                   libraries=from_config(AQLM))
    assert [(u.id, u.status) for u in rep.libraries] == [("aqlm", "unknown")]
    assert rep.verdict == "needs-check"
    assert "the model uses aqlm, which the catalog has no Ascend source for" in rep.verdict_text
    assert "型号库中没有它在昇腾上的来源" in _zh(rep.verdict_text_i18n)
    assert "no operator or library missing" not in rep.migration_basis
    assert "没有发现缺失的算子或库" not in _zh(rep.migration_basis_i18n)
    assert "aqlm" in rep.migration_basis and "no Ascend source for" in rep.migration_basis
    # listed: the adapted range, said to assume the library runs; unlisted: the off-list range, said not known
    assert rep.migration_weeks == ((1.0, 2.0) if listed else (2.0, 4.0))
    assert ("assuming aqlm runs on torch_npu" in rep.migration_basis) is listed
    (warn,) = [w for w in rep.warnings if w.startswith("aqlm ")]
    assert "[" not in warn and "not in the catalog" in warn  # no empty source bracket "[-]"


def test_a_worse_trace_keeps_its_verdict_and_says_the_library_too() -> None:
    rep = classify(OpTrace(model="m", task="inference", device="meta", ops={"no_such_op_xyz": 1}), NPU,
                   adapted_lists=_listed(True), stack=cann_stack(packaged_catalog()), libraries=from_config(AQLM))
    assert rep.verdict == "cpu-fallback" and "no Ascend source for" in rep.verdict_text


def test_plan_and_migrate_cost_say_the_unknown_library_too() -> None:
    cat = packaged_catalog()
    lo, hi, msg = migration_weeks(cat, cann_stack(cat), lookup_model(cat, "qwen2.5-7b"), from_config(AQLM),
                                  task="inference")
    assert (lo, hi) == (1, 2)
    assert "assuming aqlm runs on torch_npu" in render(msg) and "假设 aqlm 能在 torch_npu 上运行" in render(msg, "zh")


@pytest.mark.parametrize(("name", "status"), [("triton", "replace"), ("apex", "replace"), ("xformers", "replace"),
                                              ("liger_kernel", "npu")])
def test_code_level_kernel_libraries_are_catalog_rows_with_sources(name: str, status: str) -> None:
    (u,) = resolve_uses([name])
    assert u.status == status and u.sources and u.message and u.message_zh
    assert u.blocks is (status == "replace")


def test_triton_source_is_triton_ascend() -> None:
    (u,) = resolve_uses(["triton"])
    assert u.replacement == "Triton-Ascend (kernels adapted)"
    assert "https://gitcode.com/Ascend/triton-ascend/blob/main/docs/en/release_note.md" in u.sources


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_aqlm_config_is_needs_check(lang: str, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cfg = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128,
           "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 256,
           "max_position_embeddings": 512, "torch_dtype": "bfloat16", **{"quantization_config": AQLM[
               "quantization_config"]}}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    code, out, _ = run_cli(["--lang", lang, "migrate", "check", "--model", str(path), "--uses", "triton"],
                           monkeypatch, capsys, tmp_path)
    assert code == 0, out
    text = " ".join(out.split())
    # triton has no NPU build (Triton-Ascend replaces it): needs-port; aqlm's unknown status is still said
    assert ("verdict: needs-port" in text) if lang == "en" else ("结论：需要移植" in text)
    assert "[-]" not in text
    code, out, _ = run_cli(["migrate", "check", "--model", str(path), "--json"], monkeypatch, capsys, tmp_path)
    assert code == 0
    d = json.loads(out)
    assert d["verdict"] == "needs-check" and d["libraries"][0]["status"] == "unknown"
