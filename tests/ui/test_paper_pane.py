"""The paper pane: note preview, search hits styled for each theme."""

from __future__ import annotations

from reader.ui.paper.pane import HIT_STYLES
from reader.ui.window.main_window import MainWindow

from .helpers import search


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


def test_user_text_never_reaches_a_tooltip_as_rich_text(qtbot, window: MainWindow) -> None:
    """Titles, tags and highlight comments with markup: every tooltip escapes them (Qt would load <img src>)."""
    from PySide6.QtWidgets import QListWidget, QTreeWidget, QWidget

    from reader.ui.operations import highlights, papers

    hostile = '<img src="file:///etc/passwd">'
    pid = window.pane.paper_id
    papers.add_tags(window.ops, [pid], [f"t{hostile}"])
    papers.set_title(window.ops, pid, f"Title {hostile}")
    highlights.add_highlight(window.ops, pid, 0, 8, "yellow", f"comment {hostile}")
    qtbot.waitUntil(lambda: not window.runner.busy and window.pane.highlightList.count() == 1)
    window.refresh_sidebar()
    qtbot.waitUntil(lambda: not window.runner.busy)
    tips: list[str] = [w.toolTip() for w in window.findChildren(QWidget)]
    for lst in window.findChildren(QListWidget):
        tips += [lst.item(i).toolTip() for i in range(lst.count())]
    for tree in window.findChildren(QTreeWidget):
        stack = [tree.topLevelItem(i) for i in range(tree.topLevelItemCount())]
        while stack:
            item = stack.pop()
            tips += [item.toolTip(c) for c in range(tree.columnCount())]
            stack += [item.child(i) for i in range(item.childCount())]
    assert any("&lt;img" in t for t in tips)  # the hostile text did reach tooltips, escaped
    assert not any("<img" in t for t in tips)


def _shows_colour(label, colour) -> bool:
    """Whether some pixel of the label is (nearly) `colour` (anti-aliased text has a few exact ones)."""
    image = label.grab().toImage()
    want = (colour.red(), colour.green(), colour.blue())
    for y in range(image.height()):
        for x in range(image.width()):
            c = image.pixelColor(x, y)
            if max(abs(c.red() - want[0]), abs(c.green() - want[1]), abs(c.blue() - want[2])) <= 24:
                return True
    return False


def test_links_take_the_new_themes_colour(qtbot, window: MainWindow) -> None:
    """A theme switch used to leave the links line in the old link colour (dark blue on dark)."""
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    window.apply_theme("light")
    for pid in list(window.model.ids()):  # a seed with code links
        window.select_paper(pid)
        if window.pane.codeLinks.text():
            break
    assert window.pane.codeLinks.text()
    window.apply_theme("dark")
    qtbot.wait(20)  # the palette reaches the widgets by events
    link = QApplication.palette().color(QPalette.ColorRole.Link)
    assert _shows_colour(window.pane.codeLinks, link)
    window.apply_theme("light")
