"""Issue 12: transformers' Qwen2 before 4.45 built a Qwen2RotaryEmbedding in every Qwen2Attention, each with
cos_cached / sin_cached buffers of max_position_embeddings x head_dim in the load dtype; from 4.45
(huggingface/transformers#32617) cos/sin are computed from the positions (engines.yaml hf
`rotary_cache_per_layer_until`, `rotary_cache_per_layer_families`, source transformers-qwen2-rotary-cache).
Only families whose code was read get the term; a workload without a release runs the current one."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from suanli.catalog import lookup
from suanli.catalog.schema import InferenceEngine
from suanli.estimate import arch, memory
from suanli.estimate.workload import make_workload

GiB = 2**30


def _w(version: str | None, precision: str = "bf16", engine: str = "hf", inp: int = 1, task: str = "inference"):
    if task != "inference":
        return make_workload(task=task, precision=precision, batch=1, seq=2048, engine=engine, engine_version=version)
    return make_workload(task="inference", precision=precision, batch=1, input=inp, output=2048, engine=engine,
                         engine_version=version)


def test_hf_row_gates_the_rotary_cache_on_a_sourced_release(cat) -> None:  # type: ignore[no-untyped-def]
    row = next(e for e in cat.engines if e.id == "hf")
    assert row.rotary_cache_per_layer_until == "4.45.0"
    assert row.rotary_cache_per_layer_families == ("qwen2",)
    assert row.rotary_cache_per_layer_source == "transformers-qwen2-rotary-cache"
    assert "transformers-qwen2-rotary-cache" in cat.sources
    assert all(e.rotary_cache_per_layer_until is None and not e.rotary_cache_per_layer_families
               for e in cat.engines if e.id != "hf")


def test_schema_takes_a_release_number_and_families() -> None:
    row = InferenceEngine(id="x", name="x", source="s", rotary_cache_per_layer_until="4.45.0",
                          rotary_cache_per_layer_families=("qwen2",), rotary_cache_per_layer_source="s")
    assert row.rotary_cache_per_layer_until == "4.45.0" and row.rotary_cache_per_layer_families == ("qwen2",)
    default = InferenceEngine(id="x", name="x", source="s")
    assert default.rotary_cache_per_layer_until is None and default.rotary_cache_per_layer_families == ()
    with pytest.raises(ValidationError):
        InferenceEngine(id="x", name="x", source="s", rotary_cache_per_layer_until="v4.45")


@pytest.mark.parametrize("version,expected", [("4.38.2", True), ("4.44.2", True), ("4.45.0", False),
                                              ("4.46.1", False), (None, False)])
def test_which_releases_keep_a_cache_per_layer(cat, version, expected) -> None:  # type: ignore[no-untyped-def]
    qwen2 = lookup.model(cat, "qwen2-7b-instruct")
    assert memory.keeps_rotary_cache(cat, qwen2, _w(version)) is expected
    assert not memory.keeps_rotary_cache(cat, qwen2, _w(version, engine="vllm"))


def test_only_families_whose_code_was_read(cat) -> None:  # type: ignore[no-untyped-def]
    # Qwen 1 is remote code (its own rotary module) though its preset builds as Qwen2ForCausalLM; Llama not read
    for name in ("qwen-7b", "llama-2-7b"):
        assert not memory.keeps_rotary_cache(cat, lookup.model(cat, name), _w("4.38.2"))
    # the Qwen2.5 presets run the same Qwen2 class
    assert memory.keeps_rotary_cache(cat, lookup.model(cat, "qwen2.5-7b-instruct"), _w("4.38.2"))
    # training is not the inference path the term is scored on
    assert not memory.keeps_rotary_cache(cat, lookup.model(cat, "qwen2-7b-instruct"), _w("4.38.2", task="lora"))


def test_kernel_bytes_per_layer(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2-7b-instruct")
    layers, d, positions = m.num_layers or 0, arch.head_dim(m), m.max_context or 0
    old = memory.inference_memory_terms(m, _w("4.38.2"), False, None, rotary_cache=True)
    assert old.rotary_cache_bytes == layers * 2 * positions * d * 2  # cos + sin, bf16: 0.44 GiB for 28 x 128
    assert memory.inference_memory_terms(m, _w("4.45.0"), False, None).rotary_cache_bytes == 0.0
    # fp32 load: 4 bytes; a quantized checkpoint loads in 16-bit
    fp32 = memory.inference_memory_terms(m, _w("4.38.2", precision="fp32"), False, None, rotary_cache=True)
    assert fp32.rotary_cache_bytes == 2 * old.rotary_cache_bytes
    int4 = memory.inference_memory_terms(m, _w("4.38.2", precision="int4"), False, None, rotary_cache=True)
    assert int4.rotary_cache_bytes == old.rotary_cache_bytes
    # a sequence longer than max_position_embeddings re-registers the buffers at its length
    longer = memory.inference_memory_terms(m, _w("4.38.2", inp=positions + 1000), False, None, rotary_cache=True)
    assert longer.rotary_cache_bytes == layers * 2 * (positions + 1000 + 2048) * d * 2
    # every tensor-parallel rank holds its layers' buffers whole; pipeline stages split the layers
    assert memory.inference_memory(old, 4, 1, 1, 1)["rotary_cache"] == old.rotary_cache_bytes
    assert memory.inference_memory(old, 1, 2, 1, 1)["rotary_cache"] == old.rotary_cache_bytes / 2
    assert "rotary_cache" not in memory.inference_memory(memory.inference_memory_terms(m, _w(None), False, None),
                                                         1, 1, 1, 1)


def test_estimate_reads_the_release_and_says_so(cat) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "qwen2-7b-instruct"), lookup.accelerator(cat, "a100-80g")
    old = memory.estimate_memory(m, _w("4.38.2"), acc, None, cat)
    cur = memory.estimate_memory(m, _w(None), acc, None, cat)
    assert "rotary_cache" not in cur.breakdown_bytes
    assert memory.estimate_memory(m, _w("4.45.0"), acc, None, cat).breakdown_bytes == cur.breakdown_bytes
    assert old.breakdown_bytes["rotary_cache"] == pytest.approx(0.4375 * GiB)
    assert any("rotary" in n and "4.38.2" in n and "4.45.0" in n for n in old.notes)
    assert not any("rotary" in n for n in cur.notes)
