"""Training starts from the base checkpoint of an -Instruct preset (buyer review 2026-12-01: `plan --model qwen2.5-7b
--task pretrain` named Qwen/Qwen2.5-7B-Instruct); serving keeps the tuned one."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.catalog.schema import ModelArch


@pytest.mark.parametrize(("name", "task", "want"), [
    ("qwen2.5-7b", "pretrain", "Qwen/Qwen2.5-7B"),
    ("qwen2.5-7b", "qlora", "Qwen/Qwen2.5-7B"),
    ("qwen2.5-72b", "full", "Qwen/Qwen2.5-72B"),
    ("Qwen/Qwen2.5-72B", "lora", "Qwen/Qwen2.5-72B"),
    ("qwen2-7b", "lora", "Qwen/Qwen2-7B"),
    ("chatglm3-6b", "lora", "THUDM/chatglm3-6b-base"),
    ("qwen2.5-7b", "inference", "Qwen/Qwen2.5-7B-Instruct"),
    ("qwen2.5-7b-instruct", "lora", "Qwen/Qwen2.5-7B-Instruct"),  # asked for the tuned one by name
    ("glm-4-9b-chat", "lora", "THUDM/glm-4-9b-chat"),
    ("glm-4-9b", "lora", "THUDM/glm-4-9b"),
    ("llama-3.3-70b", "pretrain", "meta-llama/Llama-3.3-70B-Instruct"),  # Meta published no 3.3 base
    ("qwen3-8b", "pretrain", "Qwen/Qwen3-8B-Base"),  # Qwen3's post-trained id has its -Base, as Qwen2.5's -Instruct
    ("qwen2.5-72b", "qlora", "Qwen/Qwen2.5-72B"),
    ("qwen2.5-72b", "inference", "Qwen/Qwen2.5-72B-Instruct"),
    ("qwen2.5-coder-32b", "lora", "Qwen/Qwen2.5-Coder-32B"),
    ("qwen1.5-7b", "full", "Qwen/Qwen1.5-7B"),
    ("glm-4-9b", "inference", "THUDM/glm-4-9b-chat"),
])
def test_the_checkpoint_a_task_downloads(name: str, task: str, want: str) -> None:
    m = lookup.model(packaged_catalog(), name)
    assert lookup.checkpoint_id(m, task, name) == want


def test_every_base_id_is_one_the_catalog_already_names() -> None:
    ms = [m for m in packaged_catalog().models if m.base_id is not None]
    assert len(ms) >= 20
    assert all(m.base_id in m.aliases and m.base_id != m.id for m in ms)
    m = ms[0]
    with pytest.raises(ValueError, match="not among the aliases"):
        ModelArch.model_validate({**m.model_dump(), "base_id": "Qwen/Qwen9-7B"})


def test_every_base_id_cites_the_base_model_card() -> None:
    """A base checkpoint named is one cited: `base_source` is a source whose url is a Hugging Face page; the Qwen2.5
    ones name where the base config.json's dimensions were checked (litgpt builds base and -Instruct from one config)."""
    cat = packaged_catalog()
    ms = [m for m in cat.models if m.base_id is not None]
    for m in ms:
        src = cat.sources[m.base_source or ""]
        assert src.url is not None and src.url.startswith("https://huggingface.co/"), m.id
    qwen25 = [m for m in ms if m.id.startswith("Qwen/Qwen2.5-")]
    assert len(qwen25) == 9 and {m.base_source for m in qwen25} == {"hf-card-qwen2.5-base"}
    assert "litgpt" in cat.sources["hf-card-qwen2.5-base"].title
    with pytest.raises(ValueError, match="go together"):
        ModelArch.model_validate({**ms[0].model_dump(), "base_source": None})
    plain = next(m for m in cat.models if m.base_id is None)
    with pytest.raises(ValueError, match="go together"):
        ModelArch.model_validate({**plain.model_dump(), "base_source": "hf-card-qwen2.5-base"})


def test_plan_names_the_base_checkpoint_for_pretraining() -> None:
    from suanli.plan.request import make_request
    from suanli.plan.search import plan

    cat = packaged_catalog()
    m = lookup.model(cat, "qwen2.5-7b")
    r = plan(cat, m, make_request(model="qwen2.5-7b", task="pretrain", tokens=1e9, gpus=8))
    assert r.model_id == "Qwen/Qwen2.5-7B"


# instruct task (2026-12-01): a preset whose id is the base checkpoint serves its tuned one (`instruct_id`):
# `estimate --model llama-3.1-8b-instruct --task inference` showed meta-llama/Llama-3.1-8B
@pytest.mark.parametrize(("name", "want"), [
    ("llama-3.1-8b", "meta-llama/Llama-3.1-8B-Instruct"),
    ("llama-3.1-8b-instruct", "meta-llama/Llama-3.1-8B-Instruct"),
    ("llama-3.1-405b", "meta-llama/Llama-3.1-405B-Instruct"),
    ("llama-3-70b", "meta-llama/Meta-Llama-3-70B-Instruct"),
    ("llama-3.2-1b", "meta-llama/Llama-3.2-1B-Instruct"),
    ("llama-2-13b", "meta-llama/Llama-2-13b-chat-hf"),
    ("mistral-7b", "mistralai/Mistral-7B-Instruct-v0.1"),
    ("mixtral-8x7b", "mistralai/Mixtral-8x7B-Instruct-v0.1"),
    ("mistral-nemo", "mistralai/Mistral-Nemo-Instruct-2407"),
    ("yi-34b", "01-ai/Yi-34B-Chat"),
    ("yi-1.5-9b", "01-ai/Yi-1.5-9B-Chat"),
    ("internlm2.5-7b", "internlm/internlm2_5-7b-chat"),
    ("baichuan2-13b", "baichuan-inc/Baichuan2-13B-Chat"),
    ("gemma-2-9b", "google/gemma-2-9b-it"),
    ("qwen-72b", "Qwen/Qwen-72B-Chat"),
    ("qwen3-8b", "Qwen/Qwen3-8B"),  # the post-trained (hybrid thinking) checkpoint is the one served
    ("qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B"),
    ("minicpm-2b", "openbmb/MiniCPM-2B-sft-bf16"),  # neither field: the preset's own id
])
def test_serving_names_the_instruct_checkpoint(name: str, want: str) -> None:
    m = lookup.model(packaged_catalog(), name)
    assert lookup.checkpoint_id(m, "inference", name) == want


@pytest.mark.parametrize(("name", "task", "want"), [
    ("llama-3.1-8b", "lora", "meta-llama/Llama-3.1-8B"),
    ("llama-3.1-70b", "full", "meta-llama/Llama-3.1-70B"),
    ("baichuan2-7b", "qlora", "baichuan-inc/Baichuan2-7B-Base"),
    ("gemma-7b", "pretrain", "google/gemma-7b"),
    ("qwen3-0.6b", "full", "Qwen/Qwen3-0.6B-Base"),
    ("qwen3-14b", "lora", "Qwen/Qwen3-14B-Base"),
    ("qwen3-30b-a3b", "lora", "Qwen/Qwen3-30B-A3B-Base"),
    ("qwen3-32b", "lora", "Qwen/Qwen3-32B"),  # no Qwen3-32B-Base is published
    ("qwen3-235b-a22b", "full", "Qwen/Qwen3-235B-A22B"),
    # a tuned name asked for is the tuned checkpoint for every task
    ("llama-3.1-8b-instruct", "lora", "meta-llama/Llama-3.1-8B-Instruct"),
    ("llama-2-7b-chat", "full", "meta-llama/Llama-2-7b-chat-hf"),
    ("gemma-2b-it", "qlora", "google/gemma-2b-it"),
    ("internlm2.5-7b-chat", "lora", "internlm/internlm2_5-7b-chat"),
])
def test_training_names_the_base_checkpoint(name: str, task: str, want: str) -> None:
    m = lookup.model(packaged_catalog(), name)
    assert lookup.checkpoint_id(m, task, name) == want


@pytest.mark.parametrize(("typed", "task", "want"), [
    ("meta-llama/Llama-3.1-8B", "inference", "meta-llama/Llama-3.1-8B"),
    ("meta-llama/Meta-Llama-3.1-8B", "lora", "meta-llama/Meta-Llama-3.1-8B"),
    ("meta-llama/Llama-3.1-8B-Instruct", "full", "meta-llama/Llama-3.1-8B-Instruct"),
    ("Qwen/Qwen2.5-7B", "inference", "Qwen/Qwen2.5-7B"),
    ("Qwen/Qwen2.5-7B-Instruct", "lora", "Qwen/Qwen2.5-7B-Instruct"),
    ("qwen/qwen3-8b", "lora", "Qwen/Qwen3-8B"),  # spelled as the catalog spells it
    ("Qwen/Qwen3-8B-Base", "inference", "Qwen/Qwen3-8B-Base"),
    ("THUDM/glm-4-9b", "inference", "THUDM/glm-4-9b"),
    ("google/gemma-2-9b", "inference", "google/gemma-2-9b"),
])
def test_a_full_hugging_face_id_typed_is_honoured(typed: str, task: str, want: str) -> None:
    m = lookup.model(packaged_catalog(), typed)
    assert lookup.checkpoint_id(m, task, typed) == want


def test_an_organisation_the_preset_does_not_name_is_not_a_typed_id() -> None:
    m = lookup.model(packaged_catalog(), "someone/llama-3.1-8b")  # organisation optional in look-up
    assert lookup.checkpoint_id(m, "inference", "someone/llama-3.1-8b") == "meta-llama/Llama-3.1-8B-Instruct"
    assert lookup.checkpoint_id(m, "lora", "someone/llama-3.1-8b") == "meta-llama/Llama-3.1-8B"


def test_every_instruct_id_is_an_alias_cited_by_its_model_card() -> None:
    """A tuned checkpoint named is one cited (as base_source, 91e267f): `instruct_source` is a Hugging Face page whose
    note says where the tuned config.json's dimensions were checked, or that they were not."""
    cat = packaged_catalog()
    ms = [m for m in cat.models if m.instruct_id is not None]
    assert len(ms) == 29  # every base-id preset with a published tuned checkpoint (MiniCPM: both tuned)
    for m in ms:
        assert m.instruct_id in m.aliases and m.instruct_id != m.id and m.base_id is None, m.id
        src = cat.sources[m.instruct_source or ""]
        assert src.url is not None and src.url.startswith("https://huggingface.co/"), m.id
        assert src.note is not None and ("litgpt" in src.note or "not checked" in src.note), m.id
    checked = {m.id for m in ms if "litgpt" in (cat.sources[m.instruct_source or ""].note or "")}
    assert {"meta-llama/Llama-3.1-8B", "meta-llama/Llama-2-7b-hf", "mistralai/Mixtral-8x7B-v0.1",
            "google/gemma-2-9b"} <= checked
    m = ms[0]
    with pytest.raises(ValueError, match="not among the aliases"):
        ModelArch.model_validate({**m.model_dump(), "instruct_id": "meta-llama/Llama-9-8B-Instruct"})
    with pytest.raises(ValueError, match="go together"):
        ModelArch.model_validate({**m.model_dump(), "instruct_source": None})
    tuned = next(m for m in cat.models if m.base_id is not None)
    with pytest.raises(ValueError, match="both a base_id and an instruct_id"):
        ModelArch.model_validate({**tuned.model_dump(), "instruct_id": tuned.base_id, "instruct_source": "hf-card-gemma-it"})


def test_qwen3_base_checkpoints_cite_the_base_cards() -> None:
    cat = packaged_catalog()
    q3 = {m.id: m for m in cat.models if m.id.startswith("Qwen/Qwen3-")}
    with_base = {i for i, m in q3.items() if m.base_id is not None}
    assert with_base == {f"Qwen/Qwen3-{s}" for s in ("0.6B", "1.7B", "4B", "8B", "14B", "30B-A3B")}
    assert {q3[i].base_source for i in with_base} == {"hf-card-qwen3-base"}
    assert all(q3[i].base_id == f"{i}-Base" for i in with_base)


def test_plan_json_serves_the_instruct_and_trains_the_base() -> None:
    """`suanli plan --json` (serving and LoRA) names the checkpoint each job downloads."""
    import json

    from typer.testing import CliRunner

    from suanli.cli.main import app

    def planned(*args: str) -> str:
        out = CliRunner().invoke(app, ["--lang", "en", "plan", "--model", "llama-3.1-8b", *args, "--top", "1",
                                       "--json"], env={"COLUMNS": "200"})
        assert out.exit_code == 0, out.output
        return str(json.loads(out.output)["model"])

    assert planned("--task", "inference", "--requests-per-s", "2") == "meta-llama/Llama-3.1-8B-Instruct"
    assert planned("--task", "lora", "--tokens", "1e8") == "meta-llama/Llama-3.1-8B"
