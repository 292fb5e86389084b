"""The UI's import graph: nothing below the main window imports it, not even for type hints (issue 22:
the circle around main_window; test_architecture checks there is no circle at all)."""

from __future__ import annotations

from tests.test_architecture import EDGES

# The entries that build a window: the app and the smoke test.
BUILDERS = {"reader.ui.app", "reader.ui.smoke"}


def test_only_the_entries_import_the_main_window() -> None:
    importers = {a for a, b, _ in EDGES if b == "reader.ui.window.main_window"}
    assert importers <= BUILDERS
