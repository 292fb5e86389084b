"""The tag editor: chips replaced, wrapping."""

from __future__ import annotations

from reader.ui.window.main_window import MainWindow


def test_tag_chips_replace_not_accumulate(qtbot, window: MainWindow) -> None:
    editor = window.pane.tagEditor
    editor.set_tags(["a", "b"])
    editor.set_tags(["a", "c", "d"])
    visible = [c.text() for c in editor.findChildren(type(editor._chips[0])) if c.isVisible()]
    assert sorted(visible) == ["a  ×", "c  ×", "d  ×"]
    many = [f"tag-number-{i}" for i in range(12)]
    editor.set_tags(many)  # chips wrap: the input stays fully visible inside the editor
    qtbot.waitUntil(lambda: editor.input.geometry().right() <= editor.width())
    assert editor.height() > editor.input.height() * 2


def test_escape_clears_the_typed_tag_then_leaves_the_box(qtbot, window: MainWindow) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    window.show()
    qtbot.waitExposed(window)
    window.table.setFocus()
    window.table.selectRow(0)
    qtbot.waitUntil(lambda: bool(window.pane.paper_id))
    box = window.pane.tagEditor.input
    window.focus_tag_input()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is box)
    qtbot.keyClicks(box, "half-typed")
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    assert box.text() == ""  # the first Esc clears what was typed ...
    assert QApplication.focusWidget() is box  # ... and stays in the box
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.table)  # the second leaves it
    assert "half-typed" not in window.pane.tagEditor.tags()
