"""`import suanli.bench` must work without torch/ray, and a missing torch must say how to install it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from suanli.errors import InputError


def test_importing_bench_modules_imports_no_torch_or_ray() -> None:
    code = (
        "import sys\n"
        "import suanli.bench, suanli.bench.backends, suanli.bench.models, suanli.bench.results,"
        " suanli.bench.run, suanli.bench.accuracy, suanli.bench.calibrate, suanli.bench.fleet,"
        " suanli.bench.testset, suanli.cli.bench_cmd\n"
        "heavy = [m for m in ('torch', 'torch_npu', 'transformers', 'ray') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_torch_is_a_one_line_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from suanli.bench.backends import require_torch

    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    with pytest.raises(InputError) as e:
        require_torch()
    assert str(e.value) == "torch: install the torch extra: pip install 'suanli[torch]'"


def test_missing_ray_is_a_one_line_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from suanli.bench.fleet import require_ray

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(InputError, match=r"^ray: install the ray extra: pip install 'suanli\[ray\]'$"):
        require_ray()
