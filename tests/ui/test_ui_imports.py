"""The UI's import graph: nothing below the main window imports it, not even for type hints (issue 22:
the circle around main_window; test_architecture checks there is no circle at all)."""

from __future__ import annotations

from tests.test_architecture import EDGES

# The entries that build a window: the app and the smoke test.
BUILDERS = {"reader.ui.app", "reader.ui.smoke"}
# Merged after the helpers were freed of it, these still name MainWindow in type hints (to be
# given narrow hosts like the others); the list may only shrink.
STILL_TYPED_WITH_THE_WINDOW = {"reader.ui.about", "reader.ui.dialogs", "reader.ui.empty_state", "reader.ui.libraries",
                               "reader.ui.preferences"}


def test_only_the_entries_import_the_main_window() -> None:
    importers = {a for a, b, _ in EDGES if b == "reader.ui.main_window"}
    assert importers - STILL_TYPED_WITH_THE_WINDOW <= BUILDERS
    assert STILL_TYPED_WITH_THE_WINDOW <= importers  # one was fixed: drop it from the list

