"""Names people type find the device and the vendor: no-space, spaced, full-width, with a company name in
front, Chinese vendor names; a miss still says "Did you mean"."""

from __future__ import annotations

from collections import Counter

import pytest

from suanli.catalog import lookup
from suanli.catalog.load import packaged_catalog
from suanli.errors import NotFoundError

CAT = packaged_catalog()


@pytest.mark.parametrize(("typed", "device"), [
    ("rtx4090", "rtx-4090"), ("RTX 4090", "rtx-4090"), ("4090 D", "rtx-4090d"), ("4090D", "rtx-4090d"),
    ("rtx 4090d", "rtx-4090d"), ("英伟达H100", "h100-sxm"), ("英伟达 H100", "h100-sxm"), ("NVIDIA H100", "h100-sxm"),
    ("nvidia geforce rtx 5090", "rtx-5090"), ("ＲＴＸ４０９０", "rtx-4090"), ("H100 PCIe", "h100-pcie"),
    ("a100 80g", "a100-80g"), ("华为910B", "ascend-910b"), ("华为 昇腾910B", "ascend-910b"), ("Ascend 910B", "ascend-910b"),
    ("昇腾 910B2", "ascend-910b2"), ("海光 K100", "hygon-k100"), ("海光K100_AI", "hygon-k100-ai"),
    ("寒武纪 MLU590", "mlu590"), ("沐曦C500", "metax-c500"), ("摩尔线程 S4000", "mtt-s4000"),
    ("昆仑芯 P800", "kunlunxin-p800"), ("Huawei Ascend 910B", "ascend-910b"),
])
def test_typed_device_names(typed: str, device: str) -> None:
    assert lookup.accelerator(CAT, typed).id == device


def test_compact_names_do_not_collide() -> None:
    counts = Counter(k for a in CAT.accelerators for k in {lookup.compact(n) for n in (a.id, *a.aliases, a.name)})
    assert [k for k, n in counts.items() if n > 1] == []


def test_company_name_alone_is_not_a_device() -> None:
    with pytest.raises(NotFoundError):
        lookup.accelerator(CAT, "英伟达")


@pytest.mark.parametrize(("typed", "vendor"), [
    ("nvidia", "nvidia"), ("NVIDIA", "nvidia"), ("英伟达", "nvidia"), ("华为", "huawei"), ("Huawei", "huawei"),
    ("海光", "hygon"), ("寒武纪", "cambricon"), ("沐曦", "metax"), ("摩尔线程", "moore-threads"),
    ("Moore Threads", "moore-threads"), ("moore_threads", "moore-threads"), ("昆仑芯", "kunlunxin"), ("Kunlun", "kunlunxin"),
])
def test_vendor_names(typed: str, vendor: str) -> None:
    assert lookup.vendor(CAT, typed) == vendor


def test_every_vendor_alias_points_at_a_catalog_vendor() -> None:
    vendors = {a.vendor for a in CAT.accelerators}
    assert set(lookup.VENDOR_ALIASES.values()) <= vendors
    assert all(lookup.vendor(CAT, v) == v for v in vendors)


def test_unknown_vendor_suggests() -> None:
    with pytest.raises(NotFoundError, match="Did you mean: huawei"):
        lookup.vendor(CAT, "huawai")
