"""Catalog data in Chinese output: the rows a README `suanli …` command prints in zh carry their Chinese twins
(`note_zh`, `notes_zh`, `china_market_zh`, `interconnect_name_zh`, `provider_zh`, fused `replaces_zh`, caveats
`general_zh`), the zh renderers show them (cli.output.display_note, i18n.localize for the API), and English output
and JSON are unchanged."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.i18n import localize
from suanli.migrate.coverage import load_caveats, load_fused

from .test_cli_zh import _en, _zh
from .test_messages import _LATIN_WORD, _NAMES

# three or more English words in a row (the measure of /tmp/zh3/readme_zh.py)
_SENTENCE = re.compile(r"(?<![\w/.-])\(?[A-Za-z][a-z'’]+[,:;.)]?(?: \(?[A-Za-z][a-z'’]*[,:;.)]?(?![\w/-])){2,}")
# the accelerators README commands print field by field (`suanli gpu h100-sxm`, `suanli gpu 910b`)
SHOWN_GPUS = ("h100-sxm", "ascend-910b")
# Latin words a Chinese reader sees in these notes that are names (articles, tools, sites), not English
_DATA_NAMES = {"davinci", "hopper", "HAMi", "AutoDL", "jishuzhan", "boardor", "oryoy", "zdldcl", "awesomeagents",
               "matmul", "Cube", "HBM2e", "HBM3", "NVSwitch", "CUDA", "NVIDIA", "CANN", "HCCS", "ascend", "perf",
               "model", "seed", "nvidia", "datasheet", "hopper", "depth", "acc", "derived", "gitee", "clusters",
               "intra_node_bandwidth", "Ascend", "Core"}  # AI Core: Huawei's name for its compute unit


def _latin_words(text: str) -> list[str]:
    """Latin words of `text` outside quotes, ids and names (test_messages' check, applied to output)."""
    text = re.sub(r"“[^”]*”|'[^']*'|\([a-z0-9-]+\)", "", text)  # quotes of sources, (source-id)
    words = _LATIN_WORD.findall(re.sub(r"\S*[\d/_.+-]\S*", "", text))  # ids, numbers, paths
    return [w for w in words if w not in _NAMES and w not in _DATA_NAMES and not w.isupper()]


@pytest.mark.parametrize("device", SHOWN_GPUS)
def test_shown_accelerators_have_chinese_twins(device: str) -> None:
    a = next(x for x in packaged_catalog().accelerators if x.id == device)
    missing = [f for f, alt in a.specs if alt is not None for v in alt.values if v.note and not v.note_zh]
    assert missing == []
    assert a.china_market is not None and a.china_market_zh  # both shown devices state their China market
    assert len(a.notes_zh) == len(a.notes)
    assert not (a.interconnect_name and _SENTENCE.search(a.interconnect_name)) or a.interconnect_name_zh



def test_every_china_market_note_has_its_chinese_twin() -> None:
    """The notes on china_market values (a10, b200, … carry them) are shown in zh output: each has its `note_zh`."""
    noted = [(a.id, v) for a in packaged_catalog().accelerators if a.china_market is not None
             for v in a.china_market.values if v.note]
    assert noted, "no china_market value carries a note: this test would check nothing"
    assert [(i, v.source) for i, v in noted if not v.note_zh] == []

def test_english_providers_and_unpriced_notes_have_chinese() -> None:
    cat = packaged_catalog()
    assert [o.id for o in cat.offers if _SENTENCE.search(o.provider) and not o.provider_zh] == []
    assert [(u.device, u.missing) for u in cat.unpriced if not u.note_zh] == []


def test_migrate_data_has_chinese() -> None:
    assert [f.id for f in load_fused() if not f.replaces_zh] == []
    cav = load_caveats()
    assert len(cav.general_zh) == len(cav.general)


@pytest.mark.parametrize("device", ["910b", "h100-sxm"])
def test_gpu_zh_has_no_english_sentence(device: str) -> None:
    out = _zh("gpu", device)
    assert _SENTENCE.findall(out) == []
    assert _latin_words(out) == []
    assert "HCCS（8 卡全互联）" in _zh("gpu", "910b")


# the devices Chinese buyers look at most (buyer review 4); every device below is held to the same rule
BUYER_GPUS = ("h20", "h20-141g", "h200", "h100-sxm", "h800", "a800", "a100-80g", "rtx-4090", "rtx-4090d", "rtx-3090",
              "l20", "l40s", "ascend-910b", "ascend-910b1", "ascend-910b2", "ascend-910b3", "ascend-910b4")
# every accelerator in the catalog (`suanli gpus`)
ALL_GPUS = tuple(a.id for a in packaged_catalog().accelerators)
# names in those notes: sites, engines, libraries, product lines, architecture families, and the `assumed` source id
_BUYER_NAMES = {"DeepEP", "Hopper", "SGLang", "willitrunai", "glennklockwood", "ampere", "Ampere", "GeForce", "PyTorch",
                "Gbps", "evertiq", "hardwaretimes", "Hardware", "assumed",
                "CloudMatrix", "DigiTimes", "openi", "Neuware", "FlagPerf", "FastDeploy", "MTLink", "Link", "kunlun",
                "Blackwell", "blackwell", "cnmon"}


def test_all_gpus_cover_the_buyer_gpus() -> None:
    assert set(BUYER_GPUS) <= set(ALL_GPUS) and len(ALL_GPUS) >= 32


@pytest.mark.parametrize("device", ALL_GPUS)
def test_every_gpu_zh_has_no_english_sentence(device: str) -> None:
    """`suanli --lang zh gpu <id>` prints no English sentence for any device: each note, notes list, china_market
    and sentence-like interconnect name has its Chinese twin. The product name stays as the vendor writes it
    (name_zh is only the vendor's own Chinese name), so it is left out of the check."""
    test_shown_accelerators_have_chinese_twins(device)
    name = next(a.name for a in packaged_catalog().accelerators if a.id == device)
    out = _zh("gpu", device).replace(name, "", 1)
    assert _SENTENCE.findall(out) == []
    assert [w for w in _latin_words(out) if w not in _BUYER_NAMES] == []


def test_offers_and_costs_zh_show_chinese_providers() -> None:
    out = _zh("offers", "--stale")
    assert "市场行情（业内消息，cnBeta）" in out and "market (industry" not in out
    out = _zh("offers", "--device", "rtx-4090", "--billing-unit", "hour")
    assert "国内没有公开的多机 RTX 4090 租用" in out
    out = _zh("tco", "--gpu", "h100", "--gpus", "8", "--hours", "40", "--offer-kinds", "all")
    assert "market (industry" not in out and "市场行情（业内消息，cnBeta）" in out


def test_english_output_and_json_unchanged() -> None:
    out = _en("gpu", "910b")
    assert "HCCS (8-card full mesh)" in out and "not corroborated by any other source" in out
    d = json.loads(_en("gpu", "910b", "--json"))
    assert not any(k.endswith("_zh") and k != "name_zh" for k in d)
    assert "note_zh" not in json.dumps(d)
    assert "market (industry sources, cnBeta)" in _en("offers", "--stale")
    rows = json.loads(_en("offers", "--stale", "--json"))
    assert all("provider_zh" not in r for r in rows)


def test_localize_uses_chinese_twins() -> None:
    d: dict[str, Any] = {"note": "a", "note_zh": "甲", "notes": ["x", "y"], "notes_zh": ["乙", ""], "name": "n",
                         "name_zh": "名", "inner": [{"value": "v", "value_zh": "值"}]}
    assert localize(d, "en") == d  # English: the same content (its twins kept, nothing to render)
    assert localize(d, "zh") == {"note": "甲", "notes": ["乙", "y"], "name": "n", "name_zh": "名",
                                 "inner": [{"value": "值"}]}


def test_api_accelerator_in_chinese() -> None:
    pytest.importorskip("fastapi", reason="the API is the optional `service` extra; `make test` installs it, so CI runs this")
    from fastapi.testclient import TestClient

    from suanli.api import Settings, create_app

    c = TestClient(create_app(Settings(database_url="sqlite:///:memory:", api_token=None)))
    zh = c.get("/api/accelerators/910b?lang=zh").json()
    en = c.get("/api/accelerators/910b").json()
    assert zh["interconnect_name"] == "HCCS（8 卡全互联）" and en["interconnect_name"] == "HCCS (8-card full mesh)"
    assert zh["china_market"]["value"].startswith("国产（信创）")
    assert zh["specs"]["tdp_w"]["note"].startswith("通用名 910B")
    assert not any(k.endswith("_zh") and k != "name_zh" for k in zh)


# the stack fields whose chosen value's note a Chinese sentence prints: the refusals (capability._source: fp8,
# qlora_4bit) and the NF4 warning (capability.nf4_speed_warning: nf4_kernel)
STACK_NOTE_FIELDS = ("fp8", "qlora_4bit", "nf4_kernel")


def test_stack_note_fields_are_those_capability_prints() -> None:
    """The field list above is every stack field whose note capability.py passes into a message."""
    import inspect
    import suanli.estimate.capability as cap

    src = inspect.getsource(cap)
    printed = set(re.findall(r'_source\(stack, "(\w+)"\)', src)) | set(re.findall(r"stack\.(\w+)\.chosen", src))
    assert printed == set(STACK_NOTE_FIELDS)


def test_stack_capability_notes_have_chinese_twins() -> None:
    """Every value (chosen or not: a catalog edit may change the default) of a printed stack field that has a note
    has its note_zh, so no Chinese refusal or warning quotes English (buyer review 2026-12-01 item 6)."""
    rows = [(s.id, f, v.source) for s in packaged_catalog().stacks for f in STACK_NOTE_FIELDS
            if getattr(s, f) is not None for v in getattr(s, f).values if v.note]
    assert rows, "no stack capability carries a note: this test would check nothing"
    missing = [(s.id, f, v.source) for s in packaged_catalog().stacks for f in STACK_NOTE_FIELDS
               if getattr(s, f) is not None for v in getattr(s, f).values if v.note and not v.note_zh]
    assert missing == []


def test_adapted_lists_have_chinese_names() -> None:
    assert [(s.id, a.name) for s in packaged_catalog().stacks for a in s.adapted_lists if not a.name_zh] == []
