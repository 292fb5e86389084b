"""SQL lives in reader/store/ only: no other module calls execute* on a connection."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.parsing import parse_source

READER = Path(__file__).resolve().parents[2] / "reader"
_EXECUTE = {"execute", "executemany", "executescript"}


def _execute_calls(path: Path) -> list[int]:
    tree = parse_source(path.read_text(encoding="utf-8"))
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _EXECUTE
    ]


def test_no_execute_outside_the_store():
    offenders = [
        f"{path.relative_to(READER.parent)}:{line}"
        for path in sorted(READER.rglob("*.py"))
        if path.relative_to(READER).parts[0] != "store"
        for line in _execute_calls(path)
    ]
    assert offenders == []


def test_the_check_sees_a_call(tmp_path):
    sample = tmp_path / "m.py"
    sample.write_text("def f(conn):\n    conn.execute('SELECT 1')\n", encoding="utf-8")
    assert _execute_calls(sample) == [2]
