"""A training compare refuses --input/--output with one line naming the field and saying it is serving only (it said
"a serving target; training compares take --global-batch", which named neither what the field is nor why)."""

from __future__ import annotations

import pytest

from suanli.catalog import lookup
from suanli.errors import InputError
from suanli.plan.compare import compare_devices


@pytest.mark.parametrize("kw, field", [(dict(input_tokens=1000), "input"), (dict(output_tokens=300), "output")])
def test_a_training_compare_refuses_the_serving_lengths(cat, kw, field) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as ex:
        compare_devices(cat, lookup.model(cat, "qwen2.5-7b"), ["h800", "910b"], "lora", **kw)
    assert ex.value.field == field
    assert str(ex.value) == (f"{field}: serving only: the prompt/output tokens per request; a training compare takes "
                             "no --input/--output")
    assert ex.value.i18n is not None and ex.value.i18n.id == "err.serving_lengths_only"


def test_the_cli_says_it_in_one_line() -> None:
    import os
    import subprocess
    import sys

    for lang, words in (("en", "input: serving only"), ("zh", "仅用于推理服务")):
        r = subprocess.run([sys.executable, "-m", "suanli.cli.main", "--lang", lang, "compare", "--model", "qwen2.5-7b",
                            "--gpu", "h800", "--gpu", "910b", "--task", "lora", "--input", "1000"],
                           capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"})
        assert r.returncode != 0
        lines = [x for x in (r.stdout + r.stderr).splitlines() if x.strip()]
        assert len(lines) == 1 and words in lines[0], r.stdout + r.stderr
