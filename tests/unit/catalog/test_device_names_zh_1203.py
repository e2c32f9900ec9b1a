"""A device's name on the Chinese page and in Chinese answers (`name_zh`, else `name`) carries no English words: the
RTX 4090 48GB read "NVIDIA GeForce RTX 4090 48GB (modified board)" in the zh catalog, plans and device lists
(buyer check 2026-12-02); its Chinese name says 魔改版, the market's word for a re-boarded card."""

from __future__ import annotations

import re

from suanli.catalog.load import packaged_catalog


def test_chinese_device_names_have_no_english_words() -> None:
    # an English word: three or more lower-case letters (product names are capitals and digits: RTX, SXM4, 910B, GB)
    words = {a.id: re.findall(r"\b[a-z]{3,}\b", a.name_zh or a.name) for a in packaged_catalog().accelerators}
    assert {k: v for k, v in words.items() if v} == {}


def test_the_modified_4090_says_so_in_chinese() -> None:
    a = next(a for a in packaged_catalog().accelerators if a.id == "rtx-4090-48g")
    assert a.name_zh == "NVIDIA GeForce RTX 4090 48GB（魔改版）" and "modified board" in a.name
