"""Tag chips with a completing line edit: add with Enter, remove with the chip's ×."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QStringListModel, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCompleter, QLineEdit, QToolButton, QWidget

from ..widgets.flow_layout import FlowLayout
from ..widgets.plain import set_tip


class TagEditor(QWidget):
    """Shows a paper's tags as chips; emits tagAdded / tagRemoved."""

    tagAdded = Signal(str)
    tagRemoved = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tagEditor")
        self._layout = FlowLayout(self)  # chips wrap onto more lines instead of squeezing the input
        self._chips: list[QToolButton] = []
        self.input = QLineEdit(self)
        self.input.setObjectName("tagInput")
        self.input.setAccessibleName("Add tag")
        self.input.setPlaceholderText("Add tag…")
        self.input.setFixedWidth(150)
        self._completions = QStringListModel(self)
        completer = QCompleter(self._completions, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.input.setCompleter(completer)
        self.input.returnPressed.connect(self._commit)
        self.input.installEventFilter(self)
        self._layout.addWidget(self.input)
        self._tags: list[str] = []

    def tags(self) -> list[str]:
        return list(self._tags)

    def set_tags(self, tags: list[str]) -> bool:
        """Show these tags as chips; False (nothing done) when they are the ones shown."""
        if list(tags) == self._tags:
            return False
        self._tags = list(tags)
        for chip in self._chips:
            # Out of the layout and hidden now: deleteLater alone leaves it drawn until the
            # event loop gets round to deferred deletes (never, in a processEvents() loop).
            self._layout.removeWidget(chip)
            chip.hide()
            chip.deleteLater()
        self._chips = []
        for i, tag in enumerate(self._tags):
            chip = QToolButton(self)
            chip.setObjectName("tagChip")
            chip.setText(f"{tag}  ×")
            set_tip(chip, f"Remove the tag “{tag}”")
            chip.setAccessibleName(f"Remove tag {tag}")  # its "×" was read as "multiplication sign"
            chip.setAutoRaise(False)
            chip.clicked.connect(lambda _=False, t=tag: self.tagRemoved.emit(t))
            self._layout.insertWidget(i, chip)
            chip.show()  # at once, not when the layout's queued show runs
            self._chips.append(chip)
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Esc with typed text clears it and stays in the box; Esc in an empty box is left to
        the window (its "Back to the list" shortcut), so a second Esc leaves the box."""
        kind = event.type()
        if watched is not self.input or kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        assert isinstance(event, QKeyEvent)
        if event.key() != Qt.Key.Key_Escape or not self.input.text():
            return False
        if kind == QEvent.Type.ShortcutOverride:
            event.accept()  # the window's Esc must not fire while there is text to clear
            return True
        self.input.clear()
        return True

    def set_known_tags(self, names: list[str]) -> None:
        self._completions.setStringList(names)

    def _commit(self) -> None:
        text = self.input.text().strip()
        if not text:
            return
        self.input.clear()
        # Several tags at once: "a, b"
        for tag in (t.strip() for t in text.split(",")):
            if tag and tag not in self._tags:
                self.tagAdded.emit(tag)
