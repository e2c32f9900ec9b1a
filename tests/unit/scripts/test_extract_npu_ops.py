"""scripts/extract_npu_ops.py: operator names from a (fake) torch-npu wheel, without importing torch_npu."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from script_module import load_script  # tests/script_module.py: the one loader

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "src" / "suanli" / "data" / "ascend_ops"


ex = load_script("extract_npu_ops")

SAMPLE_YAML = """\
backend: NPU
cpp_namespace: at_npu::native
supported:
  - view
  - add.Tensor
  - func: mm(Tensor self, Tensor mat2) -> Tensor
    impl_ns: acl_op, op_api
  - add.Tensor
  - func: isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor
    impl_ns: op_api
symint:
  - as_strided_
autograd: []
custom:
  - func: npu_fusion_attention(Tensor query, Tensor key, Tensor value, int head_num, str input_layout) -> (Tensor, Tensor)
    exposed: true
    impl_ns: op_api
"""

METADATA = """\
Metadata-Version: 2.1
Name: torch_npu
Version: 9.9.0
License: BSD License
Requires-Dist: torch==9.9.0.*
Requires-Dist: torchvision-extra
"""


def _fake_wheel(tmp_path: Path, yaml_text: str = SAMPLE_YAML, version: str = "9.9.0") -> Path:
    wheel = tmp_path / f"torch_npu-{version}-cp311-cp311-manylinux_2_28_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        info = zipfile.ZipInfo(ex.YAML_PATH, date_time=(2026, 10, 15, 0, 59, 0))
        zf.writestr(info, yaml_text)
        zf.writestr(f"torch_npu-{version}.dist-info/METADATA", METADATA.replace("9.9.0", version))
    return wheel


def test_extracts_names_sections_and_impl_ns(tmp_path: Path) -> None:
    version, text = ex.extract_wheel(_fake_wheel(tmp_path))
    assert version == "9.9.0"
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert body == [
        "supported view -",
        "supported add.Tensor -",  # the duplicate entry is dropped
        "supported mm acl_op+op_api",
        "supported isin.Tensor_Tensor op_api",
        "symint as_strided_ -",
        "custom npu_fusion_attention op_api",
    ]
    assert "Tensor self" not in text  # names only: no schema text is copied
    assert "# requires: torch==9.9.0.*" in text  # torchvision-extra is not mistaken for torch
    assert "dated 2026-10-15 in the wheel" in text
    assert "# wheel_sha256: " in text


def test_main_writes_and_check_detects_drift(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wheel = _fake_wheel(tmp_path)
    out = tmp_path / "out"
    assert ex.main(["--wheel", str(wheel), "--out-dir", str(out)]) == 0
    target = out / "torch_npu-9.9.0.txt"
    assert target.exists()
    # --check re-extracts from the cached wheel and compares byte for byte
    cache = tmp_path
    assert ex.main(["--check", "--wheel-dir", str(cache), "--out-dir", str(out)]) == 0
    target.write_text(target.read_text() + "supported extra -\n")
    assert ex.main(["--check", "--wheel-dir", str(cache), "--out-dir", str(out)]) == 1
    assert "DIFF torch_npu-9.9.0.txt" in capsys.readouterr().out


def test_rejects_non_npu_yaml_and_missing_yaml(tmp_path: Path) -> None:
    with pytest.raises(ex.ExtractError, match="backend: NPU"):
        ex.extract_wheel(_fake_wheel(tmp_path, "backend: CUDA\nsupported: [mm]\n"))
    empty = tmp_path / "torch_npu-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("torch_npu-1.0.0.dist-info/METADATA", METADATA)
    with pytest.raises(ex.ExtractError, match="has no"):
        ex.extract_wheel(empty)


def test_parsed_output_round_trips_through_the_loader(tmp_path: Path) -> None:
    from suanli.migrate.coverage import parse_op_list

    _, text = ex.extract_wheel(_fake_wheel(tmp_path))
    ops = parse_op_list(text)
    assert ops.version == "9.9.0"
    assert {"view", "add.Tensor", "mm", "as_strided_"} <= ops.aten
    assert ops.custom == {"npu_fusion_attention"}
    assert ops.impl_ns["mm"] == "acl_op+op_api"


@pytest.mark.parametrize("path", sorted(DATA.glob("torch_npu-*.txt")), ids=lambda p: p.name)
def test_shipped_files_name_their_wheel(path: Path) -> None:
    head = path.read_text(encoding="utf-8").splitlines()[:10]
    assert any(line.startswith("# wheel: torch_npu-") for line in head)
    assert any(len(line.split("# wheel_sha256: ")[-1]) == 64 for line in head if "wheel_sha256" in line)
    assert any(line.startswith("# requires: torch") for line in head)
