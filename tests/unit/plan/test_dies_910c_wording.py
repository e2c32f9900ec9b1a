"""A 910C's messages name the unit their number is in (buyer review, task B): the planner counts ranks (dies, two a
card, `catalog.ranks`) and rents cards, and the why-not rows, relax hints and memory warnings quoted ranks as cards
and GiB per die as "GiB per card" ("the request rate needs 32 cards (limit 8)" for 16 cards; "does not fit on one
16-card node"). Now a count of cards to rent is in cards (as --gpus/--max-gpus count them) with its dies, tp in dies
and memory per die (the `_dies` ids, zh 芯粒); `plan --gpu 910c --gpus 2 --tp 4` runs on 2 cards = 4 dies; compare's
and migrate cost's tables say "(16 dies)" as plan's does. One-die devices are unchanged (their goldens)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli
from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.cli.main import app
from suanli.errors import InputError
from suanli.i18n import Message, messages
from suanli.plan.known_error import memory_within_error
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.units import GiB
from suanli.validate.bands import packaged_error_bands

KINDS = ("listing", "index", "reference", "contract")
# every `_dies` wording this change added (a 910C's counts in cards with their dies, tp in dies, memory per die)
NEW_DIES_IDS = (
    "why.does_not_fit_node_dies", "why.no_layout_gpus_dies", "why.does_not_fit_gpus_dies", "why.does_not_fit_fw_dies",
    "why.serve_replica_dies", "why.serve_need_tp_dies", "why.serve_need_none_dies", "why.serve_no_instance_dies",
    "why.measure_no_speed_dies", "why.measure_fits_dies", "why.measure_fits_no_speed_dies",
    "relax.measure_no_speed_dies", "relax.measure_no_speed_lighter_dies", "plan.reason.offload_short_dies",
    "plan.reason.adamw8bit_short_dies", "plan.warn.memory_within_error_dies",
    "plan.warn.memory_within_error_pooled_dies", "plan.warn.memory_within_error_all_dies", "why.cards_dies",
    "why.tpot_cards_dies", "why.ttft_cards_dies", "why.rate_gpus_dies", "why.slots_gpus_dies",
    "why.tpot_instance_dies", "why.ttft_instance_dies", "relax.more_cards_dies", "relax.cards_dies",
    "relax.cards_passing_dies", "relax.cards_lower_dies", "relax.rate_gpus_dies", "relax.slots_gpus_dies",
    "err.cards_do_not_split_into_the_dies",
    # and those added since (f1ca8cf, task B 2026-12-02): the layout words, the reasons, compare's pool and serves
    # lines; relax.tpot/ttft(_cards)_dies are gone: their words were the layout's, which carry the dies now
    "layout.replicas_dies", "layout.replicas_engine_dies", "layout.ep_group_dies", "layout.ep_groups_dies",
    "layout.ep_groups_engine_dies", "plan.reason.train_fw_dies", "plan.reason.serve_replicas_dies",
    "plan.reason.serve_replicas_no_tpot_dies", "plan.reason.serve_tokens_dies", "cmp.memory_pool_dies",
    "cmp.serving.served_dies", "cmp.serving.served_ep_dies",
    "why.no_span_gpus_dies")  # task F.2: more cards than a node where no offer spans nodes
SERVE = ["plan", "--model", "qwen2.5-72b", "--task", "inference", "--gpu", "910c", "--requests-per-s", "20",
         "--input", "1000", "--output", "300", "--tpot", "0.05", "--ttft", "2", "--offer-kinds", "all",
         "--max-gpus", "8"]
FULL = ["plan", "--model", "qwen2.5-72b", "--task", "full", "--tokens", "1e9", "--gpu", "910c", "--offer-kinds", "all"]


def _cli(*args: str, lang: str = "en", code: int = 1) -> str:
    out = CliRunner().invoke(app, ["--lang", lang, *args], env={"COLUMNS": "400"})
    assert out.exit_code == code, out.output
    return " ".join(out.output.split())


@pytest.mark.parametrize("msg_id", NEW_DIES_IDS)
def test_every_dies_wording_says_dies_never_per_card(msg_id: str) -> None:
    en, zh = messages("en")[msg_id], messages("zh")[msg_id]
    assert "die" in en and "芯粒" in zh
    assert "per card" not in en and "-card replicas" not in en and "每卡" not in zh and "卡副本" not in zh
    base = msg_id.removesuffix("_dies")  # the one-die wording it stands beside, same placeholders but the dies'
    assert base in messages("en") and base in messages("zh")


# the expert-parallel wordings f1ca8cf added beside a "tp{tp} × {replicas}" one: the group in the layout words
# (`labels.replica_words`, which carry a 910C's dies), not a tp the one-die wording states
NEW_EP_IDS = ("users.slots_ep", "cmp.serving.served_ep", "cmp.serving.served_ep_dies", "cmp.serving.not_served_row_ep",
              "mig.value.serving_layout_ep")


@pytest.mark.parametrize("msg_id", NEW_EP_IDS)
def test_every_ep_wording_names_the_layout_words(msg_id: str) -> None:
    base = msg_id.replace("_ep", "", 1)
    for lang in ("en", "zh"):
        text, was = messages(lang)[msg_id], messages(lang)[base]
        assert "{layout}" in text and "tp{tp} ×" not in text, (lang, text)
        assert "tp{tp} ×" in was, (lang, was)


def test_ttft_cards_wording_exists() -> None:
    # f"why.{key}_cards" / f"relax.{key}_cards" with key ttft printed the bare id: no such message before
    for msg_id in ("why.ttft_cards", "relax.ttft_cards"):
        assert "TTFT" in messages("en")[msg_id] and "TTFT" in messages("zh")[msg_id]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_serving_rate_hint_counts_cards_with_dies(lang: str) -> None:
    out = _cli(*SERVE, lang=lang)
    # 5 × 8-die replicas = 40 dies = 20 cards; --max-gpus counts cards (4 replicas, 16 cards, until vLLM-Ascend's
    # per-step overhead was fitted, 2026-12-02)
    if lang == "en":
        assert "needs at least 20 cards (40 dies: 5 × 8-die replicas on Huawei Ascend 910C)" in out
        assert "the request rate needs 20 cards (40 dies) (limit 8 cards)" in out
        assert "raise --max-gpus to 20" in out  # the cards, not the dies
        assert "40 cards" not in out and "8-card replicas" not in out
    else:
        assert "至少需要 20 张卡（40 个芯粒：华为昇腾 910C 上 5 个 8 芯粒副本）" in out
        assert "请求速率需要 20 张卡（40 个芯粒）（上限 8 张卡）" in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_training_memory_reasons_say_per_die_and_cards(lang: str) -> None:
    out = _cli(*FULL, "--max-gpus", "32", lang=lang)
    if lang == "en":  # 8 dies are 4 cards; a node is 8 cards of 16 dies
        assert "fits 4× Huawei Ascend 910C (8 dies) (43.8 GiB per die, 54.4 usable)" in out
        assert "does not fit on one 8-card node (16 dies) with DeepSpeed" in out
        assert "77.7 GiB per die" in out and "GiB per card" not in out and "16-card node" not in out
    else:
        assert "4× 华为昇腾 910C（8 个芯粒）（每芯粒需要 43.8 GiB" in out
        assert "在一台 8 卡节点（16 个芯粒）内放不下（最省的配置每芯粒需要 77.7 GiB" in out and "每卡" not in out


def test_pinned_gpus_reasons_say_cards_and_dies() -> None:
    out = _cli(*FULL, "--gpus", "3")
    assert "does not fit with DeepSpeed on 3 cards (6 dies): the leanest layout needs 55.1 GiB per die" in out
    out = _cli("plan", "--model", "qwen3-32b", "--task", "full", "--tokens", "1e9", "--gpu", "910c", "--gpus", "12",
               "--offer-kinds", "all")
    # no 910C offer spans nodes: that, not the framework's layouts (task F.2)
    assert ("no job runs on exactly 12 cards (24 dies) here: that is more than one 8-card node (16 dies), and no "
            "offer used can span nodes") in out


def test_memory_within_error_per_die() -> None:
    cat = packaged_catalog()
    stack = lookup.stack(cat, lookup.accelerator(cat, "910c").stack)
    bands = packaged_error_bands()
    card = memory_within_error(bands, stack, "full", 53 * GiB, 54.4 * GiB)
    die = memory_within_error(bands, stack, "full", 53 * GiB, 54.4 * GiB, dies=2)
    assert card is not None and die is not None and die.id == f"{card.id}_dies" and die.params == card.params
    assert "usable GiB per die" in die.render("en") and "每芯粒" in die.render("zh")
    out = _cli("plan", "--model", "qwen3-32b", "--task", "full", "--tokens", "1e9", "--gpu", "910c", "--gpus", "8",
               "--offer-kinds", "all", code=0)
    assert "! memory 43.0 of 54.4 usable GiB per die" in out and "GiB per card" not in out


def test_gpus_2_tp_4_runs_on_2_910c_cards() -> None:
    cat = packaged_catalog()
    req = make_request(model="qwen2.5-72b", task="inference", gpus=2, tp=4, devices=("910c",), offer_kinds=KINDS,
                       requests_per_s=1.0)
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"), req)
    assert r.plans and all((p.cards, p.gpus, p.tp) == (2, 4, 4) for p in r.plans)
    out = _cli("plan", "--model", "qwen2.5-72b", "--task", "inference", "--gpu", "910c", "--gpus", "2", "--tp", "4",
               "--requests-per-s", "1", "--offer-kinds", "all", code=0)
    assert "2 (4 dies)" in out and "1×tp4" in out


@pytest.mark.parametrize(("devices", "said"), [
    (("910c",), "--gpus: 3 cards do not split into the pinned tp × pp = 4 × 1: tp and pp count dies, and 3 cards of "
                "Huawei Ascend 910C are 6 dies"),
    (("910b",), "--gpus: 3 cards do not split into the pinned tp × pp = 4 × 1")])
def test_gpus_that_split_on_no_allowed_device_is_one_line(devices: tuple[str, ...], said: str,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    cat = packaged_catalog()
    req = make_request(model="qwen2.5-72b", task="inference", gpus=3, tp=4, devices=devices, offer_kinds=KINDS,
                       requests_per_s=1.0)
    with pytest.raises(InputError) as e:
        plan(cat, lookup.model(cat, "qwen2.5-72b"), req)
    assert e.value.field == "gpus" and str(e.value) == said.removeprefix("--")
    args = [a for d in devices for a in ("--gpu", d)]
    code, out, err = run_cli(["plan", "--model", "qwen2.5-72b", "--task", "inference", *args, "--gpus", "3", "--tp",
                              "4", "--requests-per-s", "1"], monkeypatch, capsys, tmp_path)
    assert code != 0 and not out and err.strip() == f"error: {said}"


def test_gpus_that_split_on_one_device_leaves_the_other_a_why_not_row() -> None:
    cat = packaged_catalog()
    req = make_request(model="qwen2.5-72b", task="inference", gpus=2, tp=4, devices=("910c", "910b"),
                       offer_kinds=KINDS, requests_per_s=1.0)
    r = plan(cat, lookup.model(cat, "qwen2.5-72b"), req)
    assert {p.device for p in r.plans} == {"ascend-910c"}
    why = {w["device"]: w for w in r.why_not}
    assert why["ascend-910b"]["reason_i18n"] == Message(
        "err.cards_do_not_split_into_the", req_gpus=2, v=4, v2=1).to_json()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_and_migrate_tables_say_the_dies(lang: str) -> None:
    dies = "Huawei Ascend 910C (16 dies)" if lang == "en" else "华为昇腾 910C（16 个芯粒）"
    out = _cli("compare", "--model", "qwen3-32b", "--gpu", "910c", "--gpu", "910b", "--gpus", "8",
               "--offer-kinds", "all", lang=lang, code=0)
    assert dies in out and ("Huawei Ascend 910B (" not in out and "华为昇腾 910B（" not in out)
    out = _cli("migrate", "cost", "--model", "qwen3-32b", "--from-gpu", "h800", "--to-gpu", "910c", "--gpus", "8",
               "--task", "full", "--offer-kinds", "all", lang=lang, code=0)
    assert (f"{dies}, 8 cards" if lang == "en" else f"{dies}，8 张卡") in out
