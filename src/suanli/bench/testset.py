"""The standard test set shipped with suanli: prompts for throughput and a text for perplexity.

Files and their provenance are listed in `suanli/data/bench/testset.json`.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Protocol

from suanli.errors import InputError
from suanli.i18n import Message

__all__ = ["Tokenizer", "manifest", "perplexity_ids", "prompts", "throughput_ids"]


class Tokenizer(Protocol):
    def encode(self, text: str) -> list[int]: ...


def _data(name: str) -> str:
    return (resources.files("suanli") / "data" / "bench" / name).read_text(encoding="utf-8")


def manifest() -> dict[str, Any]:
    m: dict[str, Any] = json.loads(_data("testset.json"))
    return m


def prompts() -> list[str]:
    """The throughput prompts, in file order."""
    return [json.loads(line)["text"] for line in _data("prompts.jsonl").splitlines() if line.strip()]


def perplexity_text() -> str:
    return _data("perplexity.txt")


def throughput_ids(tok: Tokenizer, batch: int, input_tokens: int) -> list[list[int]]:
    """`batch` sequences of exactly `input_tokens` ids: the prompts concatenated, each row from another offset."""
    if batch < 1:
        raise InputError("batch", Message("err.must_be_at_least_got", batch=batch))
    if input_tokens < 1:
        raise InputError("input", Message("err.must_be_at_least_token_got", input_tokens=input_tokens))
    stream: list[int] = []
    for p in prompts():
        stream.extend(tok.encode(p + "\n"))
    rows = []
    for b in range(batch):
        start = (b * 97) % len(stream)  # 97: any stride that makes rows differ
        need = start + input_tokens
        reps = need // len(stream) + 1
        rows.append((stream * reps)[start:need])
    return rows


def perplexity_ids(tok: Tokenizer, window: int | None = None) -> list[int]:
    """The first `window` token ids of the perplexity text (default: the manifest's window)."""
    n = int(window or manifest()["perplexity_window_tokens"])
    ids = tok.encode(perplexity_text())
    if len(ids) < n:
        raise InputError("window", Message("err.the_perplexity_text_has_only_tokens", n_ids=len(ids), n=n))
    return ids[:n]
