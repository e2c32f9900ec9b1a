"""One did-you-mean for the CLI and the API: both raise `lookup.accelerator` / `lookup.model`'s NotFoundError, whose
closest names are `errors.unknown_name`'s (`did_you_mean`, an alias suggesting its device's id), so a misspelt name
gets the same suggestions, in the same order, from `suanli estimate` / `compare` / `plan` and their POST routes.
(A note of 2026-12-03 read 'the CLI suggests h100, the API h100-sxm, hygon-k100, h800' for `h1000`: the CLI test
pinned only the prefix "Did you mean: h100" of the same list.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cli_run import run_cli

MODEL = "qwen2.5-7b"
CASES = [  # (CLI args, API route and body, the suggestions of both)
    (("estimate", "--model", MODEL, "--gpu", "h1000"), ("/api/estimate", {"model": MODEL, "gpu": "h1000"}),
     "h100-sxm, hygon-k100, h800"),
    (("compare", "--model", MODEL, "--gpu", "h100", "--gpu", "h1000"),
     ("/api/compare", {"model": MODEL, "devices": ["h100", "h1000"]}), "h100-sxm, hygon-k100, h800"),
    (("plan", "--model", MODEL, "--task", "lora", "--tokens", "1e8", "--gpu", "h1000"),
     ("/api/plan", {"model": MODEL, "task": "lora", "tokens": 1e8, "devices": ["h1000"]}), "h100-sxm, hygon-k100, h800"),
    (("estimate", "--model", "qwen-32b", "--gpu", "h100"), ("/api/estimate", {"model": "qwen-32b", "gpu": "h100"}),
     None),
]


@pytest.mark.parametrize(("args", "api", "names"), CASES, ids=["estimate", "compare", "plan", "model"])
def test_the_cli_and_the_api_suggest_the_same_names(client: TestClient, args: tuple[str, ...],
                                                    api: tuple[str, dict[str, object]], names: str | None,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(("--lang", "en", *args), monkeypatch, capsys, tmp_path)
    r = client.post(api[0], json=api[1])
    assert code == 2 and r.status_code == 404, (err, r.text)
    suggested = r.json()["errors"][0]["suggestions"]
    assert suggested and f"Did you mean: {', '.join(suggested)}?" in err, (err, suggested)
    if names is not None:
        assert ", ".join(suggested) == names
