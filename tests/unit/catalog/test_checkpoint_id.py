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
    ("qwen3-8b", "pretrain", "Qwen/Qwen3-8B"),
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
    assert len(ms) >= 14
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
