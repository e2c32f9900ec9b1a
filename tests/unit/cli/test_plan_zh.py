"""Issue 13 acceptance: `LANG=zh_CN.UTF-8 suanli plan --file examples/lora-7b.yaml` prints the table, reasons,
warnings, why-not and assumptions in Chinese; no English sentence is left except names."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# names that stay as they are: devices, frameworks, stacks, vendors, units, flags and ids
_ALLOWED = re.compile(
    r"--[a-z-]+|https?://\S+|[A-Za-z0-9][\w.+-]*(?:[ /-][A-Z0-9][\w.+-]*)*|GiB|GB/s|Gbit/s|TFLOPS")
_CATALOG_ID = re.compile(r"[a-z0-9.]+(?:-[a-z0-9.]+){2,}")
_ENGLISH = re.compile(r"\b(?:the|and|with|no|not|for|per|of|in|is|are|to|from|on|it)\b")


def _run(*args: str, lang: str) -> str:
    env = {**os.environ, "LANG": lang, "LC_ALL": "", "COLUMNS": "200"}
    r = subprocess.run([sys.executable, "-m", "suanli.cli.main", *args], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_zh_plan_has_no_english_sentences() -> None:
    out = _run("plan", "--file", "examples/lora-7b.yaml", "--offer-kinds", "all", "--region", "any", lang="zh_CN.UTF-8")
    assert "推荐方案" in out and "为何不选" in out and "假设" in out
    bad = []
    for line in out.splitlines():
        # lowercase English function words only appear inside sentences, never inside names
        # a catalog id (kebab-case, e.g. mfu-end-to-end-a100) is a name, not a sentence
        text = _CATALOG_ID.sub("", line.replace("LLaMA-Factory (PEFT + DeepSpeed/FSDP)", ""))
        if _ENGLISH.search(text):
            bad.append(line)
    assert bad == [], "\n".join(bad)


def test_en_plan_is_english() -> None:
    out = _run("plan", "--file", "examples/lora-7b.yaml", lang="en_US.UTF-8")
    assert "Ranked plans" in out and "trains it in" in out and "训练" not in out
