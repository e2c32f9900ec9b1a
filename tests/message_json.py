"""Helpers for tests that read messages out of an answer's JSON (`Message.to_json`, nested in reasons and extras)."""

from __future__ import annotations

from typing import Any


def find_messages(o: Any, id_: str) -> list[dict[str, Any]]:
    """Every message `id_` nested in a message's JSON (a plan's reason and its extras)."""
    if isinstance(o, dict):
        return ([o] if o.get("id") == id_ else []) + [x for v in o.values() for x in find_messages(v, id_)]
    if isinstance(o, list):
        return [x for v in o for x in find_messages(v, id_)]
    return []
