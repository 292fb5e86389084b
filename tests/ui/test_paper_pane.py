"""The paper pane: note preview, search hits styled for each theme."""

from __future__ import annotations

from reader.ui.paper.abstract_html import HIT_STYLES
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


def test_links_break_between_links_never_inside_one(qtbot, window: MainWindow, tmp_path) -> None:
    """The pane wrapped a link inside its URL ("…/some-" and "research-group…" on two lines, read
    as two links): a line breaks only between links, a long one is shortened in the middle to
    the pane's width, the href and the hover keep the whole URL."""
    from PySide6.QtGui import QTextDocument

    from reader.ui.widgets.links import GLUE, SEPARATOR

    from .helpers import import_in_window

    long = "https://github.com/some-research-group/deep-learning-of-long-hyphenated-things/tree/main"
    bib = tmp_path / "links.bib"
    bib.write_text("@article{linky2024, title={A paper with long links}, year={2024},\n"
                   "  url={https://arxiv.org/abs/2401.00001},\n"
                   f"  note={{code at {long}}}, doi={{10.1000/some-long-doi-with-hyphens-2024}}}}\n",
                   encoding="utf-8")
    import_in_window(qtbot, window, bib)
    lib = window.library
    pid = next(p for p in lib.paper_ids() if lib.paper(p).title == "A paper with long links")
    window.select_paper(pid)
    pane = window.pane
    qtbot.waitUntil(lambda: pane.paper_id == pid)
    urls = pane._links
    assert len(urls) >= 2, urls
    label = pane.codeLinks
    for width in (None, 420, 520):
        if width is not None:
            pane.setMaximumWidth(width)  # the splitter gives it no more
            qtbot.waitUntil(lambda w=width: pane.width() <= w)
        qtbot.wait(30)
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(label.text())
        doc.setTextWidth(label.width())
        text = doc.toPlainText()
        starts = {0} | {i + len(SEPARATOR) for i in range(len(text)) if text.startswith(SEPARATOR, i)}
        starts |= {i + len(SEPARATOR) - 1 for i in starts}  # a line may start at the space
        doc.documentLayout().documentSize()  # laid out
        layout = doc.firstBlock().layout()
        lines = [layout.lineAt(n).textStart() for n in range(layout.lineCount())]
        assert lines
        assert set(lines) <= starts, (label.width(), [text[s:s + 12] for s in lines])  # never inside a link
        pieces = text.replace(GLUE, "").split(SEPARATOR)
        assert len(pieces) == len(urls)
        for url in urls:
            assert f"href='{url}'" in label.text()
        widest = max(label.fontMetrics().horizontalAdvance(p) for p in pieces)
        assert widest <= label.width(), (width, widest, label.width())
    pane.setMaximumWidth(16777215)
    label.linkHovered.emit(urls[-1])
    assert urls[-1] in label.toolTip()
