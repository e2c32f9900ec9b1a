"""The page's verdict of `migrate check` (app.js renderCheck) for a library the catalog has no Ascend source for:
f004834 made that verdict `needs-check`, and the page showed it in the plain style of a clean npu-native verdict
(its colour map knew only npu-native, cpu-fallback and needs-port). Now it is amber (`warn`, as the CLI prints it
yellow) under its label in the page's language; a clean verdict stays plain. app.js runs in node (tests/page_js.py)
on the API's own answer (`migrate.check.check_answer`, localized as POST /api/migrate/check does)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from page_js import run_app_js  # tests/page_js.py

from suanli.catalog.load import packaged_catalog
from suanli.i18n import localize, messages
from suanli.migrate.check import check_answer
from suanli.migrate.coverage import AdaptedList, OpTrace, cann_stack, classify, load_op_list
from suanli.migrate.libraries import from_config

_RENDER = r"""
lang = DATA.lang; await loadMessages(lang);
renderCheck(DATA.answer);
console.log(JSON.stringify({html: $("#mig-check").innerHTML}));
"""


def _answer(lang: str, quant_method: str | None) -> dict[str, Any]:
    """POST /api/migrate/check's answer for a clean trace whose config names `quant_method` (none: no library)."""
    cfg = {"quantization_config": {"quant_method": quant_method}} if quant_method else {}
    trace = OpTrace(model="my/model", task="inference", device="meta", torch_version="2.13.0",
                    ops={"mm": 4, "add.Tensor": 2})
    listed = [AdaptedList(stack="cann", name="vLLM-Ascend supported models", use="inference", listed=True)]
    report = classify(trace, load_op_list("2.13"), adapted_lists=listed, stack=cann_stack(packaged_catalog()),
                      libraries=from_config(cfg))
    return localize(check_answer(report), lang, "web")  # type: ignore[no-any-return]


def _verdict(client: TestClient, tmp_path: Path, lang: str, quant_method: str | None) -> tuple[str, str, str]:
    answer = _answer(lang, quant_method)
    msgs = {x: client.get(f"/api/messages?lang={x}").json() for x in {lang, "en"}}
    html = run_app_js(tmp_path, _RENDER, {"lang": lang, "messages": msgs, "answer": answer})["html"]
    m = re.search(r'<p class="verdict"><strong class="([^"]*)">([^<]*)</strong>', html)
    assert m, html
    return answer["verdict"], m.group(1), m.group(2)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_needs_check_is_amber_under_its_label(client: TestClient, tmp_path: Path, lang: str) -> None:
    verdict, cls, text = _verdict(client, tmp_path, lang, "aqlm")
    assert verdict == "needs-check"
    assert cls == "warn", cls  # the amber of cpu-fallback and of the CLI's yellow, never the clean verdict's plain
    assert messages(lang)["verdict.needs-check"] in text, text
    assert ("需要核实" if lang == "zh" else "needs-check") in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_clean_verdict_stays_plain(client: TestClient, tmp_path: Path, lang: str) -> None:
    verdict, cls, text = _verdict(client, tmp_path, lang, None)
    assert verdict == "npu-native" and cls == ""
    assert messages(lang)["verdict.npu-native"] in text, text
