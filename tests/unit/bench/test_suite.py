"""The device proof suite end to end on the CPU with the tiny preset: `bench suite` -> `bench import` ->
`validate --measured-dir` -> `calibrate` (issue 15, the part that needs no GPU)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("peft")

from typer.testing import CliRunner  # noqa: E402

from suanli.bench.results import ResultStore  # noqa: E402
from suanli.bench.suite import SUITE_FORMAT, plan_cases, read_records, run_suite  # noqa: E402
from suanli.cli.main import app  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
# one case of every kind, tiny sizes: seconds on a CPU
FAST = ["matmul-*", "copy", "accuracy-*", "decode-tiny-b1-*", "prefill-tiny-64-loop", "train-tiny-lora-mb1-ckpt-*",
        "train-tiny-full-mb1-nockpt-adamw"]


def _only(patterns: list[str]) -> list[str]:
    return [x for p in patterns for x in ("--only", p)]


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite")
    res = CliRunner().invoke(app, ["bench", "suite", str(out), "--device", "cpu", *_only(FAST)])
    assert res.exit_code == 0, res.output
    return out


def test_one_file_per_case_with_command_environment_and_workload(suite_dir: Path) -> None:
    records, bad = read_records(suite_dir)
    assert not bad
    by_id = {r.case.id: r for r in records}
    assert {"matmul-bf16", "matmul-fp8", "copy", "accuracy-tiny-bf16", "decode-tiny-b1-loop",
            "decode-tiny-b1-generate", "decode-tiny-b1-generate-static", "prefill-tiny-64-loop",
            "train-tiny-lora-mb1-ckpt-adamw", "train-tiny-full-mb1-nockpt-adamw"} <= set(by_id)
    for r in records:
        doc = json.loads((suite_dir / f"{r.case.id}.json").read_text())
        assert doc["format"] == SUITE_FORMAT and doc["command"].startswith("suanli bench suite ")
        env = doc["environment"]
        assert env["torch"] and env["transformers"] and env["device_name"] and env["date"]
    assert by_id["matmul-fp8"].status == "skipped" and "CUDA only" in (by_id["matmul-fp8"].reason or "")
    assert by_id["matmul-bf16"].metrics["tflops"] > 0 and by_id["copy"].metrics["bytes_per_s"] > 0
    assert by_id["accuracy-tiny-bf16"].metrics["passed"] is True
    dec = by_id["decode-tiny-b1-loop"]
    assert dec.metrics["decode_tokens_per_s"] > 0 and dec.bench_result is not None
    assert dec.bench_result.micro is not None and dec.bench_result.micro.bandwidth is not None
    lora = by_id["train-tiny-lora-mb1-ckpt-adamw"]
    assert lora.status == "ok", lora.reason
    assert lora.metrics["train_tokens_per_s"] > 0 and 0 < lora.metrics["trainable_params"] < lora.metrics["model_params"]
    # enough workload to call `suanli estimate` for the same case
    assert lora.estimate_args == {
        "model": "configs/tiny-llama.json", "gpu": None, "task": "lora", "precision": "bf16", "batch": 1,
        "seq": 128, "recompute": "full", "optimizer": "adamw", "lora_rank": 16, "lora_targets": "all-linear"}
    assert lora.hf_config is not None and lora.hf_config["hidden_size"] == 256
    assert (suite_dir / "configs" / "tiny-llama.json").is_file() and (suite_dir / "run.json").is_file()
    eight = by_id["train-tiny-lora-mb1-ckpt-adamw8bit"]
    try:
        import bitsandbytes  # noqa: F401
    except Exception:  # noqa: BLE001
        assert eight.status == "skipped" and "bitsandbytes" in (eight.reason or "")


def test_estimate_command_of_a_case_runs(suite_dir: Path) -> None:
    rec = next(r for r in read_records(suite_dir)[0] if r.case.id == "decode-tiny-b1-loop")
    args = (rec.estimate_command or "").replace("--gpu GPU", "--gpu h100").split()[1:]
    args[args.index("--model") + 1] = str(suite_dir / "configs" / "tiny-llama.json")
    res = CliRunner().invoke(app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["speed"]["decode_tokens_per_s"] > 0


def test_import_stores_results_and_writes_cases_that_validate_shows(suite_dir: Path, tmp_path: Path) -> None:
    cases = tmp_path / "cases"
    store = tmp_path / "store"
    res = CliRunner().invoke(app, ["bench", "import", str(suite_dir), "--cases-dir", str(cases), "--store",
                                   str(store), "--json"])
    assert res.exit_code == 0, res.output
    rep = json.loads(res.stdout)
    assert len(rep["stored_results"]) == 3  # accuracy + two loop cases
    files = list(cases.glob("*.yaml"))
    assert len(files) == 1 and (cases / "configs" / "tiny-llama.json").is_file()
    text = files[0].read_text()
    assert "measured by suanli on " in text and "holdout: true" in text
    groups = {"decode-speed", "prefill-speed", "training-throughput"}
    assert all(g in text for g in groups)
    assert "memory_bytes" not in text  # CPU peak is process RSS, not tensor memory
    # twice: nothing new stored
    again = CliRunner().invoke(app, ["bench", "import", str(suite_dir), "--cases-dir", str(cases), "--store",
                                     str(store), "--json"])
    assert json.loads(again.stdout)["stored_results"] == []

    res = CliRunner().invoke(app, ["validate", "--measured-dir", str(cases), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    mine = [m for m in out["measured_by_suanli"] if m["measured_by"].startswith("measured by suanli on ")]
    assert {m["group"] for m in mine} == groups
    assert all(m["cases"] >= 1 and m["median_abs_pct"] is not None for m in mine)
    ids = {c["id"] for c in out["cases"] if c["source"] == mine[0]["source"]}
    assert any(i.endswith("decode-tiny-b1-loop") for i in ids)
    assert all(c["sample"] == "out" for c in out["cases"] if c["id"] in ids)


def test_calibrate_fits_the_device_from_imported_results(suite_dir: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert CliRunner().invoke(app, ["bench", "import", str(suite_dir), "--no-cases", "--store", str(store)]).exit_code == 0
    res = CliRunner().invoke(app, ["calibrate", "--store", str(store), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    # each decode-bandwidth fit is used, or rejected as implausible with the reason (a busy CPU can do that)
    fitted = {f["metric"] for f in out["factors"] if f["device"].startswith("host-cpu")}
    assert "decode_bandwidth" in fitted or any("decode_bandwidth" in line for line in out["rejected"])


def test_a_cpu_run_never_lands_in_the_packaged_measured_folder(suite_dir: Path, tmp_path: Path) -> None:
    from suanli.validate.measured import MEASURED_DIR

    before = sorted(p.name for p in MEASURED_DIR.rglob("*"))
    res = CliRunner().invoke(app, ["bench", "import", str(suite_dir), "--store", str(tmp_path)])
    assert res.exit_code != 0
    assert "real device measurements only" in str(res.exception)
    assert sorted(p.name for p in MEASURED_DIR.rglob("*")) == before
    assert not ResultStore(tmp_path).results()  # all or nothing


def test_a_damaged_file_imports_nothing(suite_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    for p in suite_dir.glob("*.json"):
        (broken / p.name).write_text(p.read_text())
    doc = json.loads((broken / "copy.json").read_text())
    doc["status"] = "maybe"
    (broken / "copy.json").write_text(json.dumps(doc))
    res = CliRunner().invoke(app, ["bench", "import", str(broken), "--cases-dir", str(tmp_path / "c"), "--store",
                                   str(tmp_path / "s")])
    assert res.exit_code != 0 and "copy.json: status" in str(res.exception)
    assert not (tmp_path / "c").exists() and not (tmp_path / "s").exists()


def test_cases_past_the_budget_are_skipped_with_the_reason(tmp_path: Path) -> None:
    run = run_suite(tmp_path, device="cpu", budget_s=6.0, only=["copy", "decode-tiny-b1-loop"])  # needs 5 s, 12 s
    assert run.cases == {"copy": "ok", "decode-tiny-b1-loop": "skipped"}
    rec = next(r for r in read_records(tmp_path)[0] if r.case.id == "decode-tiny-b1-loop")
    assert rec.reason is not None and rec.reason.startswith("time budget:")


def test_bad_options_are_one_line_errors(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["bench", "suite", str(tmp_path), "--device", "cpu", "--only", "nope-*"])
    assert res.exit_code != 0 and str(res.exception).startswith("only: no case matches nope-*")
    res = CliRunner().invoke(app, ["bench", "suite", str(tmp_path), "--device", "cpu", "--size", "huge"])
    assert str(res.exception).startswith("size: 'huge' is not one of auto, full, tiny")


def test_the_full_plan_is_the_issues() -> None:
    ids = {c.id for c in plan_cases("full")}
    for b in (1, 16, 64):
        assert {f"decode-1b-b{b}-loop", f"decode-8b-b{b}-generate", f"decode-8b-b{b}-generate-static"} <= ids
    assert {"prefill-1b-512-loop", "prefill-8b-2048-loop", "matmul-bf16", "matmul-fp8", "copy"} <= ids
    train = [c for c in plan_cases("full") if c.kind == "train"]
    assert {(c.shape, c.task) for c in train} == {("1b", "full"), ("1b", "lora"), ("8b", "lora")}
    assert {c.seq for c in train} == {2048} and {c.batch for c in train} == {1, 4}
    assert {c.recompute for c in train} == {"none", "full"} and {c.optimizer for c in train} == {"adamw", "adamw8bit"}


def test_device_proof_check_says_what_is_missing_in_one_line() -> None:
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "device_proof_check.py")], capture_output=True,
                         text=True, check=False)
    assert out.stdout.count("\n") == 1 and out.stdout.startswith("device proof: ")
    code = ("import sys, runpy; sys.modules['pydantic'] = None; sys.argv = ['x']\n"
            "import importlib.util as u; f = u.find_spec\n"
            "u.find_spec = lambda m, *a: None if m == 'pydantic' else f(m, *a)\n"
            f"runpy.run_path({str(REPO / 'scripts' / 'device_proof_check.py')!r}, run_name='__main__')")
    miss = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert miss.returncode == 1 and "missing pydantic (suanli's dependencies" in miss.stdout


@pytest.mark.slow
def test_the_whole_tiny_suite_runs_on_the_cpu(tmp_path: Path) -> None:
    run = run_suite(tmp_path, device="cpu", size="tiny")
    assert "failed" not in run.cases.values()
    assert len(run.cases) == len(plan_cases("tiny"))
