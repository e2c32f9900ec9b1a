"""The import graph, walked statically over every module (issue 13): interfaces share a library, never each
other. No api → cli; no core (catalog, estimate, plan, errors, units) → cli, api, store, bench, web or views;
views (the shared library) → no interface; the CLI reaches the API only to serve it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "suanli"
CORE = ("catalog", "estimate", "plan")
INTERFACES = ("cli", "api", "web")


def _package(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "suanli" else ""


def imports_of(path: Path) -> set[str]:
    """Every suanli module this file imports, at any depth (function-level imports included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    rel = path.relative_to(SRC.parent).with_suffix("")
    here = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("suanli")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            if mod.startswith("suanli"):
                out.add(mod)
    return out


def graph() -> dict[str, set[str]]:
    g = {}
    for p in SRC.rglob("*.py"):
        if "migrations" in p.parts:
            continue
        name = ".".join(p.relative_to(SRC.parent).with_suffix("").parts)
        g[name] = imports_of(p)
    return g


RULES: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("api",), ("cli",)),
    (CORE, ("cli", "api", "store", "bench", "web", "views")),
    (("views",), INTERFACES),
    (("store",), INTERFACES),
]


def test_graph_is_walked() -> None:
    g = graph()
    assert "suanli.api.app" in g and "suanli.views.catalog" in g
    assert any(_package(m) == "views" for m in g["suanli.api.routers.catalog"])


@pytest.mark.parametrize(("sources", "forbidden"), RULES, ids=[f"{'|'.join(s)}-x-{'|'.join(f)}" for s, f in RULES])
def test_no_forbidden_imports(sources: tuple[str, ...], forbidden: tuple[str, ...]) -> None:
    bad = sorted(f"{m} → {t}" for m, targets in graph().items() if _package(m) in sources
                 for t in targets if _package(t) in forbidden)
    assert not bad, "forbidden imports:\n" + "\n".join(bad)


def test_cli_reaches_the_api_only_to_serve_it() -> None:
    bad = sorted(f"{m} → {t}" for m, targets in graph().items() if _package(m) == "cli"
                 for t in targets if _package(t) == "api" and m != "suanli.cli.serve_cmd")
    assert not bad, "\n".join(bad)
