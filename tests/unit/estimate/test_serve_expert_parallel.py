"""Buyer review F, finding 1: expert parallelism in serving. `estimate --model deepseek-v3 --gpu 910b2 --gpus 8 --tp 1
--ep 8 --batch 34 --precision int4` gave 221 ms per decode step — every card read two thirds of all 256 routed experts,
as if ep split nothing — against 65.5 ms for tp8 serving the same 272 users. With ep (DeepSeek-V3 technical report §3.4:
attention data-parallel, routed experts expert-parallel) a card reads its own attention/shared weights and, of its
256/8 experts, those the expert group's 8 × 34 tokens touch; its FLOPs stay 34 tokens' worth. And `plan --task serve
--ep 8` answered "no framework in the catalog runs inference": serving's --ep is the engine's capability."""

from __future__ import annotations

import numpy as np
import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import accelerator, model
from suanli.errors import InputError
from suanli.estimate import arch
from suanli.estimate import speed as S
from suanli.estimate.memory import weights_bytes
from suanli.estimate.precision import weight_bytes_per_param
from suanli.estimate.workload import make_workload

f = np.float64


@pytest.fixture(scope="module")
def setup():  # type: ignore[no-untyped-def]
    cat = packaged_catalog()
    m, acc = model(cat, "deepseek-v3"), accelerator(cat, "910b2")
    w = make_workload(task="inference", precision="int4", gpus=8, tp=1, ep=8, batch=34, engine="vllm-ascend")
    t = S.inference_speed_terms(m, w)
    rates, _ = S.inference_rates(cat, acc, w)
    return cat, m, t, rates


def step_ms(t: S.InferenceSpeedTerms, rates: dict[str, float], tp: int, ep: int, b: int) -> float:
    return float(S.inference_step(t, f(tp), f(ep), f(b), rates)["step_s"]) * 1000


def test_ep1_is_the_tp_only_kernel(setup) -> None:  # type: ignore[no-untyped-def]
    """ep = 1 reads exactly what it read before (the golden estimates pin the rest)."""
    _, _, t, rates = setup
    for b in (1.0, 34.0, 272.0):
        assert S.weight_bytes_read(t, b, 1.0) == S.weight_bytes_read(t, b)
        assert S.decode_kernels_s(t, b, rates, 1.0, 1.0, 1.0) == S.decode_kernels_s(t, b, rates, 1.0)


def test_bytes_read_per_rank_first_principles(setup) -> None:  # type: ignore[no-untyped-def]
    """A card of tp1·ep8 at 34 sequences reads its dense weights (attention, shared experts, the dense layers and the
    lm_head) whole, and of its 32 routed experts those the group's 272 tokens' top-8 routings touch: 1 − (1 − 8/256)^272
    of them. The kernel prices every weight at the checkpoint's mean bytes per parameter (the 16-bit embedding and
    lm_head averaged in), so it sits a few per cent off a hand count by parameter class."""
    _, m, t, _ = setup
    routed = arch.routed_expert_params(m) * weight_bytes_per_param("int4")
    dense = weights_bytes(m, "int4") - routed - t.lookup_bytes
    touched = 1 - (1 - 8 / 256) ** 272
    hand = dense + touched * routed / 8
    got = float(S.weight_bytes_read(t, f(34 * 8), f(8)))
    assert got == pytest.approx(hand, rel=0.06)
    # without ep a card would read two thirds of every expert: about 4x more
    assert float(S.weight_bytes_read(t, f(34))) > 3.5 * got


def test_deepseek_tp1_ep8_between_tp8_bounds(setup) -> None:  # type: ignore[no-untyped-def]
    """272 users on 8 cards: tp1·ep8 at 34 per replica is no slower than tp8 holding all 272 (whose MLA cache every
    card replicates, and which all-reduces every layer) and no faster than tp8 serving only 34 (fewer experts
    touched, a smaller cache); the review's 221 ms was 3-4x both."""
    _, _, t, rates = setup
    ep8 = step_ms(t, rates, 1, 8, 34)
    assert step_ms(t, rates, 8, 1, 34) < ep8 < step_ms(t, rates, 8, 1, 272)
    assert step_ms(t, rates, 1, 1, 34) > 3 * ep8
    assert 40 < ep8 < 70  # first principles: ~52 GB per card at 1.6 TB/s × 0.7 ≈ 47 ms, + all-to-all and overhead


def test_expert_flops_per_rank_are_the_replicas_tokens(setup) -> None:  # type: ignore[no-untyped-def]
    """Balanced routing: the group's 8·b tokens × top_k routings spread over 8 cards, b·top_k per card, so at a
    compute-bound prefill the per-card time does not change with ep (only the expert bytes read and the
    all-to-all do)."""
    _, _, t, rates = setup
    r = dict(rates, bw=1e30)  # take the bytes away: compute alone
    k1 = S.inference_step(t, f(1), f(1), f(34), r)
    k8 = S.inference_step(t, f(1), f(8), f(34), dict(r, intra_bw=1e30, intra_lat=0.0))
    assert float(k8["prefill_s"]) == pytest.approx(float(k1["prefill_s"]), rel=1e-9)


def test_estimate_says_what_batch_means_with_ep() -> None:
    from suanli.estimate.estimate import estimate

    cat = packaged_catalog()
    m, acc = model(cat, "deepseek-v3"), accelerator(cat, "910b2")
    w = make_workload(task="inference", precision="int4", gpus=8, tp=1, ep=8, batch=34, engine="vllm-ascend")
    e = estimate(cat, m, acc, w)
    notes = " ".join(e.memory.notes + e.notes)
    assert "8 replicas of tp1 share one set of routed experts" in notes and "272 in the expert group" in notes
    assert "not known to serve MoE models expert-parallel" not in notes
    hf = estimate(cat, m, acc, w.model_copy(update={"engine": "hf"}))
    assert "Hugging Face transformers generate is not known to serve MoE models expert-parallel" in " ".join(hf.notes)
    assert "a serving plan refuses --ep with it" in " ".join(hf.notes)


# ---- the planner ------------------------------------------------------------------------------------------------


def _serve(**kw):  # type: ignore[no-untyped-def]
    from suanli.plan.request import make_request
    from suanli.plan.search import plan

    cat = packaged_catalog()
    mid = kw.pop("model", "deepseek-v3")
    req = make_request(model=mid, task="inference", requests_per_s=2, input=1000, output=500, ttft_s=2, tpot_s=0.1,
                       offer_kinds=("listing", "index"), **kw)
    return cat, req, plan(cat, model(cat, mid), req)


def test_plan_serves_with_a_pinned_ep_and_estimate_reproduces_it() -> None:
    from suanli.estimate.estimate import estimate
    from suanli.plan.search import plan_workload

    cat, req, res = _serve(devices=("910b2",), precision="int4", ep=8)
    assert res.plans, res
    p = res.plans[0]
    assert p.ep == 8 and p.replicas is not None and p.replicas % 8 == 0 and p.gpus == p.replicas * p.tp
    e = estimate(cat, model(cat, "deepseek-v3"), accelerator(cat, p.device), plan_workload(p, req))
    assert e.inference is not None and p.tpot_s is not None
    assert e.inference.tpot_steady_s == pytest.approx(p.tpot_s, rel=1e-9)


def test_plan_ep_on_an_engine_without_it_names_the_pin() -> None:
    _, _, res = _serve(devices=("h100",), precision="int4", ep=8, engine="hf")
    assert not res.plans
    text = str(res.model_dump())
    assert "--ep 8" in text and "no framework in the catalog" not in text


def test_plan_ep_needs_an_moe_model() -> None:
    with pytest.raises(InputError) as e:
        _serve(model="qwen2.5-7b", ep=2)
    assert e.value.field == "ep"
