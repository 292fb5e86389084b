"""Layering: the core never imports Qt or reader.ui, the store never the services/search, no import cycles."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
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
        if not ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")))
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
        walk(module, ast.parse(path.read_text(encoding="utf-8")).body, "top")
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
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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


def test_layering_contract():
    broken = []
    for a, b, kind in EDGES:
        core = not _in(a, "reader.ui") and a != "reader.__main__"
        if core and _in(b, "reader.ui"):
            broken.append(f"core {a} imports {b} ({kind})")
        if _in(a, "reader.store") and (_in(b, "reader.library") or _in(b, "reader.search")):
            broken.append(f"store {a} imports {b} ({kind})")
        if _in(a, "reader.cli") and _in(b, "reader.ui"):
            broken.append(f"{a} imports {b} ({kind}): reader.__main__ starts the window")
    assert broken == []
