"""Issue 12: transformers before 4.45 ran lm_head over every prompt position and upcast the result with
`logits.float()` (16-bit output and fp32 copy alive together); from 4.45 generate() passes num_logits_to_keep = 1
(huggingface/transformers#31292; engines.yaml hf `last_logits_only_from`, source transformers-num-logits-to-keep).
A run states its release (Workload.engine_version); without one the current release is assumed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pydantic import ValidationError

from suanli.catalog import lookup
from suanli.catalog.schema import InferenceEngine
from suanli.estimate import memory
from suanli.estimate.workload import make_workload

GiB = 2**30


def _w(version: str | None, precision: str = "bf16", engine: str = "hf", inp: int = 6144):
    return make_workload(task="inference", precision=precision, batch=1, input=inp, output=2048, engine=engine,
                         engine_version=version)


def test_hf_row_gates_the_prompt_logits_on_a_sourced_release(cat) -> None:  # type: ignore[no-untyped-def]
    row = next(e for e in cat.engines if e.id == "hf")
    assert row.last_logits_only_from == "4.45.0"
    assert row.last_logits_only_source == "transformers-num-logits-to-keep"
    assert "transformers-num-logits-to-keep" in cat.sources
    # no other engine has the gate: every release of theirs computes the last position only
    assert all(e.last_logits_only_from is None for e in cat.engines if e.id != "hf")


def test_schema_takes_a_release_number_only() -> None:
    row = InferenceEngine(id="x", name="x", source="s", last_logits_only_from="4.45.0", last_logits_only_source="s")
    assert row.last_logits_only_from == "4.45.0"
    assert InferenceEngine(id="x", name="x", source="s").last_logits_only_from is None  # default: no gate
    with pytest.raises(ValidationError):
        InferenceEngine(id="x", name="x", source="s", last_logits_only_from="v4.45")


@pytest.mark.parametrize("version,expected", [("4.38.2", True), ("4.44.2", True), ("4.45.0", False),
                                              ("4.46.1", False), (None, False)])
def test_which_releases_keep_every_prompt_position(cat, version, expected) -> None:  # type: ignore[no-untyped-def]
    assert memory.keeps_prompt_logits(cat, _w(version)) is expected
    assert not memory.keeps_prompt_logits(cat, _w(version, engine="vllm"))


def test_kernel_438_against_445_logits_bytes(cat) -> None:  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen2-7b-instruct")
    v, h, inp = m.vocab_size or 0, m.hidden_size or 0, 6144
    old = memory.inference_memory_terms(m, _w("4.38.2"), False, None, prompt_logits=True)
    new = memory.inference_memory_terms(m, _w("4.45.0"), False, None, prompt_logits=False)
    # bf16 output + its fp32 copy per vocabulary entry and prompt position, and the final norm's output lm_head read
    assert old.prompt_logits_bytes_per_seq == inp * (v * (2 + 4) + h * 2)
    assert new.prompt_logits_bytes_per_seq == 0.0
    assert old.logits_bytes_per_seq == new.logits_bytes_per_seq == v * 4  # the kept last position, fp32
    parts_old = memory.inference_memory(old, 1, 1, 1, 1)
    parts_new = memory.inference_memory(new, 1, 1, 1, 1)
    # the prefill's layer transients are freed when lm_head runs: the item is what the logits add beyond them
    assert parts_old["logits"] == pytest.approx(old.prompt_logits_bytes_per_seq - parts_old["activations"])
    assert parts_new["logits"] == v * 4
    assert parts_old["activations"] == parts_new["activations"]
    # fp32 weights: .float() is a no-op, 4 bytes
    fp32 = memory.inference_memory_terms(m, _w("4.38.2", precision="fp32"), False, None, prompt_logits=True)
    assert fp32.prompt_logits_bytes_per_seq == inp * (v * 4 + h * 4)


def test_estimate_reads_the_release_and_says_so(cat) -> None:  # type: ignore[no-untyped-def]
    m, acc = lookup.model(cat, "qwen2-7b-instruct"), lookup.accelerator(cat, "a100-80g")
    old = memory.estimate_memory(m, _w("4.38.2"), acc, None, cat)
    cur = memory.estimate_memory(m, _w(None), acc, None, cat)
    assert memory.estimate_memory(m, _w("4.45.0"), acc, None, cat).breakdown_bytes == cur.breakdown_bytes
    assert cur.breakdown_bytes["logits"] == (m.vocab_size or 0) * 4
    assert old.breakdown_bytes["logits"] > 3 * GiB  # 6144 x 152064 x 6 bytes = 5.2 GiB less the transients
    assert any("4.38.2" in n and "4.45.0" in n for n in old.notes)
    assert not any("4.45.0" in n for n in cur.notes)
    # training is not generate(): the release changes nothing there
    train = make_workload(task="lora", precision="bf16", batch=1, seq=2048, engine="hf", engine_version="4.38.2")
    assert not memory.keeps_prompt_logits(cat, train)


def test_cli_engine_version_shows_the_whole_prompt_logits() -> None:
    args = [sys.executable, "-m", "suanli.cli.main", "estimate", "--model", "qwen2-7b-instruct", "--gpu", "a100-80g",
            "--engine", "hf", "--input", "6144", "--output", "2048", "--json"]
    env = {**os.environ, "COLUMNS": "220"}
    old = json.loads(subprocess.run([*args, "--engine-version", "4.38.2"], capture_output=True, text=True, env=env,
                                    check=True).stdout)
    cur = json.loads(subprocess.run(args, capture_output=True, text=True, env=env, check=True).stdout)
    assert old["workload"]["engine_version"] == "4.38.2"
    assert old["memory"]["breakdown_bytes"]["logits"] > 100 * cur["memory"]["breakdown_bytes"]["logits"]
