"""The map's lasso and keyboard selection, triage on a selection and back, and the subset refit."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, Qt

from reader.library import View
from reader.map import mapfile
from reader.ui.map.page import inside_polygon
from reader.ui.window.main_window import MainWindow

from .helpers import key
from .test_map import open_map

CTRL = Qt.KeyboardModifier.ControlModifier


def test_inside_polygon_by_the_even_odd_rule():
    # A "U": the notch between its arms is outside, as is a point level with a corner.
    u = np.array([(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)], dtype=float)
    points = np.array([(0.5, 2), (2.5, 2), (1.5, 2), (1.5, 0.5), (4, 1), (-1, 0), (1.5, 3.5)], dtype=float)
    assert inside_polygon(points, u).tolist() == [True, True, False, True, False, False, False]
    assert not inside_polygon(points, u[:2]).any()  # a line is no polygon


def _lasso(qtbot, canvas, corners: list[QPoint], modifier=CTRL) -> None:
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, modifier, corners[0])
    for p in corners[1:]:
        qtbot.mouseMove(canvas, p)
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, modifier, corners[-1])


def _triangle(canvas) -> list[QPoint]:
    w, h = canvas.width(), canvas.height()
    return [QPoint(2, 2), QPoint(w - 2, 2), QPoint(2, h - 2)]  # the upper-left half


def _expected(canvas, corners: list[QPoint]) -> set[str]:
    polygon = np.array([(p.x(), p.y()) for p in corners], dtype=float)
    inside = inside_polygon(canvas.camera.to_screen(canvas.picture.xy), polygon)
    if canvas.marks.visible is not None:
        inside &= canvas.marks.visible  # out of the year range: not selectable
    return {canvas.picture.ids[i] for i in np.flatnonzero(inside)}


def test_a_lasso_selects_and_the_selection_gets_tagged(qtbot, window: MainWindow, monkeypatch):
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    corners = _triangle(canvas)
    expected = _expected(canvas, corners)
    assert 5 < len(expected) < len(canvas.picture) - 5  # a real part of the map
    _lasso(qtbot, canvas, corners)
    got = set(controller.selected_ids())
    assert got == expected and canvas.lasso is None
    assert set(window.selected_ids()) == got  # the list's actions see them
    assert controller.page.buttons["tag"].isEnabled() and controller.page.buttons["triage"].isEnabled()
    monkeypatch.setattr("reader.ui.map.controller.QInputDialog.getText", lambda *a, **k: ("lassoed", True))
    controller.page.buttons["tag"].click()
    lib = window.library
    qtbot.waitUntil(lambda: set(lib.paper_ids(View("tag", "lassoed"))) == got)


def test_the_lasso_button_makes_a_plain_drag_a_lasso(qtbot, window: MainWindow):
    controller = open_map(qtbot, window)
    canvas, button = controller.canvas, controller.page.buttons["lasso"]
    assert button.isCheckable() and button.accessibleName()
    button.click()
    corners = _triangle(canvas)
    ox = canvas.camera.ox
    _lasso(qtbot, canvas, corners, Qt.KeyboardModifier.NoModifier)
    assert set(controller.selected_ids()) == _expected(canvas, corners)
    assert canvas.camera.ox == ox  # drawn, not panned
    button.click()
    canvas.lasso_mode = False
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(50, 50))
    qtbot.mouseMove(canvas, QPoint(90, 60))
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(90, 60))
    assert canvas.camera.ox == ox + 40  # off again: a drag pans


def test_keys_select_every_shown_paper_the_lit_ones_and_none(qtbot, window: MainWindow):
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    canvas.setFocus()
    key(qtbot, canvas, Qt.Key.Key_A, CTRL)
    assert set(controller.selected_ids()) == set(canvas.picture.ids)
    key(qtbot, canvas, Qt.Key.Key_A, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert controller.selected_ids() == []
    assert not controller.page.buttons["star"].isEnabled()
    window.searchBox.setText("attention")
    qtbot.waitUntil(lambda: canvas.marks.hits is not None)
    canvas.setFocus()
    key(qtbot, canvas, Qt.Key.Key_L)
    lit = {canvas.picture.ids[i] for i in np.flatnonzero(canvas.marks.hits)}
    assert set(controller.selected_ids()) == lit and 0 < len(lit) < len(canvas.picture)


def test_triage_on_a_selection_and_back_to_the_map_as_it_was(qtbot, window: MainWindow):
    lib = window.library
    with lib.write_transaction() as (conn, _seq):  # some older papers, for a year range to keep
        conn.execute("UPDATE papers SET year = 2001 WHERE id IN (?, ?, ?)", lib.paper_ids()[:3])
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    controller.page.fromYear.setValue(2002)  # the 2001 papers hidden
    hidden = canvas.marks.visible
    assert hidden is not None and hidden.sum() == len(canvas.picture) - 3
    canvas.setFocus()
    key(qtbot, canvas, Qt.Key.Key_Plus)
    key(qtbot, canvas, Qt.Key.Key_Right)
    corners = _triangle(canvas)
    chosen = _expected(canvas, corners)
    _lasso(qtbot, canvas, corners)
    order = controller.selected_ids()
    assert set(order) == chosen and len(chosen) > 2
    camera = (canvas.camera.scale, canvas.camera.ox, canvas.camera.oy)
    triage = window.triage
    controller.page.buttons["triage"].click()
    qtbot.waitUntil(lambda: triage.active and triage.queue is not None and triage.view.card is not None)
    assert list(triage.queue.ids) == order  # exactly those, in the map's order (as listed)
    assert "chosen on the map" in triage.spec.describe()
    qtbot.keyClick(triage.view.focusWidget() or triage.view, Qt.Key.Key_J)  # one decision: marks it read
    qtbot.keyClick(triage.view.focusWidget() or triage.view, Qt.Key.Key_Escape)
    assert not triage.active and controller.active and canvas.isVisible()
    qtbot.waitUntil(lambda: order[0] in lib.paper_ids(View("read")))
    before = controller.generation
    qtbot.waitUntil(lambda: controller.generation > before)  # redrawn after the write
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert (canvas.camera.scale, canvas.camera.ox, canvas.camera.oy) == camera
    assert controller.selected_ids() == order
    assert controller.page.fromYear.value() == 2002 and canvas.marks.visible.sum() == len(canvas.picture) - 3
    qtbot.waitUntil(canvas.hasFocus)


def test_refit_lays_out_the_subset_only_in_the_refit_view(qtbot, window: MainWindow):
    lib = window.library
    ids = lib.paper_ids()
    lib.add_tags(ids[::3], ["some"])
    window.set_view(View("tag", "some"))
    qtbot.waitUntil(lambda: window.model.rowCount() == len(ids[::3]))
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    library_xy = controller.data.xy.copy()
    saved = mapfile.path_for(lib.paths.root).read_bytes()
    placed = {pid: tuple(xy) for pid, xy in zip(canvas.picture.ids, canvas.picture.xy.tolist(), strict=True)}
    button = controller.page.buttons["refit"]
    assert button.isCheckable() and button.accessibleName()
    before = controller.generation
    button.click()
    qtbot.waitUntil(lambda: controller.generation > before)
    refit = {pid: tuple(xy) for pid, xy in zip(canvas.picture.ids, canvas.picture.xy.tolist(), strict=True)}
    assert set(refit) == set(placed) == set(ids[::3])
    assert sum(refit[p] != placed[p] for p in refit) > len(refit) // 2
    assert "refit" in controller.page.summary.text()
    assert np.array_equal(controller.data.xy, library_xy)  # the library's map is unchanged…
    assert mapfile.path_for(lib.paths.root).read_bytes() == saved  # …and so is its file
    before = controller.generation
    button.click()  # off: the library's places again
    qtbot.waitUntil(lambda: controller.generation > before)
    again = {pid: tuple(xy) for pid, xy in zip(canvas.picture.ids, canvas.picture.xy.tolist(), strict=True)}
    assert again == placed
    assert controller.refits.computed == 1


def test_esc_from_the_search_box_comes_back_to_the_map(qtbot, window: MainWindow):
    controller = open_map(qtbot, window)
    key(qtbot, window, Qt.Key.Key_F, CTRL)
    assert window.searchBox.hasFocus()
    key(qtbot, window.searchBox, Qt.Key.Key_Escape)
    qtbot.waitUntil(controller.canvas.hasFocus)
    assert not window.table.isVisible()


def test_a_redraw_due_after_the_window_closed_queues_nothing(qtbot, window: MainWindow):
    controller = open_map(qtbot, window)
    window.library.set_starred(window.model.ids()[:2], True)  # a change: a redraw is due…
    qtbot.waitUntil(controller._refresh.isActive)
    window.close()  # …and the window closes first
    controller.reload()  # the timer's slot: nothing queued on the shut-down runner (no RuntimeError)


def test_a_lasso_dragged_past_the_edge_is_drawn_inside_the_canvas(qtbot, window: MainWindow):
    """The lasso's outline ran off the canvas where the drag did; it is cut 2 px inside the
    edge, and what it selects is still the lasso as dragged."""
    controller = open_map(qtbot, window)
    canvas = controller.canvas
    w, h = canvas.width(), canvas.height()
    corners = [QPoint(w // 3, 10), QPoint(w + 200, h // 3), QPoint(w // 2, h + 150), QPoint(w // 3, h // 2)]
    expected = _expected(canvas, corners)
    assert expected
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, CTRL, corners[0])
    for p in corners[1:]:
        qtbot.mouseMove(canvas, p)
    drawn = canvas.lasso_outline()
    assert drawn is not None and not drawn.isEmpty()
    box = drawn.boundingRect()
    assert box.left() >= 2 and box.top() >= 2 and box.right() <= w - 2 and box.bottom() <= h - 2, box
    assert box.right() >= w - 3 and box.bottom() >= h - 3  # it runs along the edges it crossed
    canvas.grab()  # painted without error
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, CTRL, corners[-1])
    assert set(controller.selected_ids()) == expected
