"""Error bands pinned for tests of plan's error rules, so they keep testing the rule when `suanli validate --write`
moves the packaged bands."""

from __future__ import annotations

# The decode-speed band as packaged on 2026-12-02 before that day's validate --write (out-of-sample median |error| 19.0 %,
# p90 94.7 %, signed +9.5 %; CUDA's own 19.0 / 88.1 / +9.4 %): tests of plan's decode error rule ("likely misses the TPOT
# target if the known decode-speed error holds", the TPOT margin that thins a rate first) pin it, so they keep testing
# the rule when the packaged band moves
DECODE_BAND_20261202 = {"median_abs_pct": 18.97442845277678, "p90_abs_pct": 94.70667973408786, "cases": 151,
                        "median_signed_pct": 9.548403167891992}
CUDA_DECODE_BAND_20261202 = {"median_abs_pct": 18.95544664015867, "p90_abs_pct": 88.08359114234891, "cases": 150,
                             "median_signed_pct": 9.365321689779346}

# The CANN stack's decode-speed band before vLLM-Ascend's per-step overhead was fitted (2026-12-02, vllm-ascend issue
# #904): its one out-of-sample case, vLLM-Ascend v0.7.3, +117.4 % too fast (+2.4 % since)
CANN_DECODE_BAND_20261202 = {"median_abs_pct": 117.39849318667773, "p90_abs_pct": 117.39849318667773, "cases": 1,
                             "median_signed_pct": 117.39849318667773}


def with_decode_band_20261202(bands: dict[str, object]) -> dict[str, object]:
    """`bands` (error bands by key) with the decode-speed bands at DECODE_BAND_20261202 / CUDA_DECODE_BAND_20261202 /
    CANN_DECODE_BAND_20261202."""
    out = dict(bands)
    for key, band in (("decode-speed", DECODE_BAND_20261202), ("holdout:decode-speed", DECODE_BAND_20261202),
                      ("stack:cuda:decode-speed", CUDA_DECODE_BAND_20261202),
                      ("stack:cann:decode-speed", CANN_DECODE_BAND_20261202)):
        out[key] = bands[key].model_copy(update=band)  # type: ignore[attr-defined]
    return out
