"""Buyer review C (2026-12-02): `suanli plan --model qwen2.5-7b --task lora --tokens 5e7 --ep 2` searched nothing and
answered "nothing fits in memory on one node … use --task qlora" — advice about memory for a request whose only fault
is expert parallelism pinned on a dense model. Serving already refused it in one line (estimate's rule); training
now does too, naming the checkpoint trained."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_run import run_cli  # tests/cli_run.py: the one in-process CLI runner
from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.errors import InputError
from suanli.estimate.estimate import check_ep_has_experts
from suanli.plan.request import make_request
from suanli.plan.search import plan


@pytest.mark.parametrize("task", ["lora", "full", "qlora"])
def test_a_training_ep_on_a_dense_model_is_one_line(cat: Catalog, task: str) -> None:
    req = make_request(model="qwen2.5-7b", task=task, tokens=5e7, ep=2)
    with pytest.raises(InputError) as e:
        plan(cat, lookup.model(cat, "qwen2.5-7b"), req)
    assert e.value.field == "ep"
    assert str(e.value) == "ep: expert parallelism (2) needs an MoE model; Qwen/Qwen2.5-7B is dense"


def test_the_cli_names_the_flag_in_both_languages(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ("plan", "--model", "qwen2.5-7b", "--task", "lora", "--tokens", "5e7", "--ep", "2")
    code, out, err = run_cli(("--lang", "en", *args), monkeypatch, capsys, tmp_path)
    assert code == 2 and out == ""
    assert "--ep: expert parallelism (2) needs an MoE model; Qwen/Qwen2.5-7B is dense" in err
    assert "qlora" not in err
    code, _, err = run_cli(("--lang", "zh", *args), monkeypatch, capsys, tmp_path)
    assert code == 2 and "--ep：专家并行（2）需要 MoE 模型；Qwen/Qwen2.5-7B 是稠密模型" in err


def test_an_moe_model_still_plans_with_a_training_ep(cat: Catalog) -> None:
    req = make_request(model="mixtral-8x7b", task="lora", tokens=5e7, ep=2, devices=("a100-80g",))
    r = plan(cat, lookup.model(cat, "mixtral-8x7b"), req)
    assert r.plans and all(p.ep == 2 for p in r.plans)


# --- task B (2026-12-02): one rule, one place: the planner calls estimate's check_ep_has_experts (its copy deleted)


@pytest.mark.parametrize(("task", "named"), [("lora", "Qwen/Qwen2.5-7B"), ("inference", "Qwen/Qwen2.5-7B-Instruct")])
def test_the_planner_refuses_with_estimates_rule(cat: Catalog, task: str, named: str) -> None:
    """The same InputError as estimate's check, naming the checkpoint the task loads (base to train, tuned to serve)."""
    m = lookup.model(cat, "qwen2.5-7b")
    req = (make_request(model="qwen2.5-7b", task=task, tokens=5e7, ep=2) if task != "inference" else
           make_request(model="qwen2.5-7b", task=task, requests_per_s=1, input=512, output=128, ep=2))
    with pytest.raises(InputError) as planned:
        plan(cat, m, req)
    with pytest.raises(InputError) as estimated:
        check_ep_has_experts(m, 2, named)
    assert str(planned.value) == str(estimated.value) and planned.value.field == estimated.value.field == "ep"
    assert named + " is dense" in str(planned.value)


def test_estimates_rule_names_the_preset_by_default(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    with pytest.raises(InputError) as e:
        check_ep_has_experts(m, 2)
    assert str(e.value) == f"ep: expert parallelism (2) needs an MoE model; {m.id} is dense"
    check_ep_has_experts(m, 1)  # ep 1 is no expert parallelism: nothing to refuse
    check_ep_has_experts(lookup.model(cat, "mixtral-8x7b"), 2)  # an MoE model splits its experts
