"""The page's script (src/suanli/web/static/app.js) run in node against a stub DOM, without a browser: the page
tests under tests/unit/api call its form handlers and its renderers and read what they sent or wrote (tests/e2e
drive the same in Chromium). Skips the calling test where node is not installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

APP_JS = Path(__file__).resolve().parents[1] / "src" / "suanli" / "web" / "static" / "app.js"

# a DOM just large enough for app.js to start: every selector is one stub element (its innerHTML, value … kept);
# GET /api/messages answers the catalogs the test gives (DATA.messages, else {}), every other GET an empty list;
# POST bodies are kept in `sent`. The test's script runs inside app.js's own scope (its consts: fill, t, state,
# renderMigrate …) once the page has started, reads DATA and prints its answer with console.log
_STUB = r"""
const fs = require("fs");
const DATA = JSON.parse(fs.readFileSync(process.argv[3], "utf-8"));
const els = {}, sent = [];
function el(sel) {
  if (!els[sel]) {
    const listeners = {};
    els[sel] = {value: "", checked: false, hidden: false, disabled: false, textContent: "", innerHTML: "", dataset: {},
      options: [], tagName: "INPUT", classList: {toggle() {}, add() {}, remove() {}}, listeners,
      addEventListener(type, fn) { listeners[type] = fn; }, setAttribute() {}, getAttribute() { return null; },
      querySelectorAll() { return []; }, insertAdjacentHTML() {}, focus() {}, scrollIntoView() {}, add() {}};
  }
  return els[sel];
}
global.document = {querySelector: el, querySelectorAll: () => [], documentElement: {}, body: {dataset: {}}};
global.location = {hash: ""}; global.history = {replaceState() {}}; global.navigator = {language: "en"};
global.localStorage = {getItem: () => null, setItem() {}}; global.performance = {now: () => 0};
global.Option = function (text, value) { return {text, value}; }; global.MutationObserver = class { observe() {} };
global.fetch = async (url, opt) => {
  if (opt && opt.method === "POST") sent.push({url, body: JSON.parse(opt.body)});
  const m = /^\/api\/messages\?lang=(\w+)/.exec(url);
  return {ok: true, statusText: "", json: async () => (m ? (DATA.messages || {})[m[1]] || {} : [])};
};
"""


def run_app_js(tmp_path: Path, script: str, data: dict[str, Any] | None = None) -> Any:
    """What `script` prints (JSON, with console.log), run in app.js's scope after the page started, `DATA` = data."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the page's script is run by tests/e2e in Chromium")
    harness, given = tmp_path / "harness.js", tmp_path / "data.json"
    harness.write_text(_STUB + 'eval(fs.readFileSync(process.argv[2], "utf-8") + "\\n;setTimeout(async () => {\\n"'
                       " + fs.readFileSync(process.argv[4], 'utf-8') + '\\n}, 50);');", encoding="utf-8")
    given.write_text(json.dumps(data or {}, ensure_ascii=False), encoding="utf-8")
    (tmp_path / "script.js").write_text(script, encoding="utf-8")
    out = subprocess.run([node, str(harness), str(APP_JS), str(given), str(tmp_path / "script.js")],
                         capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)
