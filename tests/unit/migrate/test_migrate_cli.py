"""`suanli migrate check` (cli/migrate_cmd.py), driven through its own Typer app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from typer.testing import CliRunner  # noqa: E402

from suanli.cli.migrate_cmd import app, default_torch_npu_version  # noqa: E402
from suanli.errors import InputError, NotFoundError  # noqa: E402

runner = CliRunner()

TINY = {
    "model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 256, "_name_or_path": "tiny-llama",
}


def _config(tmp_path: Path, cfg: dict) -> Path:
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    return p


def test_check_json_from_a_config_file(tmp_path: Path) -> None:
    res = runner.invoke(app, ["check", "--model", str(_config(tmp_path, TINY)), "--json", "--torch-npu", "2.13"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["model"] == "tiny-llama" and d["torch_npu_version"] == "2.13.0"
    assert d["verdict"] == "npu-native" and d["fallback_ops"] == {}
    assert {"op", "calls", "status", "fused"} <= set(d["ops"][0])
    assert isinstance(d["adapted_lists"], list) and isinstance(d["warnings"], list)
    assert d["migration_weeks"] is None or len(d["migration_weeks"]) == 2
    if d["migration_weeks"]:  # one unit with migrate cost: calendar weeks × engineers
        assert d["migration_person_weeks"] == [w * d["migration_engineers"] for w in d["migration_weeks"]]


def test_check_table_training(tmp_path: Path) -> None:
    res = runner.invoke(app, ["check", "--model", str(_config(tmp_path, TINY)), "--task", "training"])
    assert res.exit_code == 0, res.output
    assert "verdict: npu-native" in res.stdout and "silu_backward" in res.stdout
    assert "engineer-weeks" not in res.stdout or "weeks × 2 engineers" in res.stdout


def test_errors_are_suanli_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        runner.invoke(app, ["check", "--model", str(tmp_path / "nope.json")], catch_exceptions=False)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not a readable JSON"):
        runner.invoke(app, ["check", "--model", str(bad)], catch_exceptions=False)
    with pytest.raises(InputError, match="model_type"):
        runner.invoke(app, ["check", "--model", str(_config(tmp_path, {"hidden_size": 1}))], catch_exceptions=False)
    with pytest.raises(InputError, match="torch-npu"):
        runner.invoke(app, ["check", "--model", str(_config(tmp_path, TINY)), "--torch-npu", "1.8"],
                      catch_exceptions=False)
    with pytest.raises(NotFoundError):
        runner.invoke(app, ["check", "--model", "no-such-model-xyz"], catch_exceptions=False)


def test_default_version_matches_installed_torch() -> None:
    import torch

    major_minor = ".".join(torch.__version__.split(".")[:2])
    assert default_torch_npu_version().startswith(major_minor + ".")


@pytest.mark.slow
def test_llama_preset_json() -> None:
    res = runner.invoke(app, ["check", "--model", "llama-3.1-8b", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["verdict"] == "npu-native" and d["trace"]["device"] == "meta"
    assert any(a["listed"] for a in d["adapted_lists"])
