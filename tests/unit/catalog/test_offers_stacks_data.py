"""Data checks for offers.yaml (rental offers, purchases) and stacks.yaml (software stacks).

The seed articles' prices are pinned here with their source: if a price, unit or card count drifts
in the data file, a test names it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from suanli.catalog.load import DATA_DIR, load_catalog
from suanli.catalog.schema import ASSUMED, Catalog, Offer, SoftwareStack

OFFERS_FILE = DATA_DIR / "offers.yaml"
STACKS_FILE = DATA_DIR / "stacks.yaml"

DOMESTIC_STACKS = ("cann", "dtk", "neuware", "maca", "xpu", "musa")
ALL_STACKS = ("cuda", *DOMESTIC_STACKS)
HF_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")

# (device, cards, billing_unit, price_cny, price_cny_max, source, whole_machine_only)
OfferRow = tuple[str, int, str, float, float | None, str, bool]
# (item, device, price_cny, price_cny_max, source)
PurchaseRow = tuple[str, str, float, float | None, str]

SEED_OFFERS: list[OfferRow] = [
    ("rtx-4090", 1, "hour", 2.45, None, "seed-000", False),
    ("rtx-4090", 8, "month", 7920, None, "seed-000", False),
    ("h100-sxm", 8, "month", 84480, None, "seed-000", True),
    ("ascend-910b", 1, "hour", 4.47, None, "seed-000", False),
    ("ascend-910b", 8, "month", 15600, None, "seed-000", False),
    ("a100-80g", 8, "month", 60000, 70000, "seed-000", False),
    ("ascend-910b", 8, "month", 25000, None, "seed-003", False),
]
SEED_PURCHASES: list[PurchaseRow] = [
    ("card", "rtx-4090", 13000, None, "seed-000"),
    ("server", "rtx-4090", 30000, 40000, "seed-000"),
]


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


def _stack(cat: Catalog, sid: str) -> SoftwareStack:
    found = [s for s in cat.stacks if s.id == sid]
    assert found, f"stack {sid!r} missing"
    return found[0]


def _offer_matches(o: Offer, row: OfferRow) -> bool:
    device, cards, unit, price, price_max, source, whole = row
    if (o.device, o.cards, o.billing_unit, o.source, o.whole_machine_only) != (device, cards, unit, source, whole):
        return False
    if o.price_cny.value != pytest.approx(price) or o.price_cny.chosen.source != source:
        return False
    if price_max is None:
        return o.price_cny_max is None
    return o.price_cny_max is not None and o.price_cny_max.value == pytest.approx(price_max)


# ---------------------------------------------------------------- files


def test_stacks_example_file_is_gone() -> None:
    assert not (DATA_DIR / "stacks-example.yaml").exists()


def test_files_parse_and_every_source_id_is_defined_once() -> None:
    ids: list[str] = []
    for f in (OFFERS_FILE, STACKS_FILE):
        doc = yaml.safe_load(Path(f).read_text(encoding="utf-8"))
        ids += [s["id"] for s in doc.get("sources", [])]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------- offers


def test_every_offer_price_is_positive_and_max_not_below_min(cat: Catalog) -> None:
    assert len(cat.offers) >= 20
    for o in cat.offers:
        for v in o.price_cny.values:
            assert v.value > 0, o.id
        if o.price_cny_max is not None:
            assert o.price_cny_max.value >= o.price_cny.value, o.id


def test_whole_machine_offers_have_a_whole_machine_or_say_why(cat: Catalog) -> None:
    whole = [o for o in cat.offers if o.whole_machine_only]
    assert whole, "the seeds' H100 is whole-machine only"
    for o in whole:
        assert o.cards >= 8 or o.note, o.id


@pytest.mark.parametrize("row", SEED_OFFERS, ids=lambda r: f"{r[0]}-{r[1]}x-{r[2]}-{r[3]}-{r[5]}")
def test_every_seed_price_is_present_with_its_seed_source(cat: Catalog, row: OfferRow) -> None:
    assert any(_offer_matches(o, row) for o in cat.offers), f"seed price {row} missing or changed"


def test_the_seed_matcher_rejects_a_wrong_price(cat: Catalog) -> None:
    wrong: OfferRow = ("rtx-4090", 1, "hour", 2.46, None, "seed-000", False)
    assert not any(_offer_matches(o, wrong) for o in cat.offers)


@pytest.mark.parametrize("row", SEED_PURCHASES, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_every_seed_purchase_is_present(cat: Catalog, row: PurchaseRow) -> None:
    item, device, price, price_max, source = row
    hits = [
        p for p in cat.purchases
        if (p.item, p.device, p.source) == (item, device, source) and p.price_cny.value == pytest.approx(price)
    ]
    assert hits, f"seed purchase {row} missing"
    if price_max is not None:
        assert hits[0].price_cny_max is not None and hits[0].price_cny_max.value == pytest.approx(price_max)


def test_the_4090d_launch_price_is_present(cat: Catalog) -> None:
    assert any(p.device == "rtx-4090d" and p.price_cny.value == 12999 for p in cat.purchases)


def test_every_device_priced_in_the_seeds_has_an_offer(cat: Catalog) -> None:
    priced = {o.device for o in cat.offers}
    for device in ("rtx-4090", "h100-sxm", "ascend-910b", "a100-80g"):
        assert device in priced, device


def test_offer_devices_are_catalog_accelerators(cat: Catalog) -> None:
    acc = {a.id for a in cat.accelerators}
    assert {o.device for o in cat.offers} <= acc
    assert {p.device for p in cat.purchases if p.device} <= acc


_USD = re.compile(r"original \$([0-9.]+) per [^;]*?; converted at ([0-9.]+) CNY/USD")
_USD_ANY = re.compile(r"original: \$([0-9.]+) per GPU-hour.*?converted at ([0-9.]+) CNY/USD")


def test_usd_prices_are_converted_at_the_cited_rate(cat: Catalog) -> None:
    converted = 0
    for o in cat.offers:
        note = o.price_cny.chosen.note or ""
        if "$" not in note:
            continue
        m = _USD.search(note) or _USD_ANY.search(note)
        assert m, f"{o.id}: a USD price must state 'original $X ...; converted at R CNY/USD'"
        assert "fx-usdcny-alphadojo" in note, f"{o.id}: the exchange-rate source must be named"
        usd, rate = float(m.group(1)), float(m.group(2))
        assert o.price_cny.value == pytest.approx(usd * rate, abs=0.01), o.id
        converted += 1
    assert converted >= 5
    assert cat.sources["fx-usdcny-alphadojo"].kind in ("price-list", "press")


def test_offer_ids_are_unique_and_lowercase(cat: Catalog) -> None:
    ids = [o.id for o in cat.offers] + [p.id for p in cat.purchases]
    assert len(ids) == len(set(ids))
    assert all(i == i.lower() for i in ids)


# ---------------------------------------------------------------- stacks


def test_all_stacks_exist(cat: Catalog) -> None:
    assert {s.id for s in cat.stacks} >= set(ALL_STACKS)


@pytest.mark.parametrize("sid", DOMESTIC_STACKS)
def test_each_domestic_stack_has_migration_ranges(cat: Catalog, sid: str) -> None:
    s = _stack(cat, sid)
    for field in ("migration_weeks_adapted", "migration_weeks_unadapted", "migration_weeks_moe_multimodal"):
        rng = getattr(s, field)
        assert rng is not None, f"{sid}.{field}"
        for v in rng.values:
            low, high = v.value
            assert 0 < low <= high, f"{sid}.{field}"
            if v.source == ASSUMED:
                assert v.note


def test_migration_ranges_grow_with_difficulty(cat: Catalog) -> None:
    for sid in DOMESTIC_STACKS:
        s = _stack(cat, sid)
        assert s.migration_weeks_adapted is not None and s.migration_weeks_unadapted is not None
        assert s.migration_weeks_moe_multimodal is not None
        assert s.migration_weeks_adapted.value[1] <= s.migration_weeks_unadapted.value[1]
        assert s.migration_weeks_unadapted.value[1] <= s.migration_weeks_moe_multimodal.value[1]


def test_cann_migration_is_the_seeds_numbers(cat: Catalog) -> None:
    s = _stack(cat, "cann")
    assert s.migration_weeks_adapted is not None and s.migration_weeks_unadapted is not None
    assert s.migration_weeks_moe_multimodal is not None
    assert s.migration_weeks_adapted.value == (1, 2) and s.migration_weeks_adapted.chosen.source == "seed-000"
    assert s.migration_weeks_unadapted.value == (2, 4) and s.migration_weeks_unadapted.chosen.source == "seed-000"
    assert s.migration_weeks_moe_multimodal.value == (4, 8)
    assert s.migration_weeks_moe_multimodal.chosen.source == "seed-003"


def test_cann_adapted_lists_are_non_empty_and_union_is_adapted_models(cat: Catalog) -> None:
    s = _stack(cat, "cann")
    names = {lst.name.split()[0] for lst in s.adapted_lists}
    assert {"vLLM-Ascend", "MindSpeed-LLM", "MindIE-LLM"} <= names
    union: set[str] = set()
    for lst in s.adapted_lists:
        assert lst.models.value, lst.name
        assert lst.models.source in cat.sources
        union |= set(lst.models.value)
    assert set(s.adapted_models) == union
    assert len(s.adapted_models) == len(set(s.adapted_models))
    assert s.adapted_source in cat.sources


def test_adapted_model_ids_look_like_hugging_face_ids(cat: Catalog) -> None:
    for s in cat.stacks:
        for mid in s.adapted_models:
            assert HF_ID.match(mid), f"{s.id}: {mid!r}"


@pytest.mark.parametrize(
    "model_id",
    ["Qwen/Qwen2.5-7B-Instruct", "meta-llama/Llama-3.1-8B", "deepseek-ai/DeepSeek-V3", "THUDM/chatglm3-6b"],
)
def test_mainstream_presets_are_on_the_cann_list(cat: Catalog, model_id: str) -> None:
    assert model_id in _stack(cat, "cann").adapted_models


def test_a_model_missing_from_every_list_is_not_adapted(cat: Catalog) -> None:
    assert "Qwen/Qwen-1_8B" not in _stack(cat, "cann").adapted_models


def test_precision_facts(cat: Catalog) -> None:
    cuda, cann = _stack(cat, "cuda"), _stack(cat, "cann")
    assert cuda.fp8 is not None and cuda.fp8.value is True
    assert cann.fp8 is not None and cann.fp8.value is False
    assert cann.qlora_4bit is not None and cann.qlora_4bit.value is True
    assert cuda.cuda_compatible and not cann.cuda_compatible
    maca = _stack(cat, "maca")
    assert maca.fp8 is not None and maca.fp8.value is False


@pytest.mark.parametrize("sid", ALL_STACKS)
def test_runtime_overhead_is_sourced_and_small(cat: Catalog, sid: str) -> None:
    s = _stack(cat, sid)
    assert s.runtime_overhead_gib is not None
    for v in s.runtime_overhead_gib.values:
        assert 0 < v.value < 8, sid
        assert v.source == ASSUMED or v.source in cat.sources


def test_every_accelerator_stack_is_defined(cat: Catalog) -> None:
    assert {a.stack for a in cat.accelerators} <= {s.id for s in cat.stacks}
