"""Layering: the core never imports Qt or reader.ui, the store never the services/search, no import cycles."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.parsing import parse_source

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = parse_source(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_qt_outside_ui():
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "reader").rglob("*.py")
        if "ui" not in p.relative_to(ROOT / "reader").parts[:1]
        and _imports(p) & {"PySide6", "PyQt5", "PyQt6", "shiboken6"}
    ]
    assert offenders == []


def test_core_runs_without_qt_loaded():
    code = (
        "import sys, reader.cli, reader.library, reader.search, reader.importers, "
        "reader.exporters.markdown, reader.text\n"
        "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_module_has_a_docstring():
    missing = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "reader").rglob("*.py")
        if not ast.get_docstring(parse_source(p.read_text(encoding="utf-8")))
    ]
    assert missing == []


# ------------------------------------------------------------------ the import graph
# Every `import` of a reader module, from the ast of every file under reader/. Three kinds:
#   "top"      runs when the module is imported (module level, class bodies, `try`/`if` blocks);
#   "deferred" inside a function: runs on first call (how the CLI reaches exporters lazily);
#   "typing"   under `if TYPE_CHECKING:`: never runs (a module naming a type only in hints).
# Layering rules count all three: a deferred or typing import is still a dependency.
# Cycles: none among "top" imports (Python would fail or half-initialise a module), and none
# among "top" + "deferred" either: a function-local import that closes a loop only hides it.
# Nor with "typing" imports: a module naming its caller's type in a hint still depends on it
# (a caller hands its callee a protocol of what it needs instead: listing.Catalog, triage/ports.py).


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "reader").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The reader modules an import statement loads."""
    if isinstance(node, ast.Import):
        names = {a.name for a in node.names}
    else:
        if node.level:
            package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{node.module}" if node.module else package
        else:
            base = node.module or ""
        names = {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names}
    out = set()
    for name in names:
        while name and name not in MODULES:  # `import reader.x.y` names the module, `from` may name a class
            name = name.rpartition(".")[0]
        if name.startswith("reader"):
            out.add(name)
    return out


def _edges() -> list[tuple[str, str, str]]:
    """(importer, imported, kind) for every import of a reader module."""
    edges = []

    def walk(module: str, nodes: list[ast.stmt], kind: str) -> None:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges.extend((module, t, kind) for t in _targets(module, node) if t != module)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                walk(module, node.body, "typing" if kind == "typing" else "deferred")
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                walk(module, node.body, "typing")
                walk(module, node.orelse, kind)
            else:  # classes, if/try/with/for blocks: their statements run when the module does
                children = [n for f in ("body", "orelse", "finalbody") for n in getattr(node, f, [])
                            if isinstance(n, ast.stmt)]
                children += [n for handler in getattr(node, "handlers", []) for n in handler.body]
                walk(module, children, kind)

    for module, path in MODULES.items():
        walk(module, parse_source(path.read_text(encoding="utf-8")).body, "top")
    return edges


EDGES = _edges()


def _cycles(kinds: set[str]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for a, b, kind in EDGES:
        if kind in kinds:
            graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_import_graph_sees_the_imports():
    # The walker itself: relative, deferred and TYPE_CHECKING imports are all found.
    assert ("reader.ui.window.main_window", "reader.ui.operations.papers", "top") in EDGES
    assert ("reader.ui.operations", "reader.models", "typing") in EDGES
    assert ("reader.__main__", "reader.ui.app", "deferred") in EDGES
    assert ("reader.library.facade", "reader.listing", "top") in EDGES


def test_no_import_cycles_at_module_level():
    assert _cycles({"top"}) == []


def test_no_import_cycles_with_deferred_imports():
    assert _cycles({"top", "deferred"}) == []


@pytest.mark.parametrize("scope", ["core", "reader.ui"])
def test_no_import_cycles_counting_type_checking_imports(scope):
    cycles = [c for c in _cycles({"top", "deferred", "typing"})
              if any(_in(m, "reader.ui") == (scope == "reader.ui") for m in c)]
    assert cycles == []


def test_cycle_finder_sees_a_typing_only_circle():
    # The detector itself: listing -> services at runtime plus a TYPE_CHECKING import back is a circle.
    global EDGES
    saved = EDGES
    try:
        EDGES = [*saved, ("reader.listing", "reader.library", "typing")]
        assert {"reader.listing", "reader.library"} <= set().union(*_cycles({"top", "deferred", "typing"}))
        assert not any("reader.listing" in c for c in _cycles({"top", "deferred"}))
    finally:
        EDGES = saved


# Private Library members (`library._write`, `lib._reader`…) are used only inside library/facade.py
# (and the Library's own modules, through `self`); features reach the library through its
# public methods.
PRIVATE_ACCESS_ALLOWED = {"reader.library.facade"}


def _private_library_access() -> list[str]:
    found = []
    for module, path in MODULES.items():
        if module in PRIVATE_ACCESS_ALLOWED:
            continue
        for node in ast.walk(parse_source(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                continue
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if name in ("lib", "library") or name.endswith("_library"):
                found.append(f"{module}:{node.lineno} {name}.{node.attr}")
    return found


def test_no_private_library_access_outside_services():
    assert _private_library_access() == []


# ------------------------------------------------------------------ floors
# The layer order, from today's import graph (top, deferred and typing imports alike). A unit
# (a top-level module or package of reader/; under reader/ui/, each screen package) imports only
# units on LOWER floors: nothing sideways, nothing up. The packages other branches are adding
# (sources/, group/, ui/sources/, ui/group/) have their floor already.
CORE_FLOORS: list[tuple[str, set[str]]] = [
    ("package", {"reader"}),  # reader/__init__.py: the app's name and version
    ("foundation", {"errors", "events", "plural", "bundled", "logs", "paths", "recent", "workers", "lazy_names",
                    "preread"}),
    ("files", {"derived_files", "output_files"}),  # derived and exported files: regular files only
    ("model", {"models"}),
    ("identity", {"identity", "import_report"}),
    ("text", {"text", "venues"}),
    ("formats and storage", {"importers", "exporters", "store", "search"}),
    ("features", {"listing", "index_upkeep", "ingest", "map", "triage", "vault", "doctor"}),
    ("library", {"library"}),  # the facade: every feature a user action reaches
    ("services", {"sources", "group"}),  # built on the Library (models, identity, importers below)
    ("interfaces", {"cli", "ui"}),  # ui's own floors below; the two never import each other
    ("entry", {"__main__"}),
]
UI_FLOORS: list[tuple[str, set[str]]] = [
    ("thread and undo", {"ui.tasks", "ui.crash", "ui.undo"}),
    ("shared", {"ui.widgets", "ui.context", "ui.change_bridge", "ui.idle_gc", "ui.pyside_imports"}),
    ("operations", {"ui.operations"}),
    ("list and paper", {"ui.list", "ui.paper"}),
    ("page helpers", {"ui.pages"}),  # stacked pages, and what page controllers use of the window
    ("pages", {"ui.triage", "ui.map", "ui.vault", "ui.dialogs", "ui.sources", "ui.group"}),
    ("window", {"ui.window"}),
    ("app", {"ui.app"}),
    ("smoke test", {"ui.smoke"}),  # builds the app
]
# Module imports allowed to cross the UI floors, each named: none today.
UI_EXCEPTIONS: set[tuple[str, str]] = set()
# The interfaces never reach the store: the UI and the CLI go through the Library (reader.library,
# the facade) or a feature.
INTERFACES = {"cli", "ui"}
INTERFACES_NEVER = {"store"}


def _unit(module: str) -> str:
    parts = module.split(".")[1:]
    if not parts:
        return "reader"
    if parts[0] == "ui" and len(parts) > 1:
        return f"ui.{parts[1]}"
    return parts[0]


def _floor_of() -> dict[str, tuple[int, int]]:
    """unit -> (core floor, ui floor) for ordering; ui units sit on the interfaces floor."""
    floors = {}
    for n, (_, units) in enumerate(CORE_FLOORS):
        for u in units:
            floors[u] = (n, -1)
    ui_floor = floors["ui"][0]
    for n, (_, units) in enumerate(UI_FLOORS):
        for u in units:
            floors[u] = (ui_floor, n)
    return floors


FLOOR_OF = _floor_of()


def _layer_violations(edges: list[tuple[str, str, str]]) -> list[str]:
    broken = []
    for a, b, kind in edges:
        ua, ub = _unit(a), _unit(b)
        if ua == ub:
            continue
        if ua not in FLOOR_OF or ub not in FLOOR_OF:
            broken.append(f"{a} -> {b} ({kind}): {ua if ua not in FLOOR_OF else ub} has no floor in the table")
            continue
        if ua.split(".")[0] in INTERFACES and ub in INTERFACES_NEVER:
            broken.append(f"{a} -> {b} ({kind}): the {ua.split('.')[0].upper()} never imports the store")
            continue
        fa, fb = FLOOR_OF[ua], FLOOR_OF[ub]
        if ua.startswith("ui.") and ub.startswith("ui."):
            ok = fb[1] < fa[1] or (a, b) in UI_EXCEPTIONS
        else:
            ok = fb[0] < fa[0]
        if not ok:
            broken.append(f"{a} -> {b} ({kind}): floor {ua} may not import {ub}")
    return broken


# Whoosh's private segment format (reader/search/segments/) has one door, the package itself
# (segments/__init__.py): the search package's modules import it, never its modules; nothing
# outside reader.search imports it at all.
SEGMENTS = "reader.search.segments"


def _segment_leaks(edges: list[tuple[str, str, str]]) -> list[str]:
    return [f"{a} -> {b} ({kind})" for a, b, kind in edges
            if _in(b, SEGMENTS) and not _in(a, SEGMENTS) and not (b == SEGMENTS and _in(a, "reader.search"))]


def test_only_search_imports_the_segment_format():
    assert _segment_leaks(EDGES) == []


@pytest.mark.parametrize("planted", [
    ("reader.library.io", "reader.search.segments.parallel", "typing"),
    ("reader.triage.features", "reader.search.segments.internals", "deferred"),
    ("reader.ui.window.index_sync", "reader.search.segments", "top"),
    ("reader.search.rank", "reader.search.segments.internals", "top"),  # past the door, from inside search
    ("reader.search.rebuild", "reader.search.segments.writer", "deferred"),
])
def test_a_segment_format_import_from_outside_fails(planted):
    assert _segment_leaks([planted]) != []


def test_the_segment_door_is_open_to_search_and_used():
    # The rule above is no blanket ban: the search package goes through the door, and does.
    assert _segment_leaks([("reader.search.index", SEGMENTS, "top")]) == []
    assert any(a.startswith("reader.search.") and not _in(a, SEGMENTS) and b == SEGMENTS for a, b, _ in EDGES)


def test_every_unit_has_a_floor():
    assert sorted({_unit(m) for m in MODULES} - set(FLOOR_OF)) == []


def test_layering_contract():
    assert _layer_violations(EDGES) == []


@pytest.mark.parametrize("planted", [
    ("reader.exporters.markdown", "reader.triage.best", "deferred"),  # upward: a format knowing a feature
    ("reader.text.render", "reader.map.layout", "typing"),  # upward, typing only
    ("reader.triage.best", "reader.vault.sync", "top"),  # sideways between features
    ("reader.ui.list.sidebar", "reader.store.papers", "deferred"),  # the UI past the Library
    ("reader.ui.paper.pane", "reader.ui.window.main_window", "typing"),  # a screen knowing the window
    ("reader.store.papers", "reader.library.facade", "typing"),  # the store knowing its user
    ("reader.cli.main", "reader.ui.app", "deferred"),  # __main__ starts the window, not the CLI
    ("reader.cli.main", "reader.store.daily", "deferred"),  # the CLI past the Library
    ("reader.cli.map", "reader.store.map_rows", "typing"),
])
def test_layering_contract_fails_on_a_planted_import(planted):
    assert _layer_violations([planted]) != []


def test_no_class_name_used_twice():
    # A name says which class it is: `Counts`, `Features` or `Cancelled` in two modules made a
    # reader open both (issue 32). Private helpers (`_Parser`) may repeat.
    seen: dict[str, list[str]] = {}
    for module, path in MODULES.items():
        for node in ast.walk(parse_source(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                seen.setdefault(node.name, []).append(module)
    assert {name: found for name, found in seen.items() if len(found) > 1} == {}


MAX_MODULE_LINES = 600


def test_no_module_longer_than_the_limit():
    # A module a newcomer can read in one sitting (issue 32); split by responsibility before this.
    long = {module: n for module, path in MODULES.items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert long == {}


# ------------------------------------------------------------------ the screens
# Page controllers are built from one frozen PageContext (reader/ui/pages.py), never from the
# window or a Protocol of it; the window only assembles them (issue 32).
PAGE_CONTROLLERS = {
    "reader.ui.map.controller": "MapController",
    "reader.ui.triage.controller": "TriageController",
    "reader.ui.sources.controller": "SourcesController",
    "reader.ui.vault.sync": "VaultSync",
    "reader.ui.group.sync": "GroupSync",
    "reader.ui.window.import_export": "ImportExport",
}


def _first_parameter(module: str, cls: str, method: str = "__init__") -> str:
    """The annotation of the first parameter after self of `cls.method`, as written."""
    for node in ast.walk(parse_source(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    arg = item.args.args[1]
                    return ast.unparse(arg.annotation) if arg.annotation is not None else ""
    raise AssertionError(f"{module}.{cls}.{method} not found")


def test_page_controllers_are_built_from_the_page_context():
    assert {f"{m}.{c}": _first_parameter(m, c) for m, c in PAGE_CONTROLLERS.items()} == {
        f"{m}.{c}": "PageContext" for m, c in PAGE_CONTROLLERS.items()}
    assert _first_parameter("reader.ui.triage.rank", "TriageRanking") == "PageContext"


def test_no_window_protocol_for_pages():
    tree = parse_source(MODULES["reader.ui.pages"].read_text(encoding="utf-8"))
    protocols = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
                 and any(ast.unparse(b) == "Protocol" for b in n.bases)]
    assert [name for name in protocols if name.endswith("Window")] == []


def test_triage_ranking_is_typed():
    # No `Any` in the ranking's interface: what it reads of the controller is a Protocol.
    text = MODULES["reader.ui.triage.rank"].read_text(encoding="utf-8")
    assert "Any" not in {n.id for n in ast.walk(parse_source(text)) if isinstance(n, ast.Name)}


MAIN_WINDOW_LINES = 400


def test_the_main_window_only_assembles():
    assert len(MODULES["reader.ui.window.main_window"].read_text(encoding="utf-8").splitlines()) < MAIN_WINDOW_LINES
