"""PySide6's import hook answers from a module's bytes (reader/ui/pyside_imports.py): the same
answer as PySide's own check, without `inspect.getsource` for a module with a `.py` file."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from reader.ui import pyside_imports


def _feature():
    import PySide6.QtCore  # noqa: F401  (loads shibokensupport)

    return sys.modules["shibokensupport.feature"]


def test_the_check_gives_pysides_answer_for_every_loaded_module() -> None:
    feature = _feature()
    pyside_imports.install()
    check = feature._mod_uses_pyside
    assert getattr(check, pyside_imports.MARK, False)
    upstream = check.upstream
    # Modules with a .py file: for any other the check asks PySide's own function.
    modules = [m for m in list(sys.modules.values()) if str(getattr(m, "__file__", "")).endswith(".py")]
    assert len(modules) > 300
    assert [check(m) for m in modules] == [bool(upstream(m)) for m in modules]
    assert any(check(m) for m in modules) and not all(check(m) for m in modules)
    assert not pyside_imports.install()  # once


def test_a_module_imported_later_is_checked_without_inspect(tmp_path: Path, monkeypatch) -> None:
    feature = _feature()
    pyside_imports.install()
    (tmp_path / "uses_qt_here.py").write_text("from PySide6.QtCore import QObject\nX = 1\n", encoding="utf-8")
    (tmp_path / "plain_here.py").write_text("X = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))

    def getsource(obj):
        raise AssertionError("inspect.getsource was called")

    monkeypatch.setattr(inspect, "getsource", getsource)
    try:
        __import__("uses_qt_here")  # (through builtins.__import__, which PySide hooks)
        __import__("plain_here")
    finally:
        sys.modules.pop("uses_qt_here", None)
        sys.modules.pop("plain_here", None)
    assert feature.pyside_feature_dict["uses_qt_here"] == 0  # uses PySide: features may switch
    assert feature.pyside_feature_dict["plain_here"] == -1  # ignored
