"""`suanli estimate` without a calibration file does not import the benchmark package (start-up budget,
issue 13 item 5; the figures are in scripts/bench_cli_startup.py, not in a timed test). With a file, the
calibration applies (tests/unit/api/test_parity.py checks CLI and API agree). The start-up measures of
`suanli.cli.main` (collector deferred over start-up, one BLAS thread for numpy, API shapes built on use)
leave the process as a long command needs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_probe import NUMPY_LOADED, probe_cli  # tests/cli_probe.py: the one probe script

ESTIMATE_JSON = ("estimate", "--model", "llama-2-7b", "--gpu", "rtx-4090", "--json")


def _probe(home: Path) -> str:
    r = probe_cli(ESTIMATE_JSON, home, "print('BENCH_LOADED' if 'suanli.bench.feedback' in sys.modules"
                                       " else 'BENCH_NOT_LOADED', file=sys.stderr)")
    assert '"memory"' in r.stdout, r.stderr
    return r.stderr


def test_estimate_imports_bench_only_with_a_calibration_file(tmp_path: Path) -> None:
    assert "BENCH_NOT_LOADED" in _probe(tmp_path)
    (tmp_path / "calibration.yaml").write_text("factors: []\n", encoding="utf-8")
    assert "BENCH_LOADED" in _probe(tmp_path)


GC_PROBE = """
import gc, os
from suanli.views.estimates import EstimateJson
print("GC", gc.isenabled(), gc.get_freeze_count() > 0, "OPENBLAS_NUM_THREADS" in os.environ,
      len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else -1,
      EstimateJson.__pydantic_complete__, file=sys.stderr)
"""


def _gc_probe(home: Path, *args: str, **env: str) -> list[str]:
    base = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    r = probe_cli(args, home, GC_PROBE, env={**base, **env})
    line = next((x for x in r.stderr.splitlines() if x.startswith("GC ")), None)
    assert line is not None, r.stderr
    return line.split()[1:]


def test_a_command_collects_again_after_start_up_and_help_freezes_nothing(tmp_path: Path) -> None:
    """The first run() defers the cyclic collector over start-up only: once the command's module is loaded
    everything alive is frozen and collection is back on (a long command is collected as before)."""
    enabled, frozen, *_ = _gc_probe(tmp_path, *ESTIMATE_JSON)
    assert (enabled, frozen) == ("True", "True")
    enabled, frozen, *_ = _gc_probe(tmp_path, "--help")
    assert (enabled, frozen) == ("True", "False")


def test_numpy_gets_one_blas_thread_and_the_environment_is_left_as_it_was(tmp_path: Path) -> None:
    """A command whose module imports numpy (plan's search; `estimate` imports none: estimate/test_xp.py)."""
    if not Path("/proc/self/task").is_dir():
        pytest.skip("counts the process's threads in /proc/self/task (Linux)")
    args = ("plan", "--help")
    _, _, env_left, threads, _ = _gc_probe(tmp_path, *args)
    assert (env_left, threads) == ("False", "1")
    _, _, env_left, threads, _ = _gc_probe(tmp_path, *args, OPENBLAS_NUM_THREADS="2")  # the user's choice stands
    assert (env_left, int(threads) > 1) == ("True", True)


def test_the_api_shapes_are_not_built_by_the_cli(tmp_path: Path) -> None:
    """`defer_build`: the estimate's JSON shape (an API response model) is built on first use, by the API."""
    *_, complete = _gc_probe(tmp_path, *ESTIMATE_JSON)
    assert complete == "False"


def test_estimate_imports_no_yaml_nor_the_catalog_commands_once_cached(tmp_path: Path) -> None:
    """With current caches (the catalog, the error bands as JSON) `suanli estimate` reads no YAML (~8 ms), its
    memory check (`plan.known_error`) does not import the planner's search (235 kB compiled on every call without
    bytecode: ~0.05 s, ~0.02 s with it), and its --json, a dict, does not define the API's shapes of it
    (`views.estimate_shapes`, ~3 ms)."""
    loaded = ("print('LOADED', sorted(m for m in ('yaml', 'suanli.cli.catalog_cmd', 'suanli.plan.search',"
              " 'suanli.views.estimate_shapes') if m in sys.modules), file=sys.stderr)")
    env = {k: v for k, v in os.environ.items() if k != "SUANLI_NO_CACHE"}
    runs = [probe_cli(ESTIMATE_JSON, tmp_path, loaded, env=env) for _ in range(2)]
    assert all('"memory"' in r.stdout for r in runs), runs[0].stderr
    assert "LOADED ['yaml']" in runs[0].stderr  # the first run builds the caches from the YAML files
    assert "LOADED []" in runs[1].stderr


@pytest.mark.parametrize("args", [("gpus",), ("gpu", "910b")], ids=["gpus", "gpu"])
def test_the_catalog_listings_import_no_numpy(tmp_path: Path, args: tuple[str, ...]) -> None:
    """`suanli gpus` and `suanli gpu NAME` read offers without numpy (~0.04 s): only the rentability rule
    (`catalog.offers.can_rent`, plan's arrays) imports it."""
    r = probe_cli(args, tmp_path, NUMPY_LOADED)
    assert r.returncode == 0 and r.stdout.strip(), r.stderr
    assert "NUMPY False" in r.stderr


def test_plan_imports_neither_the_catalog_commands_nor_the_operator_coverage(tmp_path: Path) -> None:
    """`suanli plan` reads a model argument through `views.files` (not `cli.catalog_cmd` and the catalog views behind
    it) and its migration weeks through `migrate.effort` (not `migrate.coverage`'s models, ~8 ms)."""
    r = probe_cli(("plan", "--file", str(Path(__file__).parents[3] / "examples" / "lora-7b.yaml")), tmp_path,
                  "print('LOADED', sorted(m for m in ('suanli.cli.catalog_cmd', 'suanli.views.catalog',"
                  " 'suanli.migrate.coverage', 'suanli.migrate.effort') if m in sys.modules), file=sys.stderr)")
    assert r.returncode == 0 and "Plan" in r.stdout, r.stderr
    assert "LOADED ['suanli.migrate.effort']" in r.stderr  # the weeks were counted, without the coverage


def test_english_output_compiles_no_cjk_character_class(tmp_path: Path) -> None:
    """A class of CJK ranges costs `re` a pass over each of its ~30,000 characters when it compiles (~1 ms a class):
    English output of text without such characters compiles none (`i18n._zh_patterns`, `output._cjk_run`, the
    breaker's plain form); Chinese output compiles the patterns and its breaker, and the run of CJK characters
    (`output._cjk_run`, a header's Chinese words) only for a table that does not fit at its full width."""
    cjk = ("from suanli.cli import output\nfrom suanli import i18n\n"
           "print('CJK', i18n._zh_patterns.cache_info().currsize, output._cjk_run.cache_info().currsize,"
           " output._breaker.cache_info().currsize, file=sys.stderr)")
    args = ("estimate", "--model", "llama-2-7b", "--task", "inference", "--gpu", "rtx-4090")
    runs = [probe_cli((*lang, *args), tmp_path, cjk, env={**os.environ, "COLUMNS": "100"})
            for lang in ((), ("--lang", "zh"))]
    assert all(r.returncode == 0 and r.stdout.strip() for r in runs), runs[0].stderr
    assert "CJK 0 0 1" in runs[0].stderr  # one breaker: the plain one
    assert "CJK 1 0 1" in runs[1].stderr  # Chinese: the patterns and the Chinese breaker (the tables fit at 100)


def test_importing_the_cli_leaves_the_collector_as_it_found_it() -> None:
    """`suanli.cli.main` imports without the cyclic collector, then turns it back on with nothing frozen (the objects
    the imports made moved to the oldest generation); one the process had switched off stays off."""
    probe = ("import gc, sys\nif sys.argv[1] == 'off':\n    gc.disable()\nimport suanli.cli.main\n"
             "young = len(gc.get_objects(0)) + len(gc.get_objects(1))\n"
             "print('GC', gc.isenabled(), gc.get_freeze_count(), young < 2000, file=sys.stderr)\n")
    out = [subprocess.run([sys.executable, "-c", probe, state], capture_output=True, text=True, timeout=120).stderr
           for state in ("on", "off")]
    assert "GC True 0 True" in out[0], out[0]  # the imports' objects are old: no young collection walks them
    assert "GC False 0 False" in out[1], out[1]  # left as they were, in the young generation


@pytest.mark.parametrize("module", ["estimate_cmd", "plan_cmd", "catalog_cmd"])
def test_typer_reads_the_options_from_objects_not_strings(module: str) -> None:
    """The commands' options are annotation objects, built once when the command is defined: as strings (`from
    __future__ import annotations`) typer compiled and evaluated each again on every call (estimate: ~4 ms)."""
    import importlib
    import inspect

    import typer

    mod = importlib.import_module(f"suanli.cli.{module}")
    app = typer.Typer()
    mod.register(app)
    params = [p for c in app.registered_commands for p in inspect.signature(c.callback).parameters.values()]
    assert len(params) > 10 and not [p.name for p in params if isinstance(p.annotation, str)]


def test_the_catalog_schema_annotations_are_objects_not_strings() -> None:
    """`catalog.schema`'s ~370 fields are annotation objects: as strings (`from __future__ import annotations`) pydantic
    compiled and evaluated each when it built the classes (valgrind: ~27 M of `suanli estimate`'s ~1.5 G instructions)."""
    import inspect

    from pydantic import BaseModel

    from suanli.catalog import schema

    models = [c for c in vars(schema).values()
              if inspect.isclass(c) and issubclass(c, BaseModel) and c.__module__ == schema.__name__]
    fields = [(c.__name__, k) for c in models for k, v in c.__dict__.get("__annotations__", {}).items()
              if isinstance(v, str)]
    assert len(models) > 20 and fields == []


def test_the_environment_language_is_read_once_a_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a command runs, LC_ALL / LC_MESSAGES / LANG are read once (`output.env_lang_read`), not for each of the
    ~450 texts an estimate prints; `--lang` still decides, and after the command the environment is read again."""
    from suanli.cli import output

    monkeypatch.setattr(output, "_lang", None)
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    with output.env_lang_read():
        monkeypatch.setenv("LANG", "en_US.UTF-8")
        assert output.lang() == "zh"  # read when the command started
        output.set_lang("en")
        assert output.lang() == "en"  # --lang
        output.set_lang(None)
    assert output.lang() == "en"  # the environment as it is now


def test_printed_text_keeps_colon_words_as_typed() -> None:
    """The consoles replace no emoji codes (rich's default would print `:ok:` as 🆗 and search every string for one)."""
    from suanli.cli.output import console

    with console.capture() as cap:
        console.print("model :ok: at 12:30:45 :smile:", highlight=False)
    assert cap.get().strip() == "model :ok: at 12:30:45 :smile:"


PLUGIN_SEARCH = """
import importlib.metadata, os
searched = []
_entry_points = importlib.metadata.entry_points
def entry_points(**kw):
    searched.append(kw.get("group"))
    return _entry_points(**kw)
importlib.metadata.entry_points = entry_points  # before pydantic's plugin loader binds the name
"""
PLUGINS_SEARCHED = ('print("PLUGINS", "pydantic" in searched, os.environ.get("PYDANTIC_DISABLE_PLUGINS", "unset") or "empty",'
                    ' file=sys.stderr)')


@pytest.mark.parametrize(("user", "expected"), [(None, "False unset"), ("", "True empty"), ("logfire", "True logfire")],
                         ids=["unset", "empty", "named"])
def test_a_command_skips_pydantic_s_plugin_search_unless_the_user_set_it(
        tmp_path: Path, user: str | None, expected: str) -> None:
    """pydantic reads every installed distribution's entry points for plugins when it builds its first validator
    (~22 M of `suanli estimate`'s ~1.48 G instructions): a command runs with PYDANTIC_DISABLE_PLUGINS=1 and leaves the
    environment as it found it; a user's own value (empty: every plugin; a plugin's name: all but it) stands."""
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if user is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = user
    r = probe_cli(ESTIMATE_JSON, tmp_path, PLUGINS_SEARCHED, before=PLUGIN_SEARCH, env=env)
    assert '"memory"' in r.stdout, r.stderr
    assert f"PLUGINS {expected}" in r.stderr, r.stderr
