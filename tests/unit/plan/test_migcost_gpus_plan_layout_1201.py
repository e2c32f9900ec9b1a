"""Task K (2026-12-01): `migrate cost` costs the job plan would run. A training buyer found `migrate cost --model
qwen2.5-72b --task full --from-gpu h800` refusing "does not fit on 8 × H800" while `plan --gpu h800 --gpus 8` ranked
8× H800 with ZeRO-3 + optimizer offload first, and the refusal naming the -Instruct checkpoint where plan (training)
names the base. Each side's tokens/s is now the layout plan searches on that count (`_training_layout` with
`measures`: `plan.search.fastest_layout_why`, offload included), on `--gpus` / API `gpus` cards (default 8); a side
that does not fit names the count, the checkpoint plan names (`lookup.checkpoint_id`), and the fewest cards on which
plan finds a plan on both devices (`plan.search.fewest_training_cards`)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from cli_run import run_cli

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model as lookup_model
from suanli.errors import InputError
from suanli.i18n import render
from suanli.plan.compare import migration_cost
from suanli.plan.request import make_request
from suanli.plan.search import fastest_layout_why, fewest_training_cards, plan

TODAY = dt.date(2026, 12, 1)
WIDE = {"region": "any", "kinds": ("listing", "index", "reference"), "today": TODAY}


def _cat_m() -> tuple[object, object]:
    cat = packaged_catalog()
    return cat, lookup_model(cat, "qwen2.5-72b")


def test_training_side_is_plans_offload_layout() -> None:
    """8× H800 for Qwen2.5-72B full: plain AdamW does not fit, plan offloads the optimizer; migrate cost's H800 side
    is that layout (plan's first plan with objective fastest on exactly 8 H800s) and its speed."""
    cat, m = _cat_m()
    out = migration_cost(cat, m, "a800", "h800", task="full", **WIDE)
    assert out["gpus"] == 8 and out["model"] == "Qwen/Qwen2.5-72B"
    side = out["derived"]["h800"]
    lay = side["workload"]
    res = plan(cat, m, make_request(model="qwen2.5-72b", task="full", tokens=1e9, gpus=8, devices=("h800",),
                                    objective="fastest", region="any", offer_kinds=("listing", "index", "reference")),
               today=TODAY)
    p = res.plans[0]
    assert p.offload_optimizer and lay["offload_optimizer"] is True
    assert (lay["tp"], lay["pp"], lay["zero"], lay["batch"], lay["recompute"]) == (
        p.tp, p.pp, p.zero, p.micro_batch, p.recompute)
    assert side["tokens_per_s_8_cards"] == pytest.approx(p.tokens_per_s, rel=0.02)
    assert lay["layout_rule_i18n"]["id"] == "mig.layout_rule.measure"
    # compare keeps its plain AdamW row (the stated job, not a memory-saving fallback): one function, a flag
    req = make_request(model=m.id, task="full", tokens=1e9, gpus=8)
    assert fastest_layout_why(cat, m, req, "h800")[0] is None
    assert fastest_layout_why(cat, m, req, "h800", measures=True)[0] is not None


def test_gpus_flag_and_the_refusal_names_the_count_and_plans_fewest() -> None:
    cat, m = _cat_m()
    with pytest.raises(InputError) as e:
        migration_cost(cat, m, "a800", "h800", task="full", gpus=4, **WIDE)
    msg = e.value.i18n
    assert msg is not None and msg.id == "error.saving_no_fit"
    assert msg.params["gpus"] == 4 and msg.params["model"] == "Qwen/Qwen2.5-72B"  # the base, as plan names it
    hint = msg.params["hint"]
    assert hint.id == "mig.fewest_cards" and hint.params["gpus"] == 8
    req = make_request(model=m.id, task="full", tokens=1e9, region="any", offer_kinds=("listing", "index", "reference"))
    assert max(fewest_training_cards(cat, m, req, d, TODAY) or 0 for d in ("h800", "a800")) == 8
    text = render(msg)
    assert "does not fit on 4 × NVIDIA H800" in text and "pass --gpus 8" in text and "Instruct" not in text
    assert "从 8 张卡起" in render(msg, "zh") and "--gpus 8" in render(msg, "zh")
    with pytest.raises(InputError) as e:
        migration_cost(cat, m, "a800", "h800", task="full", gpus=0, **WIDE)
    assert e.value.field == "gpus"


def test_no_count_plan_finds_says_so() -> None:
    """910B for 72B full: plan finds no rentable count (MindSpeed-LLM does not fit one node, no 910B offer spans
    nodes): the refusal says plan finds none either, never a count no offer rents."""
    cat, m = _cat_m()
    with pytest.raises(InputError) as e:
        migration_cost(cat, m, "ascend-910b", "h800", task="full", today=TODAY)
    msg = e.value.i18n
    assert msg is not None and msg.params["hint"].id == "mig.fewest_cards_none"
    assert msg.params["model"] == "Qwen/Qwen2.5-72B" and msg.params["gpus"] == 8
    assert fewest_training_cards(cat, m, make_request(model=m.id, task="full", tokens=1e9), "ascend-910b",
                                 TODAY) is None


def test_serving_names_the_instruct_checkpoint_and_takes_gpus() -> None:
    cat, m = _cat_m()
    out = migration_cost(cat, m, "a800", "h800", task="inference", gpus=4, **WIDE)
    assert out["gpus"] == 4 and out["model"] == "Qwen/Qwen2.5-72B-Instruct"
    assert {d["workload"]["gpus"] for d in out["derived"].values() if isinstance(d, dict)} == {4}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_cli_gpus(lang: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                  tmp_path: Path) -> None:
    base = ["--lang", lang, "migrate", "cost", "--model", "qwen2.5-72b", "--task", "full", "--from-gpu", "h800",
            "--to-gpu", "a800", "--region", "any", "--offer-kinds", "all"]
    code, out, err = run_cli(base, monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert ("ZeRO-Offload under DeepSpeed" if lang == "en" else "DeepSpeed 的 ZeRO-Offload") in out
    code, out, err = run_cli([*base, "--gpus", "4"], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code != 0 and "--gpus 8" in err and "Qwen/Qwen2.5-72B " in err
    code, out, err = run_cli([*base, "--gpus", "8", "--json"], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    d = json.loads(out)
    assert d["gpus"] == 8 and d["derived"]["h800"]["workload"]["offload_optimizer"] is True


def test_api_gpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fastapi = pytest.importorskip("fastapi.testclient")
    from suanli.api import Settings, create_app

    monkeypatch.setenv("SUANLI_TODAY", "2026-12-01")
    client = fastapi.TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path / 'a.db'}")))
    body = {"model": "qwen2.5-72b", "task": "full", "from_gpu": "h800", "to_gpu": "a800", "region": "any",
            "offer_kinds": ["listing", "index", "reference"]}
    r = client.post("/api/migrate", json=body)
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["gpus"] == 8 and d["model"] == "Qwen/Qwen2.5-72B"
    assert d["derived"]["h800"]["workload"]["offload_optimizer"] is True
    r = client.post("/api/migrate", json={**body, "gpus": 4})
    assert r.status_code == 422, r.text
    assert "`gpus` 8" in r.text and "4 × NVIDIA H800" in r.text
    r = client.post("/api/migrate", json={**body, "gpus": 0})
    assert r.status_code in (400, 422) and "gpus" in r.text
