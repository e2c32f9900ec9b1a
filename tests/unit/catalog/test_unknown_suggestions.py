"""Review 2026-12-01 (full-hB): suggestions named one device several times (h1 → h100, h100-sxm, h100-80gb: all
h100-sxm), matched one character anywhere (x → mlu370-x8 three ways; 0 → l20, h20, a10) and a vendor's name fell
back to the alphabetical list. Aliases now map to their ids, each suggested once; one character suggests nothing
(the known names instead); a vendor's name (English or Chinese) suggests that vendor's devices."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.catalog.schema import Catalog
from suanli.errors import NotFoundError, did_you_mean, shown_name, unknown_name


def _miss(cat: Catalog, name: str, kind: str = "gpu") -> NotFoundError:
    with pytest.raises(NotFoundError) as e:
        (lookup.accelerator if kind == "gpu" else lookup.model)(cat, name)
    return e.value


def test_aliases_are_one_device(cat: Catalog) -> None:
    e = _miss(cat, "h1")
    ids = {a.id for a in cat.accelerators}
    assert e.suggestions and set(e.suggestions) <= ids and len(e.suggestions) == len(set(e.suggestions))
    assert "h100-sxm" in e.suggestions


def test_model_aliases_are_one_model(cat: Catalog) -> None:
    e = _miss(cat, "r1-distill-qwen", "model")
    ids = {m.id for m in cat.models}
    assert e.suggestions and set(e.suggestions) <= ids and len(e.suggestions) == len(set(e.suggestions))


@pytest.mark.parametrize("name", ["x", "0", "q", "华"])
def test_one_character_suggests_nothing(cat: Catalog, name: str) -> None:
    e = _miss(cat, name)
    assert e.suggestions == [] and e.i18n is not None and e.i18n.id == "error.unknown_known"
    assert _miss(cat, name, "model").suggestions == []


@pytest.mark.parametrize(("name", "vendor"), [("华为", "huawei"), ("Huawei", "huawei"), ("英伟达", "nvidia"),
                                              ("寒武纪", "cambricon"), ("moore threads", "moore-threads")])
def test_a_vendor_name_suggests_its_devices(cat: Catalog, name: str, vendor: str) -> None:
    e = _miss(cat, name)
    mine = {a.id for a in cat.accelerators if a.vendor == vendor}
    assert e.suggestions and set(e.suggestions) <= mine and len(e.suggestions) <= 8, e.suggestions


def test_a_long_name_is_cut_and_not_compared() -> None:
    long = "h100" * 15_000
    assert did_you_mean(long, ["h100"]) == [] and did_you_mean("h100" * 50, ["h100"]) == []
    close, msg = unknown_name("gpu", long, ["h100", "a10"])
    assert close == [] and msg.params["name"] == repr("h100" * 20 + "…")
    assert shown_name("a" * 80) == "a" * 80 and shown_name("a" * 81) == "a" * 80 + "…"


def test_ids_suggest_each_device_once() -> None:
    to_id = {"h100": "h100-sxm", "h100-sxm": "h100-sxm", "h100-80gb": "h100-sxm", "h20": "h20"}
    assert did_you_mean("h10", list(to_id), ids=to_id) == ["h100-sxm", "h20"]
    assert did_you_mean("h10", to_id) == ["h100", "h20", "h100-sxm"]  # no ids: the names as they are


def test_a_name_that_begins_an_id_up_to_a_separator_comes_first() -> None:
    """Buyer review 2026-12-02: 'Qwen3-235B' suggested Qwen/Qwen3-32B before Qwen/Qwen3-235B-A22B; a name the typed
    one begins (after any org/, up to '-', '_' or '.') is meant before one that only looks alike. 'h10' begins no id
    at a separator (h100's next character is a digit), so difflib's order stands."""
    from suanli.errors import did_you_mean

    pool = ["Qwen/Qwen3-32B", "Qwen/Qwen3-8B", "Qwen/Qwen3-235B-A22B"]
    assert did_you_mean("Qwen3-235B", pool)[0] == "Qwen/Qwen3-235B-A22B"
    assert did_you_mean("qwen3-235b", ["qwen3-32b", "qwen3-235b-a22b"])[0] == "qwen3-235b-a22b"
    assert did_you_mean("h10", ["h20", "h100"])[0] == "h100"  # difflib's best, not a separator start
