"""What `suanli compare` and `suanli rent-vs-buy` print (a buyer's review, 2026-11-30): compare names each row's
layout; rent-vs-buy prices a year from the cheapest way to rent a card for 8,760 h, names the offer and billing
unit, and says in words what a blank or zero would hide."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "220"})


def test_compare_prints_the_layout_per_row() -> None:
    out = _run("compare", "--model", "qwen2.5-72b", "--gpu", "h20", "--gpu", "h200", "--gpus", "8")
    assert out.returncode == 0, out.stderr
    assert "layout" in out.stdout
    # one label rule: every row names its device as plans do (review 4)
    rows = [line for line in out.stdout.splitlines() if line.startswith(("NVIDIA H20 96GB ", "NVIDIA H200 SXM 141GB "))]
    # a fit within the known memory error says "fits (tight)" as plan warns (buyer regression 4)
    assert len(rows) == 2 and all(re.search(r" \d+×tp\d+ b\d+ ", r) and (" yes " in r or "fits (tight)" in r)
                                  for r in rows), out.stdout  # plan's layout label (plan.labels.serving_label)


def _rvb(gpu: str, *extra: str) -> dict:  # type: ignore[type-arg]
    out = _run("rent-vs-buy", "--gpu", gpu, "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_rent_vs_buy_names_the_offer_unit_server_share_and_break_even() -> None:
    l20 = _rvb("l20", "--server-share", "0")  # no server in the catalog: the buyer's share (here none) is needed
    assert l20["rent_billing_unit"] == "month" and l20["rent_offer"]["offer"] in l20["rent_from"]
    assert "billed per month" in l20["rent_from"] and "12 months" in l20["rent_from"]
    assert l20["rent_cny_per_year_full_use"] == l20["rent_cny_per_card_year"] < 100_000  # not the hourly ¥137,707
    assert l20["server_share_cny"] == 0 and l20["server_share_note"].startswith("¥0 per card, as given")
    refused = _run("rent-vs-buy", "--gpu", "l20")  # no buy verdict on the card alone (task F 2026-12-01)
    assert refused.returncode != 0 and "--server-share" in refused.stderr and "cheaper" not in refused.stdout
    h800 = _rvb("h800")  # only 8-card server prices: the card figure includes the server
    assert h800["server_share_cny"] == 0 and h800["server_share_note"].startswith("included")
    npu = _rvb("910b")
    assert npu["break_even_utilization"] is None and npu["break_even_note"].startswith("buying never pays off")
    assert _rvb("l20", "--rent-price", "3", "--server-share", "0")["rent_from"] == "--rent-price"
    text = _run("rent-vs-buy", "--gpu", "910b")
    assert "buying never pays off" in text.stdout and "billed per month" in text.stdout
    assert "¥0 server share" not in _run("rent-vs-buy", "--gpu", "l20", "--server-share", "0").stdout


def test_rent_vs_buy_without_a_listing_names_the_kinds_there_are() -> None:
    # the H100: purchase prices, no Chinese listing (the H20 was this example until offers-7.yaml listed it)
    out = _run("rent-vs-buy", "--gpu", "h100", "--region", "cn")
    assert out.returncode != 0 and "hourly" not in out.stderr
    assert "index (cn)" in out.stderr and "--offer-kinds" in out.stderr
    wide = _rvb("h100", "--offer-kinds", "listing,index")
    assert wide["rent_offer"]["kind"] == "index" and "index" in wide["rent_from"]


def test_rent_vs_buy_without_a_tdp_asks_for_it_instead_of_counting_no_power() -> None:
    out = _run("rent-vs-buy", "--gpu", "k100", "--rent-price", "5", "--server-share", "0")  # a purchase price, no TDP in the catalog
    assert out.returncode != 0 and "--tdp-w" in out.stderr and "Traceback" not in out.stderr
    given = _rvb("k100", "--rent-price", "5", "--tdp-w", "400", "--server-share", "0")
    assert given["power_cny_per_year_full_use"] > 0
    base = _rvb("l20", "--rent-price", "3", "--server-share", "0")
    assert _rvb("l20", "--rent-price", "3", "--tdp-w", "0", "--server-share", "0")["power_cny_per_year_full_use"] == 0
    assert base["power_cny_per_year_full_use"] > 0
