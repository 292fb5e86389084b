"""The screenshot scripts in scripts/ still fit the window they drive (a move of a method or a
module, like `window.ask_add_venue` becoming `window.sources.ask_add_venue`, broke them silently).

Cheap: nothing is rendered. Each script is parsed; every `from reader… import name` in it must
import, and every attribute chain it reads on the window (`window.map.canvas…`, or on a name
bound to one, `ctl = window.map`) must exist on a real main window: an attribute a controller
sets later (`self.dialog = …` in a method) counts when its class's module assigns it."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from typing import Any

import pytest

from tests.parsing import parse_source

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
SHOT_SCRIPTS = sorted(p for p in SCRIPTS.glob("*.py")
                      if p.name == "shots.py" or p.name.startswith("shots_") or p.name.endswith("screenshots.py")
                      or p.name in ("atspi_check.py", "vault_gui_bench.py"))
WINDOW_NAMES = {"window", "w", "new"}  # what the scripts call the main window


def _chain(node: ast.AST) -> list[str] | None:
    """`window.a.b` → ['window', 'a', 'b'] (None unless it is names and attributes only)."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    names.append(node.id)
    return names[::-1]


def window_chains(tree: ast.AST) -> set[tuple[str, ...]]:
    """Attribute chains read on the window, aliases (`ctl = window.map`) expanded to the window."""
    aliases: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            chain = _chain(node.value)
            if chain and chain[0] in WINDOW_NAMES and len(chain) > 1 and node.targets[0].id not in WINDOW_NAMES:
                aliases[node.targets[0].id] = chain[1:]
    found: set[tuple[str, ...]] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = _chain(node)
        if not chain or len(chain) < 2:
            continue
        if chain[0] in WINDOW_NAMES:
            found.add(tuple(chain[1:]))
        elif chain[0] in aliases:
            found.add(tuple(aliases[chain[0]] + chain[1:]))
    # keep the longest chains only: each prefix is checked on the way
    return {c for c in found if not any(len(o) > len(c) and o[:len(c)] == c for o in found)}


def reader_imports(tree: ast.AST) -> set[tuple[str, str]]:
    return {(node.module, alias.name) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("reader")
            for alias in node.names}


def _assigned_later(obj: Any, name: str) -> bool:
    """`self.<name> =` somewhere in the module of `obj`'s class (set when a dialog opens, say)."""
    try:
        source = inspect.getsource(inspect.getmodule(type(obj)))  # type: ignore[arg-type]
    except (TypeError, OSError):
        return False
    return f"self.{name} =" in source or f"self.{name}:" in source


def missing_on(window: Any, chain: tuple[str, ...]) -> str | None:
    """The first link of `chain` the window lacks ('window.a.b'), or None."""
    obj = window
    for depth, name in enumerate(chain):
        if hasattr(obj, name):
            obj = getattr(obj, name)
            if obj is None:
                return None  # filled later (the map's picture once it opens): not known now
            continue
        if depth > 0 and _assigned_later(obj, name):
            return None  # set later: what lies beyond it is not known now
        return "window." + ".".join(chain[: depth + 1])
    return None


def test_the_screenshot_scripts_are_found() -> None:
    names = {p.name for p in SHOT_SCRIPTS}
    assert {"shots.py", "shots_sources.py", "shots_first_hour.py", "shots_dialogs.py", "screenshots.py"} <= names


@pytest.mark.parametrize("script", SHOT_SCRIPTS, ids=lambda p: p.stem)
def test_screenshot_script_imports_exist(script: Path) -> None:
    tree = parse_source(script.read_text("utf-8"), str(script))
    for module, name in sorted(reader_imports(tree)):
        mod = importlib.import_module(module)
        assert hasattr(mod, name) or importlib.util.find_spec(f"{module}.{name}") is not None, \
            f"{script.name}: from {module} import {name}: no such name"


def test_screenshot_scripts_read_only_what_the_window_has(window) -> None:
    problems = []
    for script in SHOT_SCRIPTS:
        tree = parse_source(script.read_text("utf-8"), str(script))
        for chain in sorted(window_chains(tree)):
            where = missing_on(window, chain)
            if where is not None:
                problems.append(f"{script.name}: {where}")
    assert not problems, "\n".join(problems)


def test_a_moved_method_is_caught(window) -> None:
    """The check itself fails on the old spelling of shots_sources.py (the method moved)."""
    tree = parse_source("ctl = window.sources\nwindow.ask_add_venue()\nctl.no_such_method()\n")
    chains = window_chains(tree)
    assert missing_on(window, ("ask_add_venue",)) == "window.ask_add_venue"
    assert [missing_on(window, c) for c in sorted(chains)] == ["window.ask_add_venue", "window.sources.no_such_method"]
    assert missing_on(window, ("sources", "ask_add_venue")) is None
