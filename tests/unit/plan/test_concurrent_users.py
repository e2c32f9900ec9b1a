"""Concurrent users instead of a request rate (buyer review 2026-12-01): "50 users at 30 tokens/s each" becomes a
request rate by Little's law, L = λW (Little 1961, doi:10.1287/opre.9.3.383): each user keeps one request in the
system, which spends TTFT + output × TPOT there, so λ = users ÷ (TTFT + output × TPOT)."""

from __future__ import annotations

import pytest

from suanli.errors import InputError
from suanli.i18n import render
from suanli.plan.request import PlanRequest, make_request, rate_from_users

SERVE = {"model": "qwen2.5-7b", "task": "inference"}


def test_littles_law_by_hand() -> None:
    # 50 users, 30 tokens/s each (TPOT 1/30 s), 256 output tokens, 0.5 s TTFT: W = 0.5 + 256/30 = 9.0333 s
    assert rate_from_users(50, 256, 1 / 30, 0.5) == pytest.approx(50 / 9.033333, rel=1e-6)  # 5.535 req/s
    assert rate_from_users(50, 256, 1 / 30) == pytest.approx(50 * 30 / 256)  # no TTFT: 5.859 req/s
    # L = λW holds back: the rate times the time in the system is the number of users
    lam = rate_from_users(1234, 1000, 0.02, 2.0)
    assert lam * (2.0 + 1000 * 0.02) == pytest.approx(1234)


def test_request_derives_the_rate_and_round_trips() -> None:
    r = make_request(**SERVE, concurrent_users=50, tpot_s=1 / 30, ttft_s=0.5)
    assert r.requests_per_s == pytest.approx(5.535055, rel=1e-6)
    assert r.concurrent_users == 50
    back = PlanRequest.model_validate(r.model_dump(mode="json"))  # a saved plan's request reads back
    assert back.requests_per_s == r.requests_per_s
    # the same rate given by hand, or the output length changing it: a rate beside users must be theirs
    assert make_request(**SERVE, concurrent_users=50, tpot_s=1 / 30, ttft_s=0.5,
                        requests_per_s=r.requests_per_s).requests_per_s == r.requests_per_s
    assert make_request(**SERVE, concurrent_users=50, tpot_s=1 / 30, output=512).requests_per_s == \
        pytest.approx(50 * 30 / 512)


def test_rate_note_says_the_derived_rate() -> None:
    r = make_request(**SERVE, concurrent_users=50, tpot_s=1 / 30, ttft_s=0.5)
    en, zh = render(r.rate_note(), "en"), render(r.rate_note(), "zh", "web")  # type: ignore[arg-type]
    assert "50 users" in en and "5.535 requests/s" in en and "Little 1961" in en and "TTFT 500 ms" in en
    assert "每秒 5.535 个请求" in zh and "利特尔定律" in zh
    no_ttft = make_request(**SERVE, concurrent_users=50, tpot_s=1 / 30).rate_note()
    assert no_ttft is not None and "--ttft" in render(no_ttft, "en") and "“TTFT" in render(no_ttft, "zh", "web")
    assert make_request(**SERVE, requests_per_s=3).rate_note() is None  # a rate given: nothing derived


@pytest.mark.parametrize(("fields", "says"), [
    ({"concurrent_users": 50}, "needs tpot_s"),
    ({"concurrent_users": 50, "tpot_s": 0.03, "requests_per_s": 3}, "not both"),
    ({"concurrent_users": 0, "tpot_s": 0.03}, "greater than or equal to 1"),
    ({"concurrent_users": 10_000_000, "tpot_s": 1e-6, "output": 1}, "over the bound"),
    ({"task": "lora", "tokens": 1e6, "concurrent_users": 5, "tpot_s": 0.03}, "only be used when serving"),
])
def test_refusals_name_the_field(fields: dict[str, object], says: str) -> None:
    with pytest.raises(InputError) as e:
        make_request(**{**SERVE, **fields})
    assert e.value.field == "concurrent-users" and says in str(e.value)
