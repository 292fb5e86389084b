"""View → Map: opening it, clicking and rubber-band selecting, keyboard zoom, search hits, years, the cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from reader.library import Library
from reader.map import mapfile
from reader.map.marks import UNREAD
from reader.ui.map import render as mr
from reader.ui.map.page import MapCanvas
from reader.ui.window.main_window import MainWindow

from .helpers import key


def open_map(qtbot, window: MainWindow):
    controller = window.map
    before = controller.generation
    key(qtbot, window, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: controller.generation > before)
    return controller


def screen_pos(canvas, i: int) -> QPoint:
    x, y = canvas.camera.to_screen(canvas.picture.xy[i : i + 1])[0]
    return QPoint(int(round(x)), int(round(y)))


def test_ctrl_m_opens_the_map_of_the_list(qtbot, window: MainWindow):
    controller = open_map(qtbot, window)
    canvas = window.findChild(MapCanvas, "mapView")
    assert canvas is controller.canvas and canvas.isVisible()
    assert canvas.accessibleName()
    assert len(canvas.picture) == window.model.rowCount() == 56
    assert mapfile.path_for(window.library.paths.root).exists()
    key(qtbot, window, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier)
    assert not controller.active and window.table.isVisible()


def test_a_click_shows_the_paper(qtbot, window: MainWindow):
    canvas = open_map(qtbot, window).canvas
    target = next(i for i in range(len(canvas.picture)) if canvas.picture.ids[i] != window.pane.paper_id)
    pos = screen_pos(canvas, target)
    hit = canvas.point_at(pos)
    assert hit is not None
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: window.pane.paper_id == canvas.picture.ids[hit])
    assert window.current_id() == canvas.picture.ids[hit]


def test_a_rubber_band_selects_and_the_selection_gets_tagged(qtbot, window: MainWindow, monkeypatch):
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    xy = canvas.camera.to_screen(canvas.picture.xy)
    left = xy[:, 0] < np.median(xy[:, 0])  # the left half of the map
    expected = {canvas.picture.ids[i] for i in np.flatnonzero(left)}
    corner, far = QPoint(1, 1), QPoint(int(np.median(xy[:, 0])) - 1, canvas.height() - 2)
    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, shift, corner)
    qtbot.mouseMove(canvas, far)
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, shift, far)
    got = set(controller.selected_ids())
    assert got and got <= expected and len(got) >= len(expected) - 2  # points on the median line
    assert set(window.selected_ids()) == got  # the list's actions see them
    monkeypatch.setattr("reader.ui.map.controller.QInputDialog.getText", lambda *a, **k: ("mapped", True))
    controller.page.buttons["tag"].click()
    lib = window.library
    qtbot.waitUntil(lambda: {p.id for p in lib.papers(lib.paper_ids()) if "mapped" in p.tags} == got)


def test_keys_zoom_pan_and_fit(qtbot, window: MainWindow):
    canvas = open_map(qtbot, window).canvas
    canvas.setFocus()
    assert canvas.camera.zoom == 1.0
    key(qtbot, canvas, Qt.Key.Key_Plus)
    key(qtbot, canvas, Qt.Key.Key_Plus)
    assert canvas.camera.zoom > 1.5
    ox = canvas.camera.ox
    key(qtbot, canvas, Qt.Key.Key_Right)
    assert canvas.camera.ox < ox
    key(qtbot, canvas, Qt.Key.Key_Minus)
    key(qtbot, canvas, Qt.Key.Key_0)
    assert canvas.camera.zoom == 1.0


def _pixels(canvas) -> set[int]:
    image = canvas.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)  # kept while read
    return set(np.unique(np.frombuffer(image.constBits(), dtype=np.uint32)).tolist())


def test_typing_a_search_lights_its_hits_and_dims_the_rest(qtbot, window: MainWindow):
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    pal = mr.palette(False)
    assert pal.dim not in _pixels(canvas)
    window.searchBox.setText("attention")
    qtbot.waitUntil(lambda: canvas.marks.hits is not None)
    hits = canvas.marks.hits
    assert 0 < hits.sum() < len(hits)
    lit = {canvas.picture.ids[i] for i in np.flatnonzero(hits)}
    found = set(window.library.listing("attention").ids)
    assert lit == found
    colours = _pixels(canvas)
    assert pal.dim in colours and pal.hit in colours
    window.searchBox.setText("")
    qtbot.waitUntil(lambda: canvas.marks.hits is None)


def test_the_year_range_hides_other_years(qtbot, window: MainWindow):
    lib = window.library
    ids = lib.paper_ids()
    with lib.write_transaction() as (conn, _seq):  # two papers of an older year
        conn.execute("UPDATE papers SET year = 2001 WHERE id IN (?, ?)", ids[:2])
    controller = open_map(qtbot, window)
    assert controller.page.fromYear.value() == 2001
    controller.page.fromYear.setValue(2025)
    visible = controller.canvas.marks.visible
    assert visible is not None and visible.sum() == len(ids) - 2
    shown = set(controller.canvas.ids_in(controller.canvas.rect()))
    assert shown == set(ids) - set(ids[:2])


def test_the_layout_cache_survives_a_restart(qtbot, window: MainWindow, library: Library, monkeypatch):
    open_map(qtbot, window)
    places = window.map.data.xy.copy()
    window.close()
    monkeypatch.setattr(mapfile, "build", lambda *a, **k: (_ for _ in ()).throw(AssertionError("laid out again")))
    second = MainWindow(library, theme="light")
    qtbot.addWidget(second)
    second.show()
    qtbot.waitUntil(lambda: second.index_ready and not second.runner.busy)
    controller = open_map(qtbot, second)
    assert np.array_equal(controller.data.xy, places)
    second.close()


def test_reader_map_png(tmp_path: Path, library: Library):
    from reader.__main__ import main

    out = tmp_path / "map.png"
    root = str(library.paths.root)
    assert main(["--data-dir", root, "map", "--png", str(out), "--size", "400x300"]) == 0
    image = QImage(str(out))
    assert (image.width(), image.height()) == (400, 300)
    argb = image.convertToFormat(QImage.Format.Format_ARGB32)  # kept: constBits points into it
    pixels = set(np.frombuffer(argb.constBits(), dtype=np.uint32).tolist())
    assert mr.palette(False).states[UNREAD] in pixels  # the unread seeds' points


def test_papers_of_later_years_show_when_no_range_was_chosen(qtbot, window: MainWindow):
    """A redraw kept the old whole span as if chosen: papers imported with later years (the CLI
    importing a second library) were hidden behind a To of the old last year."""
    import copy

    controller = open_map(qtbot, window)
    last = controller.page.toYear.value()
    newer = copy.copy(controller.picture)  # the next picture: one paper now of a later year
    newer.year = newer.year.copy()
    newer.year[0] = last + 1
    controller.show_picture(newer)
    assert controller.page.toYear.maximum() == last + 1 and controller.page.toYear.value() == last + 1
    assert controller.canvas.marks.visible is None  # nobody hidden
    controller.page.toYear.setValue(last)  # a range the user chose stays through a redraw
    controller.show_picture(copy.copy(newer))
    assert controller.page.toYear.value() == last
