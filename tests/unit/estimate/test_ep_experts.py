"""Code review: expert parallelism was not checked against the number of experts (`suanli estimate --model
mixtral-8x7b --gpu h100 --gpus 16 --ep 16` gave 8.85 GB of weights, below the ep 8 floor: half an expert a rank).
An ep that does not divide num_experts is an InputError naming `ep` and the sizes that do; the planner searches
only those. And an MoE config with no experts, no routed expert per token or more per token than experts is refused
naming the config.json field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.catalog.schema import MoEConfig
from suanli.errors import InputError
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import Workload


@pytest.mark.parametrize("ep", [3, 16])
def test_ep_not_dividing_the_experts_is_refused(ep: int) -> None:
    cat = packaged_catalog()
    m, acc = model(cat, "mixtral-8x7b"), accelerator(cat, "h100")
    with pytest.raises(InputError) as e:
        estimate(cat, m, acc, Workload(task="inference", gpus=48, ep=ep))
    assert e.value.field == "ep" and "1, 2, 4, 8" in str(e.value)
    ok = estimate(cat, m, acc, Workload(task="inference", gpus=16, ep=8))  # a divisor still runs
    assert ok.memory is not None


def test_the_planner_searches_only_dividing_ep_sizes() -> None:
    from suanli.plan.request import make_request
    from suanli.plan.search import _layouts

    cat = packaged_catalog()
    m = model(cat, "mixtral-8x7b")
    assert m.moe is not None
    six = m.model_copy(update={"moe": m.moe.model_copy(update={"num_experts": 6})})
    fw = next(f for f in cat.frameworks if f.id == "megatron")
    req = make_request(model="mixtral-8x7b", task="full", tokens=1e8, max_gpus=64)
    eps = {int(x) for x in _layouts(req, fw, True, m.num_layers or 0, six)["ep"]}
    assert eps and eps <= {1, 2} and 2 in eps  # 4 and 8 do not divide 6 experts
    assert 8 in {int(x) for x in _layouts(req, fw, True, m.num_layers or 0, m)["ep"]}


@pytest.mark.parametrize(("fields", "named"), [
    ({"num_experts": 0, "top_k": 1}, "num_local_experts"),
    ({"num_experts": 8, "top_k": 0}, "num_experts_per_tok"),
    ({"num_experts": 8, "top_k": 9}, "num_experts_per_tok"),
])
def test_moe_config_bounds(fields: dict[str, int], named: str) -> None:
    with pytest.raises(ValidationError) as e:
        MoEConfig(expert_intermediate_size=14336, **fields)
    assert named in str(e.value)
    MoEConfig(num_experts=8, top_k=8, expert_intermediate_size=14336)  # every expert per token: allowed


def test_hf_config_with_too_many_experts_per_token_names_the_field() -> None:
    from suanli.catalog.hf_config import from_hf_config

    cfg = {"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8,
           "num_experts_per_tok": 9, "max_position_embeddings": 32768}
    with pytest.raises((InputError, ValidationError)) as e:
        from_hf_config(cfg, "bad-moe")
    assert "num_experts_per_tok" in str(e.value)
