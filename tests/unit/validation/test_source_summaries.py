"""`suanli validate --by-source`: out-of-sample error per group and source, with its sign."""

from __future__ import annotations

from suanli.validate.report import CaseResult, source_summaries


def _case(i: int, source: str, err: float | None, sample: str = "out", group: str = "decode-speed") -> CaseResult:
    return CaseResult(id=f"c{i}", group=group, source=source, metric="tokens_per_s", measured=100.0,
                      default=None if err is None else 100.0 * (1 + err), seed=None, default_error=err,
                      seed_error=None, sample=sample)  # type: ignore[arg-type]


def test_per_source_median_sign_and_order() -> None:
    results = [_case(1, "a", 0.5), _case(2, "a", 0.3), _case(3, "a", -0.1),
               _case(4, "b", -0.2), _case(5, "b", None),
               _case(6, "c", 9.0, sample="in"),  # in-sample: not counted
               _case(7, "a", 0.1, group="prefill-speed")]
    rows = source_summaries(results)
    assert [(r.group, r.source, r.cases) for r in rows] == [
        ("decode-speed", "a", 3), ("decode-speed", "b", 1), ("prefill-speed", "a", 1)]
    a = rows[0]
    assert abs(a.median_abs_pct - 30.0) < 1e-9 and abs(a.median_signed_pct - 30.0) < 1e-9
    assert abs(rows[1].median_signed_pct + 20.0) < 1e-9


def test_packaged_cases_cover_every_out_of_sample_case() -> None:
    from suanli.catalog.load import packaged_catalog
    from suanli.validate.report import run_validation

    results, _ = run_validation(packaged_catalog())
    rows = source_summaries(results)
    out = [r for r in results if r.sample == "out" and r.default_error is not None]
    assert sum(r.cases for r in rows) == len(out)
