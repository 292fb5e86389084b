"""The core never imports Qt; only reader/ui/ does."""

import ast
import subprocess
import sys
from pathlib import Path

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
        "import sys, reader.cli, reader.services, reader.search, reader.importers, "
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
