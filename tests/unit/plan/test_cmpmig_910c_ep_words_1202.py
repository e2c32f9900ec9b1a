"""compare and migrate cost finish the 910C's dies and the expert-parallel wording (task I, 2026-12-02).

1. compare's memory-within-error warning and its unpriced row's why-not on a 910C are plan's `_dies` wordings (the
   one check `memory_within_error` with `dies`; `no_rent_why` with tp and the largest instance in dies, the dies and
   the expert-parallel size), not "per card" nor a tp of dies against an instance of cards.
2. the engine's pool note and the GiB cell of a 910C row are per die; migrate cost's expert groups count cards with
   their dies (was "expert groups of 8 replicas (16 cards)" for 8 cards of 16 dies).
3. the slots quote (`users.slots`), compare's "serves" / not-served sentences and migrate's layout name
   expert-parallel groups through `labels.replica_words`, as plan's hints do."""

from __future__ import annotations

import datetime as dt
from typing import Any

from typer.testing import CliRunner

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.cli.main import app
from suanli.plan.compare import compare_devices
from suanli.plan.labels import replica_words
from suanli.plan.search import no_rent_why
from suanli.i18n import render
from suanli.validate.bands import packaged_error_bands

TODAY = dt.date(2026, 12, 2)
ALL = ("listing", "index", "reference", "contract")


def _rows(cat: Catalog, model: str, devices: list[str], **kw: Any) -> dict[str, dict[str, Any]]:
    args: dict[str, Any] = {"gpus": 8, "kinds": ALL, "today": TODAY, "error_bands": packaged_error_bands(), **kw}
    return {r["device"]: r for r in compare_devices(cat, lookup.model(cat, model), devices, **args)}


def _run(*args: str, columns: int = 400) -> str:
    out = CliRunner().invoke(app, list(args), env={"COLUMNS": str(columns)})
    assert out.exit_code == 0, out.output
    return out.output


def _cli(*args: str) -> str:
    return " ".join(_run(*args).split())


# 1. memory warning and unpriced why-not ---------------------------------------------------------------------------


def test_compare_910c_memory_warning_and_pool_note_say_per_die(cat: Catalog) -> None:
    rows = _rows(cat, "deepseek-r1", ["h20-141g", "910c"], precision="int8")
    c, h = rows["ascend-910c"], rows["h20-141g"]
    assert c["memory_warning_i18n"]["id"].endswith("_dies"), c["memory_warning_i18n"]["id"]
    assert "per die" in c["memory_warning"] and "per card" not in c["memory_warning"]
    assert c["memory_pool_note_i18n"]["id"] == "cmp.memory_pool_dies"
    assert "per die" in c["memory_pool_note"] and "per card" not in c["memory_pool_note"]
    assert h["memory_pool_note_i18n"]["id"] == "cmp.memory_pool"  # a one-die card as it was


def test_compare_table_910c_gib_cell_is_per_die() -> None:
    out = _run("compare", "--model", "deepseek-r1", "--gpu", "h20-141g", "--gpu", "910c", "--gpus", "8",
               "--offer-kinds", "all", "--precision", "int8", columns=250)
    c = next(ln for ln in out.splitlines() if ln.startswith("Huawei Ascend 910C"))
    h = next(ln for ln in out.splitlines() if ln.startswith("NVIDIA H20"))
    assert "57/58 per die" in c, c
    assert "per die" not in h


def test_compare_unpriced_910c_row_counts_the_instance_in_dies(cat: Catalog) -> None:
    # the 910C's only offer held to one card (stock 1): tp 4 (dies) needs 2 cards in one instance
    one = Catalog.model_validate({**cat.model_dump(), "offers": [
        o.model_copy(update={"stock": 1}) if o.device == "ascend-910c" else o for o in cat.offers]})
    r = _rows(one, "qwen2.5-72b", ["h20", "910c"], precision="int8", tp=4, requests_per_s=1.0)["ascend-910c"]
    assert r["cost_cny"] is None
    why = r["no_price_i18n"]["params"]["why"]
    assert why["id"] == "why.serve_no_instance_dies" and why["params"] == {"tp": 4, "largest": 1, "ranks": 2}


def test_no_rent_why_names_a_910c_expert_group_as_a_group() -> None:
    # 8 replicas of tp 2 dies sharing experts: 16 dies in one instance, which 8 cards (16 dies) hold. Task J.4
    # (2026-12-03) deliberately replaced the folding this pinned ("a replica fits from tp 16, 16 dies in one
    # instance" for a tp2 × ep8 group): the group is named as a group, in cards with its dies
    assert no_rent_why(2, 16, True, 2, 8).id == "why.no_usable_offer"
    m = no_rent_why(2, 8, True, 2, 8)
    assert m.id == "why.serve_no_instance_ep_dies" and m.params["largest"] == 4 and m.params["ranks"] == 8
    assert m.params["group"] == replica_words(8, 2, 8, dies=2)
    assert render(m) == ("a replica fits from a group of 8 cards (16 dies) sharing experts (tp2 × ep8), all in one "
                         "instance, and the largest instance here has 4 cards (8 dies) (a serving replica spans "
                         "nodes only on an offer whose nodes join over a network)")
    assert "tp 16" not in render(m) and "tp 16" not in render(m, "zh")
    assert "8 卡（16 个芯粒）" in render(m, "zh")
    assert no_rent_why(1, 4, True, 1, 8).id == "why.serve_no_instance_ep"  # one die a card: the group, as it was
    assert no_rent_why(16, 8, True, 2).id == "why.serve_no_instance_dies"  # no experts shared: tp in dies, as it was


# 2./3. migrate cost and the expert-parallel groups ---------------------------------------------------------------

MIGRATE = ("migrate", "cost", "--model", "qwen3-235b-a22b", "--task", "inference", "--from-gpu", "h20-141g",
           "--to-gpu", "910c", "--concurrent-users", "2000", "--tpot", "0.05", "--offer-kinds", "all",
           "--max-gpus", "512")


def test_migrate_cost_names_expert_groups_in_cards_and_dies() -> None:
    out = _cli(*MIGRATE)
    # each side's row on the cards its bill for the rate rents (helper D 2026-12-02: was the 8-card row beside
    # bills of 40 and 136 cards): 17 groups on the 910C's 136 cards, 5 on the H20's 40
    assert "17 groups of 8 cards (16 dies) sharing experts (tp2 × ep8): 136 replicas, batch 17 per replica" in out
    assert "5 groups of 8 cards sharing experts (tp1 × ep8): 40 replicas, batch 56 per replica" in out
    assert "(16 cards)" not in out and "tp2 × 8 replica" not in out and "tp1 × 8 replica" not in out
    zh = _cli("--lang", "zh", *MIGRATE)
    assert "17 组共享专家的 8 卡（16 个芯粒）副本组（tp2 × ep8）：136 个副本" in zh


def test_users_quote_names_the_expert_group(cat: Catalog) -> None:
    rows = _rows(cat, "qwen3-235b-a22b", ["h20-141g", "910c"], concurrent_users=2000, tpot_s=0.05)
    for dev, group in (("h20-141g", "a group of 8 cards sharing experts (tp1 × ep8): 8 replicas × batch"),
                       ("ascend-910c", "a group of 8 cards (16 dies) sharing experts (tp8 × ep2): 2 replicas × batch")):
        lay, text = rows[dev]["layout"], rows[dev]["layout_note"]
        assert lay["ep"] > 1
        assert group in text, text
        assert f"tp{lay['tp']} × {lay['dp']} replica" not in text
        words = render(replica_words(lay["dp"], lay["tp"], lay["ep"], dies=lay.get("dies_per_card") or 1))
        assert words in text  # the one formatter's words


def test_served_sentence_names_the_expert_group(cat: Catalog) -> None:
    r = _rows(cat, "qwen3-235b-a22b", ["h20-141g", "910c"], requests_per_s=2.0, tpot_s=0.05)["h20-141g"]
    served = r["served"]
    assert served is not None and served["note_i18n"]["id"] == "cmp.serving.served_ep", served
    assert "sharing experts (tp" in served["note"]
