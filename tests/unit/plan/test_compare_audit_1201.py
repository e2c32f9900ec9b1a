"""compare's findings from the 2026-12-01 audit, each rule in one place.

1. The serving period is plan's request (`make_request`: `serving_hours`, `setup_in_period`, its refusals) and the
   billed hours of a stated period one function (`plan.cost.period_billed_hours`) that plan's vectors and compare's
   offer both call: `compare --hours 100` without a rate is refused as `plan --task inference --hours 100` is.
2. A compare row's job ¥/card-h is tco's (`plan.cost.job_cny_per_card_hour`: bill ÷ cards ÷ hours) and TFLOPS per ¥
   is priced from it: the 910B's 8-card month for 1 card for 100 h is ¥150/card-h, not its ¥2.57 list price.
3. The serving lengths' defaults are PlanRequest's (`request.DEFAULT_LENGTHS`).
4. bench's TF32 line is `Tf32Setting.describe` with a translate callable; feedback divides by `units.GB`.
5. migrate/libraries names the library as the row and `sources` as the field of an unknown source id."""

from __future__ import annotations

import datetime as dt
import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.errors import DataFileError, InputError
from suanli.plan import compare as cmp
from suanli.plan.compare import ServingTargets, compare_devices, serving_period, tco_rows
from suanli.plan.cost import job_cny_per_card_hour, period_billed_hours
from suanli.plan.request import DEFAULT_LENGTHS, PlanRequest, make_request

TODAY = dt.date(2026, 12, 1)


def _both_refuse(cat: Catalog, plan_kw: dict[str, Any], **kw: Any) -> tuple[InputError, InputError]:
    """compare_devices and plan's request on the same fields: both refuse, with the same field and message."""
    m = lookup.model(cat, "qwen2.5-7b")
    with pytest.raises(InputError) as c:
        compare_devices(cat, m, ["h800", "910b"], today=TODAY, **kw)
    with pytest.raises(InputError) as p:
        make_request(model=m.id, **plan_kw)
    assert c.value.field == p.value.field
    assert str(c.value) == str(p.value)
    return c.value, p.value


# 1. one serving-period rule ---------------------------------------------------------------------------------------


def test_period_without_a_rate_is_refused_as_plan_refuses_it(cat: Catalog) -> None:
    c, _ = _both_refuse(cat, {"task": "inference", "hours": 100.0}, hours=100.0)
    assert "requests-per-s" in str(c)  # the field as the flag a CLI user types; the API maps it back


@pytest.mark.parametrize(("plan_kw", "kw", "field"), [
    ({"task": "lora", "tokens": 1e8, "hours": 10.0}, {"task": "lora", "gpus": 8, "tokens": 1e8, "hours": 10.0}, "hours"),
    ({"task": "inference", "tokens": 1e8, "days": 1.0}, {"gpus": 8, "tokens": 1e8, "days": 1.0}, "days"),
    ({"task": "inference", "requests_per_s": 5.0, "hours": 10.0, "days": 1.0},
     {"gpus": 8, "requests_per_s": 5.0, "hours": 10.0, "days": 1.0}, "hours"),
    ({"task": "inference", "requests_per_s": 5.0, "hours": 2e6}, {"requests_per_s": 5.0, "hours": 2e6}, "hours"),
    # tokens to generate beside a rate: a job or a served period, not both (2026-12-02: both were taken, tokens ignored)
    ({"task": "inference", "requests_per_s": 2.0, "tokens": 1e9, "days": 3.0},
     {"requests_per_s": 2.0, "tokens": 1e9, "days": 3.0}, "tokens"),
    ({"task": "inference", "requests_per_s": 2.0, "tokens": 1e9}, {"requests_per_s": 2.0, "tokens": 1e9}, "tokens"),
])
def test_compare_and_plan_refuse_the_same_periods(cat: Catalog, plan_kw: dict[str, Any], kw: dict[str, Any],
                                                  field: str) -> None:
    c, _ = _both_refuse(cat, plan_kw, **kw)
    assert c.field == field


def test_serving_period_is_the_requests(cat: Catalog) -> None:
    for kw in ({"requests_per_s": 2.0}, {"requests_per_s": 2.0, "hours": 100.0}, {"requests_per_s": 2.0, "days": 3.0}):
        req = make_request(model="x", task="inference", **kw)
        assert serving_period("inference", kw["requests_per_s"], kw.get("tokens"), kw.get("hours"),
                              kw.get("days")) == (req.serving_hours, req.setup_in_period)
    assert serving_period("inference", None, 1e9, None, None) is None
    assert serving_period("lora", None, 1e9, None, None) is None


def test_period_billed_hours_is_one_rule_for_vectors_and_scalars() -> None:
    periods, first = np.array([100.0, 0.5, 730.0]), np.array([0.2, 0.7, 730.0])
    vec = period_billed_hours(periods, first)
    assert isinstance(vec, np.ndarray)
    for i in range(3):
        one = period_billed_hours(float(periods[i]), float(first[i]))
        assert isinstance(one, float) and one == vec[i]
    assert "period_billed_hours(req.serving_hours, first_h + delta)" in inspect.getsource(
        __import__("suanli.plan.search", fromlist=["x"]))
    assert "period_billed_hours(" in inspect.getsource(cmp._priced_job)


# 2. the job's ¥/card-h and the value column -----------------------------------------------------------------------


def test_idle_cards_count_in_the_job_price_and_the_value_column(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    rows = {r["device"]: r for r in compare_devices(cat, m, ["h800", "910b"], requests_per_s=1.0, hours=100.0,
                                                       today=TODAY)}
    b, h = rows["ascend-910b"], rows["h800"]
    assert b["cost_cny"] == pytest.approx(15_000) and b["hours"] == pytest.approx(100.0)
    assert b["cny_per_card_hour"] == pytest.approx(15_000 / 8 / 730)  # the list price stays, beside
    assert b["job_cny_per_card_hour"] == pytest.approx(150.0)
    for r in (b, h):
        assert r["job_cny_per_card_hour"] == pytest.approx(job_cny_per_card_hour(r["cost_cny"], 1, r["hours"]))
        assert r["effective_tflops_per_cny_hour"] == pytest.approx(
            r["dense_tflops"] * r["scaling_efficiency"] / r["job_cny_per_card_hour"])
    assert h["effective_tflops_per_cny_hour"] > b["effective_tflops_per_cny_hour"]


def test_job_price_is_tcos(cat: Catalog) -> None:
    for r in tco_rows(cat, "910b", 100.0, gpus=1, today=TODAY):
        assert r["effective_cny_per_card_hour"] == pytest.approx(job_cny_per_card_hour(r["cost_cny"], 1, 100.0))


def test_row_without_a_bill_has_no_job_price(cat: Catalog) -> None:
    m = lookup.model(cat, "qwen2.5-7b")
    for r in compare_devices(cat, m, ["h800", "910b"], task="lora", gpus=8, today=TODAY):
        assert r["job_cny_per_card_hour"] is None
        assert r["effective_tflops_per_cny_hour"] == pytest.approx(
            r["dense_tflops"] * r["scaling_efficiency"] / r["cny_per_card_hour"])


def test_compare_cli_shows_the_job_price(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    from cli_run import run_cli

    args = ["compare", "--model", "qwen2.5-7b", "--gpu", "h800", "--gpu", "910b", "--requests-per-s", "1",
            "--hours", "100"]
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(args, monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "job ¥/card-h" in out and "list ¥/card-h" in out
    code, out, err = run_cli(["--lang", "zh", *args], monkeypatch, capsys, tmp_path, today="2026-12-01")
    assert code == 0, err
    assert "本任务 ¥/卡时" in out


# 3. the serving lengths' defaults ---------------------------------------------------------------------------------


def test_serving_lengths_default_to_plans() -> None:
    assert DEFAULT_LENGTHS == (PlanRequest.model_fields["input"].default, PlanRequest.model_fields["output"].default)
    assert ServingTargets().lengths == DEFAULT_LENGTHS
    src = inspect.getsource(cmp)
    assert "(512, 256)" not in src and "512 if" not in src and "256 if" not in src


# 4. bench ---------------------------------------------------------------------------------------------------------


def test_tf32_text_is_describe_with_a_translate_callable() -> None:
    from suanli.bench import feedback
    from suanli.bench.results import Tf32Setting
    from suanli.cli import bench_cmd
    from suanli.cli.output import set_lang, tr

    s = Tf32Setting(float32_matmul_precision="high", cuda_matmul_allow_tf32=True, cudnn_allow_tf32=True,
                    env={"NVIDIA_TF32_OVERRIDE": "0"}, matmul_tf32=False)
    assert s.describe() == ("off (float32_matmul_precision high, cuda.matmul.allow_tf32 True, cudnn.allow_tf32 True, "
                            "NVIDIA_TF32_OVERRIDE=0, TORCH_ALLOW_TF32_CUBLAS_OVERRIDE unset)")
    try:
        set_lang("zh")
        assert bench_cmd._tf32_text(s) == s.describe(tr)
        assert s.describe(tr).startswith("关闭（")
    finally:
        set_lang("en")
    assert "describe(tr)" in inspect.getsource(bench_cmd._tf32_text)
    assert "1e9" not in inspect.getsource(feedback)


# 5. migrate/libraries ---------------------------------------------------------------------------------------------


def test_unknown_library_source_names_row_and_field(tmp_path: Path) -> None:
    from suanli.migrate.libraries import load_libraries

    (tmp_path / "libraries.yaml").write_text(
        "sources:\n  - {id: s1, title: t, url: 'https://example.org', date: 2026-01-01}\n"
        "libraries:\n  - {id: bitsandbytes, names: [bitsandbytes], status: none, message: m, message_zh: m,"
        " sources: [s1, nope]}\n",
        encoding="utf-8")
    with pytest.raises(DataFileError) as e:
        load_libraries(tmp_path)
    assert e.value.row == "bitsandbytes" and e.value.field == "sources", (e.value.row, e.value.field, str(e.value))
