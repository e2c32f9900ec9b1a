"""Every unit constant lives here. GB and GiB are never mixed: GB = 1e9 bytes, GiB = 2**30 bytes."""

from __future__ import annotations

KB = 1e3
MB = 1e6
GB = 1e9
TB = 1e12
KiB = 2**10
MiB = 2**20
GiB = 2**30
TFLOPS = 1e12  # floating-point operations per second
SECONDS_PER_HOUR = 3600.0
HOURS_PER_DAY = 24.0
HOURS_PER_WEEK = 24.0 * 7
HOURS_PER_YEAR = 24.0 * 365
# A billing month is a calendar month: a monthly subscription runs to the same day of the next month (Huawei Cloud,
# "统一到期日 … 到期日统一至每个月的同一天", https://support.huaweicloud.com/api-oce/api_order_00031.html, 2025-11-27),
# so 12 monthly bills hold a card for a year; in hours the mean calendar month, 365 / 12 days = 730 h
# (was 30 days = 720 h: 8,760 h then billed 13 months).
HOURS_PER_MONTH = HOURS_PER_YEAR / 12

# Hours in one billing unit (`Offer.billing_unit`): the one table billing and card-hour prices read.
UNIT_HOURS = {
    "second": 1 / SECONDS_PER_HOUR,
    "minute": 1 / 60,
    "hour": 1.0,
    "day": HOURS_PER_DAY,
    "week": HOURS_PER_WEEK,
    "month": HOURS_PER_MONTH,
    "year": HOURS_PER_YEAR,
}

# Bytes per parameter of each precision: `estimate.precision.weight_bytes_per_param` (one table, its bit widths).

#: lowest utilization (share of rented time in use) a cost answer takes: below it tokens × 3600 × utilization
#: underflows to 0 (issue 14); `suanli tco`, `suanli rent-vs-buy` and their API bodies share it
MIN_UTILIZATION = 1e-3


def gib(n_bytes: float) -> float:
    return n_bytes / GiB


def gb(n_bytes: float) -> float:
    return n_bytes / GB


# A count as people type it (buyer review C, F7: `--tokens 50M` and `5亿` were refused): K thousand, M million,
# B billion, T trillion, as English writes large counts (the short scale), and Chinese 万 (10^4), 亿 (10^8) and the
# everyday 百万 (10^6), 千万 (10^7) (现代汉语词典: 万 "十个千", 亿 "一万万"). Token counts; money has its own forms
# (`money_from_text`), hours keep plain numbers (`--hours 730`).
COUNT_SUFFIXES = {"K": 10**3, "M": 10**6, "B": 10**9, "T": 10**12, "万": 10**4, "百万": 10**6, "千万": 10**7,
                  "亿": 10**8}


def count_from_text(value: object) -> object:
    """A count as typed: "5e7", "50M", "1.5B", "2万", "5千万" or "5亿" (the letter's case aside, a space before the
    suffix allowed) as its float, exactly (decimal arithmetic: "1.15B" is 1,150,000,000); anything but text as it
    is, for the field's own check. Other text raises `errors.Invalid` with `error.v.count`, which lists the forms."""
    return _scaled(value, COUNT_SUFFIXES, "error.v.count")


# Money as Chinese buyers write it (buyer review 2026-12-02, task B.5: `--budget 2万` was refused): 千 (10^3),
# 万 (10^4), 亿 (10^8) and the everyday 百万 (10^6), 千万 (10^7), as for counts, and k/K thousand (English shorthand,
# "20k"); a leading ¥ and a trailing 元 are allowed. Not M/B (a buyer reads "1M" beside 百万 either way) nor "w"
# (pinyin shorthand for 万, undefined in writing): those are refused with the forms taken.
MONEY_SUFFIXES = {"K": 10**3, "千": 10**3, "万": 10**4, "百万": 10**6, "千万": 10**7, "亿": 10**8}


def money_from_text(value: object) -> object:
    """An amount of CNY as typed: "50000", "2万", "1.5万", "3千", "1亿", "20k", "¥2万" or "2万元" as its float, exactly;
    anything but text as it is, for the field's own check. Every money flag parses with it (`--budget`,
    `--monthly-spend`, `--saving`, `--card-price`, ...; the API takes numbers). Other text raises `errors.Invalid`
    with `error.v.money`, which lists the forms."""
    if isinstance(value, str):
        value = value.strip().removeprefix("¥").removeprefix("￥").removesuffix("元")
    return _scaled(value, MONEY_SUFFIXES, "error.v.money")


def _scaled(value: object, suffixes: dict[str, int], said_id: str) -> object:
    """`value` (text) as a number times its suffix's factor, exactly (decimal arithmetic); else `errors.Invalid`
    with message `said_id`."""
    if not isinstance(value, str):
        return value
    from decimal import Decimal, InvalidOperation

    text = value.strip()
    suffix = next((s for s in sorted(suffixes, key=len, reverse=True) if text.upper().endswith(s)), "")
    try:
        n = Decimal(text[:len(text) - len(suffix)].rstrip()) * suffixes.get(suffix, 1)
    except InvalidOperation:
        n = Decimal("NaN")
    if not n.is_finite():
        from suanli.errors import Invalid, echoed
        from suanli.i18n import Message

        said = Message(said_id, value=echoed(value))
        raise Invalid(said.render("en"), said)
    return float(n)
