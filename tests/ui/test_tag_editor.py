"""The tag editor: chips replaced, wrapping."""

from __future__ import annotations

from reader.ui.main_window import MainWindow


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
