"""Every input widget's frame shows against what is around it, in the dark theme as in the light
(widgets/theme.py). Fusion outlines fields, buttons, lists and group boxes in the window colour
darkened by 40 %: on the dark palette a shade from the window, so spin boxes, combo boxes, the
triage card's note and the lists read as bare text on the window. Measured from a grab of the
window the widget is in, as a user sees it."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QAction, QColor, QImage, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QDateEdit,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QScrollBar,
    QSpinBox,
    QStyle,
    QStyleOptionSlider,
    QTabWidget,
    QTextEdit,
    QToolButton,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from reader.ui.widgets import theme

FRAME_MIN = 100  # of 765 (sum of the RGB differences): the light theme's faintest frame is ~150


def _distance(a: QColor, b: QColor) -> int:
    return abs(a.red() - b.red()) + abs(a.green() - b.green()) + abs(a.blue() - b.blue())


def around(image: QImage, rect: QRect) -> QColor:
    """The colour around `rect` in `image`: the commonest in the 2-pixel ring just outside it."""
    seen: Counter[int] = Counter()
    outer = rect.adjusted(-2, -2, 2, 2).intersected(image.rect())
    for x in range(outer.left(), outer.right() + 1):
        for y in range(outer.top(), outer.bottom() + 1):
            if not rect.contains(x, y):
                seen[image.pixel(x, y)] += 1
    return QColor.fromRgb(seen.most_common(1)[0][0])


def frame_contrast(image: QImage, rect: QRect, behind: QColor | None = None) -> int:
    """How well the frame of the widget at `rect` shows against what is around it (0-765): for each
    side the most distinct of its three outermost lines (the mean over the line, corners left
    out), and of the four sides the faintest: a frame shows when every side of it does."""
    behind = behind or around(image, rect)
    left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
    sides = []
    for side in ("top", "bottom", "left", "right"):
        best = 0.0
        for d in range(3):
            if side in ("top", "bottom"):
                y = top + d if side == "top" else bottom - d
                points = [(x, y) for x in range(left + 4, right - 3)]
            else:
                x = left + d if side == "left" else right - d
                points = [(x, y) for y in range(top + 4, bottom - 3)]
            if points:
                best = max(best, sum(_distance(image.pixelColor(x, y), behind) for x, y in points) / len(points))
        sides.append(best)
    return round(min(sides))


def contrast_in(top: QWidget, widget: QWidget, image: QImage | None = None) -> int:
    """frame_contrast of `widget` in a grab of its window `top`: of a group box's frame (below
    its title), a tab widget's page (below its tabs), a scroll bar's handle (against its groove)."""
    image = image if image is not None else top.grab().toImage()
    rect = QRect(widget.mapTo(top, QPoint(0, 0)), widget.size())
    if isinstance(widget, QGroupBox):
        rect.setTop(rect.top() + widget.fontMetrics().height() // 2 + 3)
    elif isinstance(widget, QTabWidget):
        rect.setTop(rect.top() + widget.tabBar().height() - 1)
    elif isinstance(widget, QScrollBar):
        option = QStyleOptionSlider()
        widget.initStyleOption(option)
        handle = widget.style().subControlRect(QStyle.ComplexControl.CC_ScrollBar, option,
                                               QStyle.SubControl.SC_ScrollBarSlider, widget)
        rect = QRect(widget.mapTo(top, handle.topLeft()), handle.size())
    return frame_contrast(image, rect)


def gallery(sheet: str) -> tuple[QMainWindow, dict[str, QWidget]]:
    """A window like the main one (its style sheet) with one of each input widget."""
    window = QMainWindow()
    window.setStyleSheet(sheet)
    central = QWidget(window)
    window.setCentralWidget(central)
    form = QFormLayout(central)
    combo, editable = QComboBox(), QComboBox()
    combo.addItems(["One", "Two"])
    editable.setEditable(True)
    editable.addItems(["Three"])
    group = QGroupBox("Group")
    QVBoxLayout(group).addWidget(QLabel("inside"))
    tabs = QTabWidget()
    tabs.addTab(QLabel("a"), "Tab A")
    tabs.addTab(QLabel("b"), "Tab B")
    chip = QToolButton()
    chip.setText("tag  ×")
    bar = QScrollBar(Qt.Orientation.Horizontal)
    bar.setRange(0, 100)
    bar.setPageStep(40)  # a handle long enough to measure
    tree = QTreeWidget()
    tree.setHeaderHidden(True)
    widgets: dict[str, QWidget] = {
        "QSpinBox": QSpinBox(), "QDoubleSpinBox": QDoubleSpinBox(), "QDateEdit": QDateEdit(),
        "QComboBox": combo, "editable QComboBox": editable, "QLineEdit": QLineEdit("text"),
        "QKeySequenceEdit": QKeySequenceEdit(), "QPlainTextEdit": QPlainTextEdit("note"),
        "QTextEdit": QTextEdit("text"), "QListWidget": QListWidget(), "QTreeWidget": tree,
        "QGroupBox": group, "QTabWidget": tabs, "QToolButton": chip, "QPushButton": QPushButton("Push"),
        "QScrollBar": bar,
    }
    for name, widget in widgets.items():
        if isinstance(widget, QPlainTextEdit | QTextEdit | QListWidget | QTreeWidget | QTabWidget):
            widget.setFixedHeight(64)
        form.addRow(name, widget)
    window.resize(520, 900)
    return window, widgets


# Fusion's own light look, kept: a group box is a shaded panel, a tab page and a scroll bar's
# handle a shade from what is around them (the light theme has no style sheet).
LIGHT_AS_FUSION = {"QGroupBox", "QTabWidget", "QScrollBar"}


@pytest.mark.qt_log_ignore("This plugin does not support (raise|grabbing the keyboard|propagateSizeHints)")  # the menu's popup
@pytest.mark.parametrize("name", ["dark", "light"])
def test_every_input_widget_shows_its_frame(qtbot, name):
    """Dark, before: spin boxes and editable combo boxes 34, text fields, lists and trees 28,
    group boxes 23, a scroll bar's handle 79 and a menu 43 (of 765), against 165-204 for the
    fields and 270 for the menu in the light theme."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        dark = theme.apply_theme(app, name)
        window, widgets = gallery(theme.window_css(dark))
        qtbot.addWidget(window)
        central = window.centralWidget()
        central.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # no field focused (a focused one is blue)
        window.show()
        central.setFocus()
        qtbot.waitExposed(window)
        image = window.grab().toImage()
        measured = {n: contrast_in(window, w, image) for n, w in widgets.items()
                    if dark or n not in LIGHT_AS_FUSION}
        menu = QMenu(window)
        menu.addActions([QAction("First", menu), QAction("Second", menu)])
        menu.popup(window.mapToGlobal(QPoint(40, 40)))
        qtbot.waitExposed(menu)
        behind = app.palette().color(QPalette.ColorRole.Window)  # a menu pops up over the window
        measured["QMenu"] = frame_contrast(menu.grab().toImage(), menu.rect(), behind)
        menu.hide()
        combo = widgets["QComboBox"]
        assert isinstance(combo, QComboBox)
        combo.showPopup()
        popup = combo.view().window()
        qtbot.waitExposed(popup)
        shown = popup.grab().toImage()
        measured["QComboBox's list"] = frame_contrast(shown, popup.rect(), behind)
        inside = around(shown, popup.rect().adjusted(3, 3, -3, -3))
        combo.hidePopup()
        # The list is drawn on the menus' palette: a light window colour of theirs filled it grey.
        assert abs(inside.lightness() - behind.lightness()) < 60, (name, inside.getRgb())
        faint = {n: c for n, c in measured.items() if c < FRAME_MIN}
        assert not faint, f"{name}: frames a shade from the window: {faint}"
    finally:
        theme.apply_theme(app, "light")


def test_the_screens_fields_show_their_frames_in_the_dark(qtbot, window, tmp_path):
    """The fields the first hour met faint in the dark: Preferences' spin and combo boxes, the
    triage card's note and tag fields, the map's year boxes, the export dialog's group boxes and
    combo boxes, the file dialog's lists; each measured in a grab of its own window."""
    from reader.ui.dialogs.common import ExportDialog, ExportOptions
    from reader.ui.window.preferences import show_preferences

    from .test_map import open_map

    window.apply_theme("dark")
    try:
        prefs = show_preferences(window, window)
        qtbot.waitExposed(prefs)
        fields: list[tuple[QWidget, QWidget]] = [(prefs, prefs.askEverySpin), (prefs, prefs.themeCombo)]
        faint = _faint(fields)
        prefs.reject()
        export = ExportDialog(window, ["to-read"], 1, ExportOptions(scope="view"))
        qtbot.addWidget(export)
        export.show()
        qtbot.waitExposed(export)
        faint += _faint([(export, box) for box in export.findChildren(QGroupBox)]
                        + [(export, export.tagCombo), (export, export.groupCombo), (export, export.titleEdit)])
        export.reject()
        files = QFileDialog(window, "Export", str(tmp_path), "BibTeX (*.bib)")
        files.setOptions(theme.file_dialog_options())  # Qt's own dialog in the dark theme
        qtbot.addWidget(files)
        files.show()
        qtbot.waitExposed(files)
        views = [v for v in files.findChildren(QAbstractItemView) if v.isVisible() and v.frameShape() != QFrame.Shape.NoFrame]
        assert views
        faint += _faint([(files, w) for w in views]
                        + [(files, w) for w in files.findChildren(QComboBox) + files.findChildren(QLineEdit)
                           if w.isVisible() and (not isinstance(w, QLineEdit) or w.hasFrame())])
        files.reject()
        controller = open_map(qtbot, window)
        page = controller.page
        faint += _faint([(window, page.fromYear), (window, page.toYear)])
        controller.close()
        ctl = window.triage
        ctl.open()
        qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
        faint += _faint([(window, ctl.view.noteEdit), (window, ctl.view.tagEditor.input)])
        ctl.close()
        assert not faint, f"frames a shade from the window: {faint}"
    finally:
        window.apply_theme("light")


def _faint(fields: list[tuple[QWidget, QWidget]]) -> list[str]:
    for top, _ in fields:
        top.setFocus()  # no field focused (a focused one is blue)
    images = {id(top): top.grab().toImage() for top, _ in fields}
    return [f"{w.objectName() or type(w).__name__}: {c}" for top, w in fields
            if (c := contrast_in(top, w, images[id(top)])) < FRAME_MIN]
