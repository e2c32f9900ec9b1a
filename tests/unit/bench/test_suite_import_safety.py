"""`bench import` writes only under the cases folder, and all or nothing (no torch: hand-built suite records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import SUITE_HF_CONFIG, SUITE_RUN_ID, suite_case_doc

from suanli.bench.results import ResultStore
from suanli.bench.suite import SUITE_FORMAT, CaseRecord
from suanli.bench.suite_import import import_suite
from suanli.catalog.load import packaged_catalog
from suanli.errors import InputError

RUN_ID = SUITE_RUN_ID
HF_CONFIG = SUITE_HF_CONFIG


def _suite(tmp_path: Path, model: str = "tiny-llama") -> Path:
    """A one-case suite result folder: decode of `model` on an H100 SXM, as `bench suite` writes it."""
    out = tmp_path / "suite"
    out.mkdir()
    doc = suite_case_doc()
    doc["case"]["model"] = model  # as a hand-edited (or hostile) result file would
    assert doc["format"] == SUITE_FORMAT
    (out / "decode-tiny-b1-loop.json").write_text(json.dumps(doc))
    return out


def _tree(p: Path) -> list[str]:
    return sorted(str(x.relative_to(p)) for x in p.rglob("*")) if p.exists() else []


def test_a_plain_import_writes_the_case_file_config_and_result(tmp_path: Path) -> None:
    cases, store = tmp_path / "X" / "cases", ResultStore(tmp_path / "store")
    report, new = import_suite(packaged_catalog(), _suite(tmp_path), store, cases)
    assert [r.id for r in new] == report.stored_results == ["r0"]
    assert _tree(cases) == ["configs", "configs/tiny-llama.json", "h100-sxm-20261201-0a5f1b.yaml"]
    assert report.case_files == [str(cases / "h100-sxm-20261201-0a5f1b.yaml")]


@pytest.mark.parametrize("model", ["../../escaped-by-model-name", "ABSOLUTE", "a/b", ".hidden"])
def test_a_model_name_that_is_a_path_imports_nothing(tmp_path: Path, model: str) -> None:
    cases, store = tmp_path / "X" / "cases", ResultStore(tmp_path / "store")
    model = str(tmp_path / "escaped-absolute") if model == "ABSOLUTE" else model
    with pytest.raises(InputError) as e:
        import_suite(packaged_catalog(), _suite(tmp_path, model), store, cases)
    msg = str(e.value)
    assert "case.model" in msg and "nothing was imported" in msg and "\n" not in msg
    assert _tree(tmp_path / "X") == [] and not (tmp_path / "store").exists()
    assert _tree(tmp_path) == ["suite", "suite/decode-tiny-b1-loop.json"]


def test_the_write_step_refuses_a_path_outside_the_cases_folder(tmp_path: Path) -> None:
    # past the model-name pattern (a record built in code skips validation): the resolve check still refuses
    suite = _suite(tmp_path)
    from suanli.bench import suite_import

    real = suite_import.read_records

    def hostile(d: Path) -> tuple[list[CaseRecord], list[str]]:
        recs, bad = real(d)
        return [r.model_copy(update={"case": r.case.model_copy(update={"model": "../../escaped"})}) for r in recs], bad

    mp = pytest.MonkeyPatch()
    mp.setattr(suite_import, "read_records", hostile)
    try:
        with pytest.raises(InputError) as e:
            import_suite(packaged_catalog(), suite, ResultStore(tmp_path / "store"), tmp_path / "X" / "cases")
    finally:
        mp.undo()
    assert "case.model '../../escaped' names a path outside" in str(e.value)
    assert _tree(tmp_path / "X") == [] and not (tmp_path / "store").exists()


def test_a_case_file_that_cannot_be_written_stores_nothing(tmp_path: Path) -> None:
    cases, store = tmp_path / "C", ResultStore(tmp_path / "store")
    (cases / "h100-sxm-20261201-0a5f1b.yaml").mkdir(parents=True)  # the target is a folder
    with pytest.raises(InputError) as e:
        import_suite(packaged_catalog(), _suite(tmp_path), store, cases)
    assert str(e.value).startswith("cases-dir: cannot write cases under")
    assert not store.results_dir.exists() or list(store.results_dir.glob("*")) == []
    assert _tree(cases) == ["h100-sxm-20261201-0a5f1b.yaml"]  # no config, no .tmp


def _fail_the_case_file_rename(monkeypatch: pytest.MonkeyPatch) -> None:
    """The case file's rename into place fails as a full disk would (the config renames before it succeed)."""
    real = Path.replace

    def failing(self: Path, target: Any) -> Path:
        if str(target).endswith(".yaml"):
            raise OSError(28, "No space left on device")
        return real(self, target)

    monkeypatch.setattr(Path, "replace", failing)


def test_a_failed_rename_rolls_back_the_results_and_temps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases, store = tmp_path / "C", ResultStore(tmp_path / "store")
    _fail_the_case_file_rename(monkeypatch)
    with pytest.raises(InputError) as e:
        import_suite(packaged_catalog(), _suite(tmp_path), store, cases)
    assert "No space left on device" in str(e.value)
    assert not store.results() and list(store.results_dir.glob("*")) == []
    assert _tree(cases) == ["configs"]  # the config placed before the failure is removed, and every temp


def test_a_device_memory_case_declares_what_it_measured(tmp_path: Path) -> None:
    """The suite's CUDA/NPU peak is max_memory_allocated: the imported memory case says so (`measured_as`), so
    `validate` scores it on the estimate's allocated need, like the published cases that measured the same."""
    import yaml

    cases, store = tmp_path / "X" / "cases", ResultStore(tmp_path / "store")
    import_suite(packaged_catalog(), _suite(tmp_path), store, cases)
    doc = yaml.safe_load((cases / "h100-sxm-20261201-0a5f1b.yaml").read_text())
    memory = [c for c in doc["cases"] if c["group"].endswith("-memory")]
    assert memory and all(c["measured_as"] == "allocated" for c in memory)


def test_a_failed_rename_puts_a_replaced_file_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A config already in the cases folder is replaced by the import; a later failure restores its content."""
    cases, store = tmp_path / "C", ResultStore(tmp_path / "store")
    (cases / "configs").mkdir(parents=True)
    old = cases / "configs" / "tiny-llama.json"
    old.write_text('{"old": true}\n')
    _fail_the_case_file_rename(monkeypatch)
    with pytest.raises(InputError) as e:
        import_suite(packaged_catalog(), _suite(tmp_path), store, cases)
    assert "No space left on device" in str(e.value)
    assert old.read_text() == '{"old": true}\n'
    assert _tree(cases) == ["configs", "configs/tiny-llama.json"]  # no temp, no backup left
    assert list(store.results_dir.glob("*")) == []


def test_an_import_over_existing_files_leaves_no_backup(tmp_path: Path) -> None:
    cases, store = tmp_path / "C", ResultStore(tmp_path / "store")
    (cases / "configs").mkdir(parents=True)
    (cases / "configs" / "tiny-llama.json").write_text('{"old": true}\n')
    (cases / "h100-sxm-20261201-0a5f1b.yaml").write_text("old: true\n")
    import_suite(packaged_catalog(), _suite(tmp_path), store, cases)
    assert _tree(cases) == ["configs", "configs/tiny-llama.json", "h100-sxm-20261201-0a5f1b.yaml"]
    assert json.loads((cases / "configs" / "tiny-llama.json").read_text()) == HF_CONFIG
    assert "cases:" in (cases / "h100-sxm-20261201-0a5f1b.yaml").read_text()


def test_an_error_that_is_not_an_oserror_also_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any exception (here a ValueError while storing) removes the temps and results and is raised as it was."""
    cases, store = tmp_path / "C", ResultStore(tmp_path / "store")

    def boom(self: ResultStore, res: Any) -> Path:
        raise ValueError("not an OSError")

    monkeypatch.setattr(ResultStore, "save", boom)
    with pytest.raises(ValueError, match="not an OSError"):
        import_suite(packaged_catalog(), _suite(tmp_path), store, cases)
    assert _tree(cases) == ["configs"]  # no .tmp left
    assert list(store.results_dir.glob("*")) == []
