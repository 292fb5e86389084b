"""What a new user meets in the first hour (issue 30): the window on the screen, what a screen
reader hears on the triage card, the map and the status bar, the list's scroll after the map
and triage, the map's Triage with the search's highlights, the search box beside "Did you
mean", a new library without the sample, the sidebar's share, Ctrl+O, Rebuild's Cancel, the map's
count and selection agreeing, the sidebar after a restart, the counts' format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAccessible, QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget

from reader.library import Library, View
from reader.ui.paper.abstract_html import HIT_STYLES
from reader.ui.window.main_window import MainWindow

from .helpers import key, release_modifiers, shown
from .test_map import open_map, screen_pos

TAG = re.compile(r"<\s*/?\s*[a-zA-Z][^>]*>")


def _new_window(qtbot, library: Library) -> MainWindow:
    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    release_modifiers(w)
    qtbot.waitUntil(lambda: w.index_ready and not w.runner.busy)
    return w


# ---------------------------------------------------------------------- the window fits the screen
def test_the_first_window_fits_a_small_screen(qtbot, library: Library, monkeypatch) -> None:
    """1280 x 800 on a 1024 x 640 screen hid the paper pane and the status bar."""
    from reader.ui.window import window_size

    monkeypatch.setattr(window_size, "available", lambda _w=None: QRect(0, 0, 1024, 640))
    w = _new_window(qtbot, library)
    qtbot.waitUntil(lambda: w.frameGeometry() == QRect(0, 0, 1024, 640))  # the frame too fits
    assert w.status.isVisible() and w.pane.isVisible()
    assert w.pane.geometry().right() <= w.width() and w.status.geometry().bottom() <= w.height()
    w.close()


def test_the_first_window_on_a_desktop_screen(qtbot, window: MainWindow) -> None:
    assert window.size().toTuple() == (1280, 800)
    assert QRect(0, 0, 1920, 1200).contains(window.geometry())


def test_the_last_size_per_screen_comes_back_clamped(qtbot, library: Library, monkeypatch) -> None:
    from reader.ui.window import window_size

    big = QRect(0, 0, 1600, 1000)
    monkeypatch.setattr(window_size, "available", lambda _w=None: big)
    monkeypatch.setattr(window_size, "screen_key", lambda _s=None: "A 1600x1000+0+0")
    first = _new_window(qtbot, library)
    first.setGeometry(QRect(60, 50, 1100, 700))
    first.close()
    for _ in range(3):  # every restart, not one of three
        again = _new_window(qtbot, library)
        assert again.geometry() == QRect(60, 50, 1100, 700)
        again.close()
    # Another screen: its own first size; a smaller one clamps what was saved for it.
    monkeypatch.setattr(window_size, "screen_key", lambda _s=None: "B 1024x640+0+0")
    small = QRect(0, 0, 1024, 640)
    monkeypatch.setattr(window_size, "available", lambda _w=None: small)
    other = _new_window(qtbot, library)
    qtbot.waitUntil(lambda: other.frameGeometry() == QRect(0, 0, 1024, 640))
    other.setGeometry(QRect(10, 10, 900, 600))
    other.close()
    monkeypatch.setattr(window_size, "screen_key", lambda _s=None: "A 1600x1000+0+0")
    monkeypatch.setattr(window_size, "available", lambda _w=None: big)
    back = _new_window(qtbot, library)
    assert back.geometry() == QRect(60, 50, 1100, 700)
    back.close()
    # The screen A shrank (its area is now 1024 x 640): what was saved for it is clamped.
    monkeypatch.setattr(window_size, "available", lambda _w=None: small)
    shrunk = _new_window(qtbot, library)
    qtbot.waitUntil(lambda: shrunk.frameGeometry() == QRect(0, 0, 1024, 640))
    shrunk.close()


# ---------------------------------------------------------------------- accessible everywhere
def _description(widget: QWidget) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Description) if iface is not None else ""


def _name(widget: QWidget) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Name) if iface is not None else ""


def _open_triage(qtbot, window: MainWindow):
    ctl = window.triage
    key(qtbot, window.table, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    return ctl


def test_the_triage_card_is_read_with_its_text(qtbot, window: MainWindow) -> None:
    ctl = _open_triage(qtbot, window)
    v = ctl.view
    first = v.titleLabel.text()
    assert first and _name(v.titleLabel) == first and _description(v.titleLabel) == "Title"
    assert _name(v.progressText) == v.progressText.text() and "/" in _name(v.progressText)
    assert _description(v.progressText) == "Progress"
    assert _name(v.queueLabel) == v.queueLabel.text() and v.queueLabel.text()
    assert _name(v.metaLabel) == v.metaLabel.text()
    key(qtbot, v, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: v.titleLabel.text() != first)
    assert _name(v.titleLabel) == v.titleLabel.text()  # follows the card
    assert _name(v.progressText) == v.progressText.text()
    v.show_why("like “A” you starred · graph")
    assert _name(v.whyLabel) == "Why: like “A” you starred · graph" and _description(v.whyLabel) == "Why this paper"


def _plain_descriptions(root: QWidget) -> list[str]:
    return [f"{type(w).__name__} {w.objectName()!r}: {_description(w)!r}"
            for w in [root, *root.findChildren(QWidget)] if TAG.search(_description(w) or "")]


def test_descriptions_are_plain_text(qtbot, window: MainWindow) -> None:
    assert window.pane.titleEdit.toolTip()  # a tooltip in HTML was read as "<p>Title</p>"
    assert not _plain_descriptions(window), _plain_descriptions(window)
    ctl = _open_triage(qtbot, window)
    assert not _plain_descriptions(ctl.view), _plain_descriptions(ctl.view)


def test_the_status_bar_reads_what_it_shows(qtbot, window: MainWindow) -> None:
    bar = window.status
    qtbot.waitUntil(lambda: "papers" in bar.countsLabel.text())
    assert bar.countsLabel.text() in _name(bar)
    bar.showMessage("3 papers selected on the map", 4000)
    assert "3 papers selected on the map" in _name(bar)
    bar.clearMessage()
    assert "selected on the map" not in _name(bar) and bar.countsLabel.text() in _name(bar)


@pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")  # the hover's tooltip
def test_the_map_says_what_it_shows_selects_and_hovers(qtbot, window: MainWindow) -> None:
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    n = len(canvas.picture)
    assert f"{n} papers" in canvas.accessibleName() and "regions" in canvas.accessibleName()
    assert "No paper selected" in canvas.accessibleDescription()
    key(qtbot, canvas, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: f"{n} papers selected" in canvas.accessibleDescription())
    controller.select([canvas.picture.ids[0]])
    title = canvas.picture.titles[0]
    assert f"Selected: {title}" in canvas.accessibleDescription()
    pos = screen_pos(canvas, 3)
    event = QMouseEvent(QMouseEvent.Type.MouseMove, pos, canvas.mapToGlobal(pos), Qt.MouseButton.NoButton,
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(canvas, event)
    hovered = canvas.picture.titles[canvas.point_at(pos)]
    qtbot.waitUntil(lambda: f"Under the pointer: {hovered}" in canvas.accessibleDescription())
    years = controller.page.years
    assert re.search(r"\d{4}", years.accessibleDescription()), years.accessibleDescription()


# ---------------------------------------------------------------------- the map, triage and the list
def test_the_maps_triage_highlights_the_search_terms(qtbot, window: MainWindow) -> None:
    window.searchBox.setText("attention")
    window.refresh_list()
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == "attention")
    controller = open_map(qtbot, window)
    qtbot.waitUntil(lambda: controller.canvas.marks.hits is not None)
    key(qtbot, controller.canvas, Qt.Key.Key_L)
    assert controller.selected_ids()
    controller.page.selection_actions["triage"].trigger()
    ctl = window.triage
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    assert ctl.terms and HIT_STYLES[False] in ctl.view.card.html


def test_the_maps_count_and_its_selection_agree_while_typing(qtbot, window: MainWindow) -> None:
    controller = open_map(qtbot, window)
    box = window.searchBox
    box.setFocus()
    qtbot.keyClicks(box, "mod")  # typed: the last word is a prefix (model, modal, modern…)
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == "mod")
    total = window.model.total()
    qtbot.waitUntil(lambda: controller.canvas.marks.hits is not None and controller.hit_query == "mod")
    qtbot.waitUntil(lambda: controller.canvas.marks.hits is not None
                    and int(controller.canvas.marks.hits.sum()) == total)
    key(qtbot, controller.canvas, Qt.Key.Key_L)
    assert len(controller.selected_ids()) == total


def test_after_map_and_triage_the_list_starts_at_the_top_of_the_search(qtbot, window: MainWindow) -> None:
    """Searched on the map, its hits triaged from the map, back to the list: it started at rank
    38 (the paper triage ended on), the best hits above the viewport."""
    window.resize(1024, 640)
    controller = open_map(qtbot, window)
    window.searchBox.setText("model")
    window.refresh_list()
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == "model")
    qtbot.waitUntil(lambda: controller.canvas.marks.hits is not None)
    assert window.model.rowCount() > 40
    controller.select(controller.canvas.shown_ids(lit_only=True))
    controller.page.selection_actions["triage"].trigger()
    ctl = window.triage
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    for _ in range(45):
        ctl.run_command("next")
    deep = ctl.queue.current
    ctl.run_command("back")
    qtbot.waitUntil(lambda: controller.active and not ctl.active)
    assert window.reads.current == deep and shown(qtbot, window) == deep  # the paper triage ended on is shown…
    controller.close()
    assert window.table.verticalScrollBar().value() == 0 and window.table.rowAt(0) == 0  # …the list at its top


def test_j_after_leaving_triage_stays_in_the_lasso(qtbot, window: MainWindow) -> None:
    controller = open_map(qtbot, window)
    ids = window.model.ids()
    chosen = [ids[5], ids[20], ids[40]]
    controller.select(chosen)
    controller.page.selection_actions["triage"].trigger()
    ctl = window.triage
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    key(qtbot, ctl.view, Qt.Key.Key_J)
    key(qtbot, ctl.view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: controller.active and not ctl.active)
    qtbot.waitUntil(lambda: controller.canvas.hasFocus())
    for _ in range(3):
        reads = window.reads.reads_one
        key(qtbot, controller.canvas, Qt.Key.Key_J)
        assert window.reads.current in chosen, "J left the lasso"
        assert window.reads.reads_one - reads <= 1  # a paper not read ahead is read once, not twice
    assert set(controller.selected_ids()) == set(chosen)


def test_an_import_shows_the_imported_papers(qtbot, window: MainWindow, tmp_path: Path) -> None:
    window.resize(1024, 640)
    table = window.table
    table.scrollToBottom()
    window.table.go_to_row(window.model.rowCount() - 1)
    src = tmp_path / "new.jsonl"
    src.write_text('{"title": "A freshly imported paper on tidal energy", "abstract": "Tidal turbines '
                   'convert the energy of tides into electricity."}\n', "utf-8")
    window.transfer.import_paths([str(src)])
    qtbot.waitUntil(lambda: window.last_import_summaries != [])
    qtbot.waitUntil(lambda: window.model.rowCount() == 57)
    new_id = next(p.id for p in window.library.papers(window.library.paper_ids())
                  if p.title.startswith("A freshly imported"))
    qtbot.waitUntil(lambda: window.pane.paper_id == new_id)
    row = window.model.row_of(new_id)
    assert table.rowAt(0) <= row <= table.rowAt(table.viewport().height() - 1)


# ---------------------------------------------------------------------- search box, sidebar, shortcuts
def test_the_search_box_keeps_its_width_beside_did_you_mean(qtbot, window: MainWindow) -> None:
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.splitter.sizes()[2] < 400)
    before = window.searchBox.width()
    bar = window.searchBar
    bar.resultLabel.setText("0 results")
    bar.suggestionLabel.setText("Did you mean <a href='suggest'>sparse attention transformers</a>?")
    bar.suggestionLabel.setProperty("suggestion", "sparse attention transformers")
    bar.suggestionLabel.show()
    qtbot.waitUntil(lambda: bar.suggestionLabel.isVisible())
    QApplication.processEvents()
    assert window.searchBox.width() >= min(before, 240), (before, window.searchBox.width())
    assert bar.suggestionLabel.isVisible()


def test_the_sidebar_takes_a_fair_share_of_a_wide_window(qtbot, window: MainWindow) -> None:
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600 or window.width() == window.screen().availableGeometry().width())
    QApplication.processEvents()
    assert window.sidebar.width() >= 0.13 * window.width(), window.splitter.sizes()


def test_ctrl_o_asks_for_a_library_wherever_the_focus_is(qtbot, window: MainWindow, monkeypatch) -> None:
    asked: list[str] = []
    from reader.ui.window import libraries

    monkeypatch.setattr(libraries.QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: asked.append("asked") or ""))
    for focus in (window.table, window.searchBox, window.sidebar, window):
        focus.setFocus()
        key(qtbot, focus, Qt.Key.Key_O, Qt.KeyboardModifier.ControlModifier)
    assert len(asked) == 4, asked


def test_file_dialogs_follow_the_dark_theme(qtbot, window: MainWindow, monkeypatch) -> None:
    from PySide6.QtWidgets import QFileDialog

    from reader.ui.window import libraries

    seen: list[object] = []

    def ask(*args, **kwargs):
        seen.append(kwargs.get("options", args[3] if len(args) > 3 else None))
        return ""

    monkeypatch.setattr(libraries.QFileDialog, "getExistingDirectory", staticmethod(ask))
    window.apply_theme("dark")
    libraries.ask_open(window, MainWindow)
    window.apply_theme("light")
    libraries.ask_open(window, MainWindow)
    dont = QFileDialog.Option.DontUseNativeDialog
    assert seen[0] is not None and seen[0] & dont  # Qt's own dialog, in the dark palette
    assert not (seen[1] & dont)  # the platform's own where it matches


def test_rebuild_shows_a_working_cancel(qtbot, window: MainWindow) -> None:
    bar = window.status
    window.index_sync.reindex()
    qtbot.waitUntil(lambda: bar.cancelButton.isVisible())
    bar.cancelButton.click()
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert not bar.cancelButton.isVisible()


def test_the_counts_are_formatted_alike(qtbot, window: MainWindow) -> None:
    from types import SimpleNamespace

    window.status.show_counts(SimpleNamespace(total=3278, starred=1200, read=0))
    assert window.status.countsLabel.text() == "3,278 papers · 1,200 starred · 0/3,278 read"


def test_after_a_restart_the_sidebar_shows_the_list_it_lists(qtbot, library: Library) -> None:
    pid = library.paper_ids()[0]
    library.set_starred([pid], True)
    w = _new_window(qtbot, library)
    w.sidebar.select_view(View("starred"))
    qtbot.waitUntil(lambda: w.model.rowCount() == 1)
    w.close()
    again = _new_window(qtbot, library)
    qtbot.waitUntil(lambda: again.sidebar.counts is not None)
    current = again.sidebar.currentItem()
    assert current is not None and current.text(0) == "Starred"
    assert again.view == View("starred") and again.model.rowCount() == 1
    again.close()


# ---------------------------------------------------------------------- the sample where it belongs
def test_a_library_opened_from_the_file_menu_starts_empty_and_offers_the_sample(
        qtbot, window: MainWindow, tmp_path: Path) -> None:
    from reader.ui.window import libraries

    folder = tmp_path / "hci"
    folder.mkdir()
    new = libraries.switch_library(window, folder, lambda lib: _new_window(qtbot, lib))
    assert new is not None and new is not window
    assert new.library.paper_ids() == []
    state = new.empty_state
    qtbot.waitUntil(lambda: state.isVisible())
    assert state.sampleButton.isVisible()
    state.sampleButton.click()
    qtbot.waitUntil(lambda: new.model.rowCount() == 56)
    new.close()


# ---------------------------------------------------------------------- the map's drawing
def test_selected_points_keep_their_colours_in_the_dark(qapp) -> None:
    import numpy as np
    from PySide6.QtGui import QImage

    from reader.map.view import MapView
    from reader.store.map_rows import STARRED, MapMarks
    from reader.ui.map import render as mr

    w, h = 40, 30
    sxy = np.array([[15, 15], [20, 15], [25, 15]], dtype=np.float32)  # 5 px apart: a dense region
    view = MapView(["a", "b", "c"], sxy, np.zeros(3, np.int32), np.zeros(3, np.int32), [], 0)
    pic = mr.MapPicture(view, MapMarks((), (), (), (), ()))
    pic.state = np.full(3, STARRED, dtype=pic.state.dtype)
    pal = mr.palette(True)
    cam = mr.Camera(scale=1.0, ox=0.0, oy=0.0, fit_scale=1.0)
    img, _buf = mr.raster(pic, cam, w, h, pal, mr.Marks(selected=np.ones(3, dtype=bool)))
    img = img.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(img.constBits(), dtype=np.uint32).reshape(h, img.bytesPerLine() // 4)
    star = pal.states[STARRED] & 0xFFFFFF
    assert all(rows[15, x] & 0xFFFFFF == star for x in (15, 20, 25))  # not the selection's white
    assert (rows & 0xFFFFFF == pal.selected & 0xFFFFFF).any()  # the selection still shows (around them)


def test_the_year_labels_never_overlap() -> None:
    from reader.ui.map.page import year_labels

    def advance(text: str) -> int:
        return 8 * len(text)

    for count, width in ((136, 300), (136, 1000), (40, 300), (7, 300), (3, 90)):
        years = list(range(1890, 1890 + count))
        labels = year_labels(years, width / count, width, advance)
        ends = [(x, x + advance(t)) for x, t in labels]
        assert all(b[0] >= a[1] + 6 for a, b in zip(ends, ends[1:], strict=False)), labels
        assert labels[0][1] == str(years[0]) and labels[-1][1] == str(years[-1]), labels
        assert all(0 <= x and x + advance(t) <= width for x, t in labels)


def test_a_small_lists_label_leaves_its_points_visible(qapp) -> None:
    import numpy as np
    from PySide6.QtGui import QFont

    from reader.map.view import ClusterSpot, MapView
    from reader.store.map_rows import MapMarks
    from reader.ui.map import render as mr

    # Six starred papers in a row: their region's label, at its centre, covered them.
    xy = np.array([[x, 0.0] for x in range(6)], dtype=np.float32)
    spot = ClusterSpot(0, 0, "bandits · regret", 6, 2.5, 0.0)
    view = MapView([f"p{i}" for i in range(6)], xy, np.zeros(6, np.int32), np.zeros(6, np.int32), [spot], 0)
    pic = mr.MapPicture(view, MapMarks((), (), (), (), ()))
    cam = mr.Camera()
    cam.fit(pic.xy, 400, 300)
    labels = mr.place_labels(pic, cam, 400, 300, QFont())
    assert len(labels) == 1
    box = labels[0][0]
    assert mr._covered(cam.to_screen(pic.xy), box) == 0, box


def test_the_shown_window_takes_the_keyboard(qtbot, library: Library) -> None:
    """Without a window manager nothing activated the window: no shortcut worked (Ctrl+O did
    nothing twice; File → Open library… did). scripts/atspi_check.py checks it under Xvfb."""
    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    w.show()  # no activateWindow() here, unlike the `window` fixture
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w and QApplication.focusWidget() is w.table)
    w.close()
