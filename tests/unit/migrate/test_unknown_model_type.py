"""`suanli migrate check` on a config whose model_type transformers does not know: one line naming model_type,
not transformers' message listing every model type it knows (~12 KB)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="torch is an optional extra (make test installs the CPU build)")
pytest.importorskip("transformers", reason="transformers is an optional extra")

LLAMA_FIELDS = {
    "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "vocab_size": 256, "max_position_embeddings": 512, "rms_norm_eps": 1e-5,
    "hidden_act": "silu",
}


@pytest.mark.parametrize("extra", [{}, {"auto_map": {"AutoConfig": "configuration_myllm.MyConfig"}}])
def test_unknown_model_type_is_one_line(tmp_path: Path, extra: dict) -> None:
    p = tmp_path / "x.json"
    p.write_text(json.dumps({"model_type": "myllm", **LLAMA_FIELDS, **extra}))
    r = subprocess.run([sys.executable, "-m", "suanli.cli.main", "migrate", "check", "--model", str(p)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: model_type: 'myllm'"), r.stderr[:500]
    assert len(r.stderr) < 400 and "gpt-sw3" not in r.stderr
    assert ("remote code" in r.stderr) == bool(extra)
