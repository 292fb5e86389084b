"""central_pages.page_stack: a stacked widget takes a widget's place, in a window's centre or in a layout."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from reader.ui.window.main_window import MainWindow
from reader.ui.window.pages import page_stack


def test_in_the_centre_of_a_window_and_in_a_layout(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    centre = QWidget()
    column = QVBoxLayout(centre)
    above, middle, below = QLabel("above"), QLabel("middle"), QLabel("below")
    for w in (above, middle, below):
        column.addWidget(w)
    window.setCentralWidget(centre)
    outer = page_stack(centre, "outerStack")
    assert window.centralWidget() is outer and outer.objectName() == "outerStack"
    assert outer.widget(0) is centre and outer.currentWidget() is centre
    inner = page_stack(middle, "innerStack")
    assert column.indexOf(inner) == 1 and column.indexOf(middle) == -1  # in its place, between the two
    assert inner.widget(0) is middle and inner.parentWidget() is centre
    with pytest.raises(ValueError, match="in no layout"):
        page_stack(QLabel("loose"), "looseStack")


def test_the_window_stacks_triage_over_the_library_and_the_map_over_the_list(qtbot, window: MainWindow):
    centre, column = window.triage.stack, window.map.stack
    assert window.centralWidget() is centre and centre.objectName() == "centralStack"
    assert column.objectName() == "listStack" and column.widget(0) is window.table
    assert centre.isAncestorOf(column)  # the map lives in the library page, under triage
