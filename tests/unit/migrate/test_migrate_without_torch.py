"""`suanli migrate check` on a machine without torch/transformers says so in one line naming the extra (a name
imported later in the same function once shadowed the message class: UnboundLocalError instead of the line)."""

from __future__ import annotations

import sys

import pytest

from suanli.cli.migrate_cmd import run_check
from suanli.errors import InputError


def test_missing_torch_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "suanli.trace", None)  # `from suanli.trace import trace_model` -> ImportError
    with pytest.raises(InputError) as e:
        run_check("qwen2.5-7b")
    assert e.value.field == "model" and "torch" in str(e.value)
