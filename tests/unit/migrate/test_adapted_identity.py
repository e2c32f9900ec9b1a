"""Buyer review 2026-12-01: a config.json is put on the Ascend adapted lists by what the file says (architecture and
dimensions against the catalog's presets), never by its folder's name (suanli.migrate.identity).

A hand-written Qwen2.5-7B config in `Qwen2.5-7B/config.json` was on the vLLM-Ascend and MindSpeed lists (1–2 weeks)
while the same file in `ft/config.json` was on none (2–4 weeks), and migrate cost / plan charged the longer effort."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from suanli.catalog.load import packaged_catalog
from suanli.catalog.lookup import model as lookup_model
from suanli.migrate.coverage import OpTrace, adapted_lists_for
from suanli.migrate.identity import dimension_key, identify_config, identify_preset
from suanli.views.files import load_model_arg

# the Qwen2.5-7B-Instruct config.json as its repository publishes it (tests/fixtures/hf_configs, the catalog preset
# qwen2.5-7b's dimensions)
QWEN25_7B: dict[str, Any] = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "hf_configs" /
                                         "qwen2.5-7b-instruct.json").read_text(encoding="utf-8"))


def _write(folder: Path, cfg: dict[str, Any]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg))
    return str(folder / "config.json")


def _listing(names: tuple[str, ...]) -> dict[str, bool | None]:
    return {a.name: a.listed for a in adapted_lists_for(packaged_catalog(), "", names)}


def test_same_config_in_two_folders_gets_the_preset_listing(tmp_path: Path) -> None:
    cat = packaged_catalog()
    a = load_model_arg(cat, _write(tmp_path / "Qwen2.5-7B", QWEN25_7B))
    b = load_model_arg(cat, _write(tmp_path / "x" / "ft", QWEN25_7B))
    assert (a.id, b.id) == ("Qwen2.5-7B", "ft")  # the name shown stays the folder's (hf_config.config_model_name)
    assert a.aliases == b.aliases and "Qwen/Qwen2.5-7B" in b.aliases
    preset = identify_preset(lookup_model(cat, "qwen2.5-7b")).names
    assert _listing(b.aliases) == _listing(a.aliases) == _listing(preset)
    assert all(_listing(b.aliases).values())  # vLLM-Ascend, MindSpeed-LLM and MindIE-LLM name Qwen2.5-7B(-Instruct)
    # plan and migrate cost charge the adapted range for both (seed-000: 1–2 weeks), as for the preset
    from suanli.plan.search import migration_weeks

    cann = next(s for s in cat.stacks if s.id == "cann")
    assert migration_weeks(cat, cann, b, task="full")[:2] == migration_weeks(cat, cann, a, task="full")[:2] == (1, 2)


def test_the_match_says_what_it_went_by() -> None:
    cat = packaged_catalog()
    ident = identify_config(cat.models, load_model_arg_from(QWEN25_7B), QWEN25_7B)
    assert ident.basis == "dimensions" and "qwen2.5-7b" in ident.presets
    text = ident.to_json()["text"]
    assert "architecture Qwen2ForCausalLM and dimensions" in text and "qwen2.5-7b" in text
    # the hint picks one of the presets with these dimensions, and the listing is that preset's
    hinted = identify_config(cat.models, load_model_arg_from(QWEN25_7B), {**QWEN25_7B, "_name_or_path": "/data/Qwen2.5-7B"})
    assert hinted.basis == "dimensions+hint" and hinted.preset == "qwen2.5-7b"
    assert "matched to preset qwen2.5-7b by architecture Qwen2ForCausalLM and dimensions" in hinted.to_json()["text"]


def load_model_arg_from(cfg: dict[str, Any]) -> Any:
    from suanli.catalog.hf_config import from_hf_config

    return from_hf_config(cfg, name="ft")


@pytest.mark.parametrize("field,value", [("num_hidden_layers", 30), ("intermediate_size", 20480),
                                         ("vocab_size", 151936), ("num_key_value_heads", 7)])
def test_altered_dimensions_are_not_matched_to_the_preset(tmp_path: Path, field: str, value: int) -> None:
    cat = packaged_catalog()
    cfg = {**QWEN25_7B, field: value, "_name_or_path": "Qwen/Qwen2.5-7B"}
    m = load_model_arg(cat, _write(tmp_path / "Qwen2.5-7B", cfg))  # folder and _name_or_path both say Qwen2.5-7B
    ident = identify_config(cat.models, load_model_arg_from(cfg), cfg)
    assert ident.preset is None and ident.names == () and m.aliases == ()
    assert ident.basis == "no-match"
    text = ident.to_json()["text"]
    assert "no preset has these dimensions" in text and "preset qwen2.5-7b has other dimensions" in text
    assert not any(_listing(ident.names).values())


def test_every_preset_matches_its_own_config() -> None:
    """A config written from any LLM preset (hf_config.to_hf_config) is matched to that preset or its twins."""
    from suanli.catalog.hf_config import from_hf_config, to_hf_config

    cat = packaged_catalog()
    for p in (m for m in cat.models if m.kind == "llm"):
        cfg = dict(to_hf_config(p))
        ident = identify_config(cat.models, from_hf_config(cfg, name="x"), cfg)
        assert p.id in ident.names, (p.id, ident.basis)
        twins = [q for q in cat.models if q.kind == "llm" and dimension_key(q) == dimension_key(p)]
        assert set(ident.names) == {n for q in twins for n in (q.id, *q.aliases)}


def test_migrate_check_reports_the_same_listing_for_both_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run_check (the trace replaced by a stub: the listing does not depend on the operators)."""
    import suanli.trace.cache as trace_cache
    from suanli.cli.migrate_cmd import run_check

    def fake(cfg: dict[str, Any], *, name: str, task: str, **_: Any) -> OpTrace:
        return OpTrace(model=name, task="inference", device="meta", ops={"aten::mm": 1})

    monkeypatch.setattr(trace_cache, "cached_trace", fake)
    reports = [run_check(_write(tmp_path / d, QWEN25_7B), "inference", "2.13")[0]
               for d in ("Qwen2.5-7B", "x/ft")]
    lists = [[(a.name, a.listed, a.matched) for a in r.adapted_lists] for r in reports]
    assert lists[0] == lists[1] and all(listed for _, listed, _ in lists[0])
    assert reports[0].migration_weeks == reports[1].migration_weeks == (1.0, 2.0)
    assert reports[1].adapted_match is not None and reports[1].adapted_match["basis"] == "dimensions"
    altered = run_check(_write(tmp_path / "alt" / "Qwen2.5-7B", {**QWEN25_7B, "num_hidden_layers": 30}),
                        "inference", "2.13")[0]
    assert not any(a.listed for a in altered.adapted_lists) and altered.migration_weeks == (2.0, 4.0)
    assert altered.adapted_match is not None and altered.adapted_match["basis"] == "no-match"
    preset = run_check("qwen2.5-7b", "inference", "2.13")[0]
    assert [(a.name, a.listed) for a in preset.adapted_lists] == [(n, ok) for n, ok, _ in lists[0]]
    assert preset.adapted_match is not None and preset.adapted_match["basis"] == "preset"
