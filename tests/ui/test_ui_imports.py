"""The UI's import graph: nothing below the main window imports it, and no circle among reader.ui
modules, counting TYPE_CHECKING and function-local imports (issue 22: the circle around main_window)."""

from __future__ import annotations

from tests.test_architecture import EDGES, _cycles

# The entries that build a window: the app and the smoke test.
BUILDERS = {"reader.ui.app", "reader.ui.smoke"}


def test_only_the_entries_import_the_main_window() -> None:
    importers = {a for a, b, _ in EDGES if b == "reader.ui.main_window"}
    assert importers <= BUILDERS


def test_no_circle_in_the_ui_even_counting_type_hints() -> None:
    ui_cycles = [c for c in _cycles({"top", "deferred", "typing"}) if any(m.startswith("reader.ui") for m in c)]
    assert ui_cycles == []
