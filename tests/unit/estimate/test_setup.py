"""Set-up and interruption time (estimate/setup.py): Young's checkpoint interval over the measured interruption rate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model
from suanli.estimate.setup import job_setup, setup_hours, setup_terms


def test_young_interval_and_expected_lost_work() -> None:
    cat = packaged_catalog()
    s = job_setup(cat)
    t = setup_terms(cat, model(cat, "qwen2.5-72b"), "full", 0, 8.0)
    out = setup_hours(t, 114.0, 1.0, 8.0)
    write_h = t.checkpoint_bytes / t.write_bytes_per_s / 3600
    mtbf_h = s.gpu_hours_between_failures.value / 8
    assert out["checkpoint_interval_h"] == pytest.approx(math.sqrt(2 * write_h * mtbf_h))  # Young 1974
    assert out["checkpoints"] == math.ceil(114.0 / out["checkpoint_interval_h"])
    assert out["checkpoint_h"] == pytest.approx(out["checkpoints"] * write_h)
    assert out["interruptions"] == pytest.approx(114.0 / mtbf_h)
    assert out["lost_h"] == pytest.approx(out["interruptions"] * (out["checkpoint_interval_h"] / 2 + t.environment_h))
    assert out["total_h"] == pytest.approx(out["environment_h"] + out["download_h"] + out["checkpoint_h"] + out["lost_h"])
    # a 72B full fine-tune on one 8-card node spends ~1-2 % of its compute on checkpoints and interruptions, not a third
    assert out["checkpoint_h"] + out["lost_h"] < 0.02 * 114.0


def test_more_cards_fail_more_often_and_checkpoint_more() -> None:
    cat = packaged_catalog()
    t = setup_terms(cat, model(cat, "llama-3.1-70b"), "full", 0, 8.0)
    few = setup_hours(t, np.array([100.0]), np.array([1.0]), np.array([8.0]))
    many = setup_hours(t, np.array([100.0]), np.array([8.0]), np.array([64.0]))
    assert many["interruptions"][0] == pytest.approx(8 * few["interruptions"][0])
    assert many["checkpoint_interval_h"][0] < few["checkpoint_interval_h"][0]  # shorter MTBF, faster writes: both shrink
    assert setup_hours(t, 0.5, 1.0, 1.0)["checkpoints"] == 1.0  # the final checkpoint always


def test_download_at_the_offers_public_bandwidth() -> None:
    """A 140 GB model at 100 Mbit/s (SMM's H200 quote: '含100M独享带宽') downloads in 3.1 h; NaN or None is the
    catalog's assumed rate, so arrays of offers with and without a published bandwidth go through one call."""
    from suanli.estimate.setup import download_hours

    assert download_hours(140e9, 0.1) == pytest.approx(140e9 * 8 / 100e6 / 3600)
    assert download_hours(140e9, 0.1) == pytest.approx(3.11, abs=0.01)
    cat = packaged_catalog()
    t = setup_terms(cat, model(cat, "qwen2.5-72b"), "full", 0, 8.0)
    default = setup_hours(t, 10.0, 1.0, 8.0)
    assert default["download_h"] == pytest.approx(download_hours(t.download_bytes, job_setup(cat).download_gbit_per_s.value))
    slow = setup_hours(t, 10.0, 1.0, 8.0, 0.1)
    assert float(slow["download_h"]) == pytest.approx(float(default["download_h"]) * 10)  # 1 Gbit/s assumed
    assert float(slow["total_h"]) - float(default["total_h"]) == pytest.approx(float(slow["download_h"] - default["download_h"]))
    mixed = setup_hours(t, np.array([10.0, 10.0]), np.array([1.0, 1.0]), np.array([8.0, 8.0]), np.array([np.nan, 0.1]))
    assert mixed["download_h"] == pytest.approx([float(default["download_h"]), float(slow["download_h"])])
