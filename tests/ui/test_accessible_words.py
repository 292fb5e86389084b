"""What a screen reader says is words: no accessible name of the window, shown or in the sidebar,
the paper pane or the triage card, carries a sign its label or button draws ("▾ LIBRARY",
"☆ Star", "Like ★", a tag chip's "×"): a screen reader reads each sign out by its Unicode name
("black down-pointing small triangle"). scripts/atspi_check.py checks the same through AT-SPI."""

from __future__ import annotations

from PySide6.QtGui import QAccessible, QAccessibleInterface

from reader.ui.operations import papers
from reader.ui.window.main_window import MainWindow

SIGNS = "▾▸▴◂☆★○●✓✗✎×"  # as scripts/atspi_check.py


def _names(root: QAccessibleInterface, limit: int = 20000) -> list[str]:
    """The accessible names of every visible object under root (depth first, bounded)."""
    names: list[str] = []
    stack = [root]
    while stack and len(names) < limit:
        iface = stack.pop()
        if iface is None or not iface.isValid() or iface.state().invisible:
            continue
        names.append(iface.text(QAccessible.Text.Name) or "")
        stack.extend(iface.child(i) for i in range(iface.childCount()))
    return names


def _signed(window: MainWindow) -> list[str]:
    root = QAccessible.queryAccessibleInterface(window)
    assert root is not None
    return sorted({n for n in _names(root) if any(ch in SIGNS for ch in n)})


def test_names_are_words_not_drawn_signs(qtbot, window: MainWindow) -> None:
    """Before: '▾ LIBRARY' … '▾ READING GROUP', 'Like ★', '☆ Star', '○ Unread' and the chips'
    'to-read  ×' in the list; the same sidebar and chips behind the triage card."""
    pid = window.pane.paper_id
    papers.add_tags(window.ops, [pid], ["to-read"])
    qtbot.waitUntil(lambda: window.pane.tagEditor.tags() == ["to-read"])
    assert _signed(window) == []
    papers.set_starred(window.ops, [pid], True)
    qtbot.waitUntil(lambda: window.pane.starButton.isChecked())
    assert window.pane.starButton.accessibleName() == "Starred"
    assert _signed(window) == []
    ctl = window.triage
    ctl.open()
    qtbot.waitUntil(lambda: ctl.active and ctl.view.card is not None)
    assert _signed(window) == []
    ctl.close()
