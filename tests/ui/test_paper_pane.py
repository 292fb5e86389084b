"""The paper pane: note preview, search hits styled for each theme."""

from __future__ import annotations

from reader.ui.main_window import MainWindow
from reader.ui.paper_pane import HIT_STYLES


def search(qtbot, window: MainWindow, query: str) -> None:
    window.searchBox.setText(query)
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == query)


def test_note_preview_in_the_pane(qtbot, window: MainWindow) -> None:
    window.pane.noteEditor.setPlainText("bound $O(n \\log n)$")
    window.pane.set_preview(True)
    assert "O(n log n)" in window.pane.notePreview.toPlainText()
    assert "$" not in window.pane.notePreview.toPlainText()


def test_search_hits_styled_for_each_theme(qtbot, window: MainWindow) -> None:
    search(qtbot, window, "diffusion")
    for pid in list(window.model.ids()):
        window.select_paper(pid)
        if "diffusion" in window.pane.abstractView.toPlainText().lower():
            break
    html_light = window.pane.abstractView.toHtml()
    assert "#ffc98a" in html_light.lower()
    window.apply_theme("dark")
    assert "#9a4d12" in window.pane.abstractView.toHtml().lower()
    assert HIT_STYLES[True] != HIT_STYLES[False]
