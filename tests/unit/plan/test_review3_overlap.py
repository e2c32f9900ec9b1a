"""Buyer's review 2026-12-01 (third pass), item 1: tensor-parallel communication overlap runs only where the
framework's overlap library has the link it needs (Transformer Engine's userbuffers: an NVLink domain,
NVIDIA/TransformerEngine#1071), the one rule `plan` and `estimate` apply (capability.tp_overlap_runs); and the RTX
4090's training efficiency, measured with torchtune, applies to torchtune alone."""

from __future__ import annotations

import datetime as dt

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.estimate.capability import tp_overlap_refusal, tp_overlap_runs
from suanli.estimate.efficiency import efficiency
from suanli.estimate.estimate import estimate
from suanli.estimate.workload import make_workload
from suanli.plan.request import make_request
from suanli.plan.search import plan


def _fw(cat, fid):  # type: ignore[no-untyped-def]
    return next(f for f in cat.frameworks if f.id == fid)


def test_overlap_needs_the_link_its_framework_names(cat) -> None:
    meg = _fw(cat, "megatron")
    assert meg.tp_comm_overlap_links == ("nvswitch",) and meg.tp_comm_overlap_source == "te-userbuffers-nvlink"
    assert "TransformerEngine/issues/1071" in (cat.sources["te-userbuffers-nvlink"].url or "")
    assert tp_overlap_runs(meg, lookup.accelerator(cat, "h100-sxm"))
    for dev in ("rtx-4090", "rtx-5090", "l40s", "h100-pcie"):  # no NVLink domain over the tensor-parallel group
        assert not tp_overlap_runs(meg, lookup.accelerator(cat, dev)), dev
    # MindSpeed's CoC / MC2: no source here restricts it to a link
    assert tp_overlap_runs(_fw(cat, "mindspeed"), lookup.accelerator(cat, "ascend-910b"))


def test_plan_does_not_overlap_tp_collectives_on_pcie_consumer_cards(cat) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    res = plan(cat, m, make_request(model="qwen2.5-7b", task="pretrain", tokens=1e10), today=dt.date(2026, 12, 1))
    pcie = [p for p in res.plans if p.device.startswith("rtx-") or p.device in ("l40s", "l20")]
    assert pcie
    for p in pcie:
        assert not p.tp_comm_overlap, p.device
    # NVSwitch and Ascend plans keep it where tp > 1
    for p in res.plans:
        if p.device == "ascend-910b" and p.tp > 1:
            assert p.tp_comm_overlap


def test_estimate_refuses_overlap_on_a_card_without_nvlink(cat) -> None:
    m, acc = lookup.model(cat, "qwen2.5-7b"), lookup.accelerator(cat, "rtx-4090")
    w = make_workload(task="pretrain", gpus=8, tp=4, pp=2, tp_comm_overlap=True)
    with pytest.raises(InputError) as e:
        estimate(cat, m, acc, w)
    assert e.value.field == "tp_comm_overlap"
    assert "NVLink" in str(e.value) and "te-userbuffers-nvlink" in str(e.value) and "\n" not in str(e.value)
    why = tp_overlap_refusal(cat.frameworks, acc, "megatron")
    assert why is not None and why.id == "cap.fw.tp_overlap_link"
    # on NVSwitch it runs
    h = lookup.accelerator(cat, "h100-sxm")
    assert estimate(cat, m, h, make_workload(task="pretrain", gpus=8, tp=4, pp=2, tp_comm_overlap=True)).training
    # a framework without the overlap says so
    assert tp_overlap_refusal(cat.frameworks, acc, "deepspeed") is not None


def test_rtx_4090_efficiency_is_scoped_to_torchtune(cat) -> None:
    acc = lookup.accelerator(cat, "rtx-4090")
    assert efficiency(cat, acc, "train_mfu", "bf16", framework="torchtune").factor_id == "mfu-rtx-4090"
    for fw in ("megatron", "llama-factory", "deepspeed", None):
        assert efficiency(cat, acc, "train_mfu", "bf16", framework=fw).factor_id == "mfu-default", fw
