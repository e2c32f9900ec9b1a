"""compare's loose ends (2026-12-01, third session): one quoted maximum for a rate (the best over every tp the rate
search serves on, as plan), the steady-state TPOT quoted by a serving capacity, and `--input` refused by a training
compare whenever it is given (512 included). Each test fails on the code before."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.plan.compare import compare_devices
from suanli.plan.request import make_request
from suanli.plan.search import plan
from suanli.validate.bands import packaged_error_bands


def _h800(cat, rate):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    return compare_devices(cat, m, ["h800", "910b"], "inference", 8, requests_per_s=rate, tpot_s=0.05, ttft_s=1.0,
                           error_bands=packaged_error_bands())[0]


def _plan(cat, rate):  # type: ignore[no-untyped-def]
    m = lookup.model(cat, "qwen3-32b")
    req = make_request(model=m.id, task="inference", gpus=8, requests_per_s=rate, tpot_s=0.05, ttft_s=1.0,
                       precision="bf16", devices=("h800-sxm",), region="any",
                       offer_kinds=("listing", "index", "reference"))
    return plan(cat, m, req, error_bands=packaged_error_bands())


def test_the_quoted_maximum_is_never_below_a_rate_served(cat) -> None:  # type: ignore[no-untyped-def]
    """Was: 'serve at most 42.6 req/s' (tp4 × 2) for 100 req/s while 45 req/s was served on tp2 × 4."""
    above = _h800(cat, 100.0)
    assert above["served"] is None
    most = float(above["layout_note_i18n"]["params"]["why"]["params"]["rps"])
    served = _h800(cat, 45.0)
    assert served["served"] is not None
    assert served["served"]["requests_per_s"] <= most  # one answer: the quote is at least what is served
    assert above["layout"]["tp"] == served["layout"]["tp"] == served["served"]["tp"] == 2
    assert above["tokens_per_s"] / 256 >= most >= 0.99 * above["tokens_per_s"] / 256  # the row's own rate
    # plan agrees: 45 req/s served on the same tp and batch; above the quote none, and its hint quotes the same rate
    p = _plan(cat, 45.0).plans[0]
    assert (p.tp, p.dp, p.micro_batch) == (served["served"]["tp"], served["served"]["replicas"],
                                           served["served"]["batch"])
    r = _plan(cat, most * 1.02)
    assert not r.plans
    hint = next(x for x in r.relax_i18n if x["id"] == "relax.rate_gpus")
    assert hint["params"]["rps"] == pytest.approx(most, rel=1e-12)
    assert _plan(cat, most).plans


def test_a_serving_capacity_quotes_the_steady_tpot(cat) -> None:  # type: ignore[no-untyped-def]
    """Was: the decode step (31.8 ms at b160) beside a capacity chosen on the steady-state TPOT (~50 ms)."""
    m = lookup.model(cat, "qwen3-32b")
    for kw in (dict(requests_per_s=10.0), dict(tpot_s=0.05)):
        row = compare_devices(cat, m, ["h800", "910b"], "inference", 8, error_bands=packaged_error_bands(),
                              **({"tpot_s": 0.05} | kw))[0]
        assert row["tpot_kind"] == "steady"
        assert 0.045 < row["tpot_s"] <= 0.05, kw
    # a batch job (--batch, or no rate and no TPOT: the default bound on the decode step) says it is the step
    for kw in (dict(batch=16), dict()):
        row = compare_devices(cat, m, ["h800", "910b"], "inference", 8, **kw)[0]  # type: ignore[arg-type]
        assert row["tpot_kind"] == "decode_step"


@pytest.mark.parametrize("kw, field", [(dict(input_tokens=512), "input"), (dict(output_tokens=256), "output")])
def test_a_training_compare_refuses_the_default_lengths_too(cat, kw, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as ex:
        compare_devices(cat, lookup.model(cat, "qwen2.5-7b"), ["h800", "910b"], "lora", **kw)
    assert ex.value.field == field and ex.value.i18n is not None and ex.value.i18n.id == "err.serving_lengths_only"


def test_cli_and_api_refuse_input_512_for_training() -> None:
    from fastapi.testclient import TestClient
    from typer.testing import CliRunner

    from suanli.api.app import create_app
    from suanli.cli.main import app

    out = CliRunner().invoke(app, ["--lang", "en", "compare", "--model", "qwen2.5-7b", "--gpu", "h800", "--gpu", "910b",
                                   "--task", "lora", "--input", "512"], env={"COLUMNS": "200"})
    assert out.exit_code != 0 and "input: serving only" in out.output + str(out.exception)
    body = {"model": "qwen2.5-7b", "devices": ["h800", "910b"], "task": "lora", "input": 512}
    r = TestClient(create_app()).post("/api/compare", json=body)
    assert r.status_code == 422 and "input" in r.text and "serving only" in r.text
    ok = TestClient(create_app()).post("/api/compare", json={k: v for k, v in body.items() if k != "input"})
    assert ok.status_code == 200, ok.text
