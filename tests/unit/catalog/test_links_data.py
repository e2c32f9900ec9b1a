"""Checks on the interconnect data (data/catalog/links.yaml) that the multi-card scaling model uses.

These test the *data*: the file loads on its own, every accelerator resolves to an intra-node and an
inter-node link by the scaling model's rule (device > interconnect > `*`), no chosen bus bandwidth beats
the card's per-direction link spec, every value says where it came from, and the rows keep the order the
hardware has (NVSwitch > PCIe with P2P > host-staged PCIe).
"""

from __future__ import annotations

import typing

import pytest

from suanli.catalog.load import DATA_DIR, load_files, packaged_catalog
from suanli.catalog.schema import ASSUMED, Catalog, Interconnect, Link
from suanli.estimate.scaling import link_for

LINKS_FILE = DATA_DIR / "links.yaml"
SCOPES = ("intra-node", "inter-node")
INTERCONNECTS = set(typing.get_args(Interconnect)) | {"*"}


@pytest.fixture(scope="module")
def own() -> Catalog:
    """links.yaml alone: it must not depend on sources defined in other files."""
    return load_files([LINKS_FILE])


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return packaged_catalog()


def _links(c: Catalog) -> dict[str, Link]:
    return {x.id: x for x in c.links}


def test_file_loads_alone_and_prefixes_ids(own: Catalog) -> None:
    assert own.links, "links.yaml has no rows"
    assert all(x.id.startswith("link-") for x in own.links)
    assert all(s.startswith("link-") for s in own.sources)


def test_every_value_is_sourced_with_a_note(own: Catalog) -> None:
    for link in own.links:
        for field in ("bus_gb_per_s", "latency_us"):
            for v in getattr(link, field).values:
                assert v.source == ASSUMED or v.source in own.sources, (link.id, field, v.source)
                assert v.note, f"{link.id}.{field}: say which measurement, size or derivation ({v.source})"
                assert v.value > 0, (link.id, field)


def test_rows_are_well_formed(own: Catalog, cat: Catalog) -> None:
    acc_ids = {a.id for a in cat.accelerators}
    for link in own.links:
        assert link.interconnect in INTERCONNECTS, (link.id, link.interconnect)
        if link.device is not None:
            assert link.device in acc_ids, f"{link.id}: unknown device {link.device!r}"
            assert link.interconnect == "*", f"{link.id}: a device row matches by device only"


def test_one_fallback_per_scope_and_no_ambiguous_rows(own: Catalog) -> None:
    for scope in SCOPES:
        rows = [x for x in own.links if x.scope == scope]
        fallbacks = [x.id for x in rows if x.device is None and x.interconnect == "*"]
        assert len(fallbacks) == 1, f"{scope}: need exactly one '*' row, got {fallbacks}"
        keys = [(x.device, x.interconnect) for x in rows]
        assert len(keys) == len(set(keys)), f"{scope}: two rows match the same devices; the first would win"


@pytest.mark.parametrize("scope", SCOPES)
def test_every_accelerator_resolves(cat: Catalog, scope: str) -> None:
    for acc in cat.accelerators:
        link = link_for(cat, acc, scope)
        assert link.scope == scope
        assert link.device in (None, acc.id)
        assert link.interconnect in ("*", acc.interconnect)


def test_most_specific_row_wins(cat: Catalog) -> None:
    by_id = {a.id: a for a in cat.accelerators}
    expect = {
        "h100-sxm": "link-intra-h100-sxm",  # device row
        "rtx-4090": "link-intra-none",  # interconnect row (no P2P)
        "l40s": "link-intra-pcie",
        "ascend-910b2": "link-intra-hccs",
        "ascend-910b4": "link-intra-ascend-910b4",
        "metax-c500": "link-intra-fallback",  # no MetaXLink data: '*'
    }
    for acc_id, link_id in expect.items():
        assert link_for(cat, by_id[acc_id], "intra-node").id == link_id, acc_id
    assert link_for(cat, by_id["h200"], "inter-node").id == "link-inter-ib-ndr-8x400"
    assert link_for(cat, by_id["a10"], "inter-node").id == "link-inter-fallback"


def test_bus_bandwidth_within_link_spec(cat: Catalog) -> None:
    """Ring busBW cannot beat the per-direction line rate (interconnect_gb_per_s is bidirectional)."""
    checked = 0
    for acc in cat.accelerators:
        spec = acc.specs.interconnect_gb_per_s
        if spec is None:
            continue
        link = link_for(cat, acc, "intra-node")
        assert link.bus_gb_per_s.value <= spec.value / 2, (
            f"{acc.id}: {link.id} busBW {link.bus_gb_per_s.value} > {spec.value}/2 GB/s"
        )
        checked += 1
    assert checked >= 10, "too few accelerators carry an interconnect spec for this check to mean anything"


def test_hardware_order(cat: Catalog) -> None:
    links = _links(cat)
    bw = {k: v.bus_gb_per_s.value for k, v in links.items()}
    lat = {k: v.latency_us.value for k, v in links.items()}
    kind = {a.id: a.interconnect for a in cat.accelerators}
    nvswitch = [
        bw[x.id] for x in cat.links
        if x.scope == "intra-node" and "nvswitch" in (x.interconnect, kind.get(x.device or ""))
    ]
    assert len(nvswitch) >= 8
    assert min(nvswitch) > bw["link-intra-pcie"] > bw["link-intra-none"]
    order = ["link-intra-b200", "link-intra-h100-sxm", "link-intra-a100-80g", "link-intra-h800"]
    assert [bw[k] for k in order] == sorted((bw[k] for k in order), reverse=True)
    assert lat["link-intra-h100-sxm"] < lat["link-intra-pcie"] < lat["link-intra-none"]
    # A node boundary never speeds a collective up.
    for x in cat.links:
        if x.scope == "inter-node":
            assert x.latency_us.value >= lat["link-intra-h100-sxm"], x.id
    assert bw["link-inter-fallback"] > bw["link-inter-consumer-25gbe"]
