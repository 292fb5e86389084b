"""The window down to its minimum width: the sidebar keeps its width, the list a readable title,
the paper pane gives way (its rows folded, nothing overlapping); 1024 px and wider as before.
And the dark theme's line edits have a frame one can see (the venue filter had none)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QFontMetrics, QImage
from PySide6.QtWidgets import QLineEdit, QWidget

from reader.library import Library
from reader.ui.list.model import COL_TITLE
from reader.ui.operations import papers
from reader.ui.window.main_window import MainWindow
from reader.ui.window.splitter import PANE_MIN_WIDTH, PANE_WIDTH, SIZES


def _resize(qtbot, window: MainWindow, width: int, height: int) -> None:
    window.resize(width, height)
    qtbot.waitUntil(lambda: window.width() == width and window.height() == height)
    qtbot.wait(50)  # the splitter's and the pane's relayouts


def test_narrow_window_keeps_the_sidebar_and_gives_way_in_the_pane(qtbot, window: MainWindow) -> None:
    """At 700 px the sidebar was squeezed to 113 px (the pane's 365 px minimum) and the title
    column was 146 px; the window's minimum also counted the pane's width of the moment."""
    splitter = window.splitter
    for width, height in ((700, 500), (800, 600)):
        _resize(qtbot, window, width, height)
        sidebar, _list, pane = splitter.sizes()
        assert sidebar >= SIZES[0] - 4, (width, splitter.sizes())
        assert PANE_MIN_WIDTH <= pane < PANE_WIDTH
        assert pane >= window.pane.minimumSizeHint().width()
        assert window.table.columnWidth(COL_TITLE) >= 180, width
    assert window.minimumSizeHint().width() < 700
    _resize(qtbot, window, 1024, 640)  # as before: the pane at its comfortable width
    assert splitter.sizes()[0] == SIZES[0] and splitter.sizes()[2] == PANE_WIDTH
    _resize(qtbot, window, 1600, 1000)
    assert splitter.sizes()[0] == SIZES[0] and splitter.sizes()[2] > PANE_WIDTH


def test_near_its_minimum_the_sidebar_gives_way_last_and_keeps_its_names(qtbot, window: MainWindow) -> None:
    """The window could not be narrower than 657 px; at its minimum now the sidebar is squeezed
    last, to the width its sections' names need, and gets its width back afterwards."""
    _resize(qtbot, window, 600, 500)
    sizes = window.splitter.sizes()
    assert SIZES[0] > sizes[0] >= window.sidebar.minimumSizeHint().width()
    assert sizes[1] == window.splitter.widget(1).minimumSizeHint().width() and sizes[2] == PANE_MIN_WIDTH
    assert window.minimumSizeHint().width() <= 600
    tree = window.sidebar
    for item in (tree.topLevelItem(i) for i in range(tree.topLevelItemCount())):
        assert item is not None
        width = QFontMetrics(item.font(0)).horizontalAdvance(item.text(0))
        assert width <= tree.visualRect(tree.indexFromItem(item, 0)).width() - 4, item.text(0)
    _resize(qtbot, window, 1024, 640)
    assert window.splitter.sizes()[0] == SIZES[0]


def _rect_in(widget: QWidget, ancestor: QWidget) -> QRect:
    return QRect(widget.mapTo(ancestor, QPoint(0, 0)), widget.size())


def test_narrow_pane_folds_its_rows_and_nothing_overlaps(qtbot, window: MainWindow, library: Library) -> None:
    pid = window.pane.paper_id
    papers.add_tags(window.ops, [pid], ["diffusion", "generative models", "to-read"])
    qtbot.waitUntil(lambda: len(window.pane.tagEditor.tags()) == 3)
    pane = window.pane
    part = pane.abstractView.parentWidget()
    for width, height, folded in ((700, 500, True), (1024, 640, False)):
        _resize(qtbot, window, width, height)
        widgets = [pane.titleEdit, pane.metaLabel, pane.citationKey, pane.starButton, pane.readButton,
                   pane.highlightButton, pane.highlightComment, pane.tagEditor, pane.abstractView]
        rects = {w.objectName(): _rect_in(w, part) for w in widgets}
        for name, rect in rects.items():
            others = [n for n, r in rects.items() if n != name and r.intersects(rect)]
            assert not others, (width, name, others)
            assert rect.right() < part.width(), (width, name)
        for w in widgets:
            assert w.width() >= w.minimumSizeHint().width(), (width, w.objectName())
        editor = pane.tagEditor
        for chip in editor.findChildren(QWidget, "tagChip") + [editor.input]:
            assert editor.rect().contains(QRect(chip.pos(), chip.size())), (width, "a chip outside the tag box")
        assert (pane.highlightButton.y() > pane.starButton.y()) == folded
        assert (pane.citationKey.y() > pane.metaLabel.y()) == folded


def _border_contrast(window: MainWindow, field: QLineEdit) -> int:
    """How far the frame's left edge (mid-height) is from what is just outside it (0-765)."""
    image: QImage = window.grab().toImage()
    rect = _rect_in(field, window)
    y = rect.center().y()
    outside: QColor = image.pixelColor(rect.left() - 2, y)
    return max(sum(abs(a - b) for a, b in zip(image.pixelColor(x, y).getRgb()[:3], outside.getRgb()[:3], strict=True))
               for x in (rect.left(), rect.left() + 1))


def test_line_edits_have_a_visible_frame_in_both_themes(qtbot, window: MainWindow) -> None:
    """Dark: Fusion's frame is the base colour's own shade, and the venue filter (on the
    sidebar's base) showed none at all (a contrast of 6). Light: its row was a text row's
    height and cut the box in half."""
    sidebar, pane = window.sidebar, window.pane
    qtbot.waitUntil(lambda: bool(sidebar.venue_names()))
    window.setFocus()
    fields = [sidebar.venueFilter, pane.tagEditor.input, pane.highlightComment, pane.citationKey.edit]
    try:
        for theme in ("light", "dark"):
            window.apply_theme(theme)
            qtbot.wait(50)
            assert sidebar.venueFilter.height() >= sidebar.venueFilter.sizeHint().height()
            for field in fields:
                assert _border_contrast(window, field) >= 90, (theme, field.objectName())
            search = window.searchBox
            assert search.sizeHint().height() == sidebar.venueFilter.sizeHint().height()
    finally:
        window.apply_theme("light")
