"""File → Add a conference…: the venue catalogue with a filter, Add, progress and Cancel.

The fetch (network, possibly minutes at the services' pace) runs on the task runner's network
thread, never on the GUI thread nor on the writer (the user's edits go on meanwhile); its progress
comes back by a queued signal. Cancel stops it between two requests (or while it waits for one):
nothing is stored, what was fetched stays in the cache for the next try. Once the venue is read
whole, it is stored in one transaction on the writer (`Library.add_fetched`), and the dialog says
what happened ("AISTATS 2018: 216 papers from pmlr — 216 new, 0 updated, 0 unchanged")."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from reader.errors import ReaderError
from reader.sources import catalogue


class AddVenueDialog(QDialog):
    """The catalogue's venue-years, filtered as you type; Add fetches and stores the chosen one."""

    progressed = Signal(int, int, str)  # emitted on the fetch's worker thread, queued to the GUI
    finished_adding = Signal(str)  # the summary line, once stored (tests and the window listen)

    def __init__(self, parent: QWidget | None, library: Any, runner: Any) -> None:
        super().__init__(parent)
        self.setObjectName("addVenueDialog")
        self.setWindowTitle("Add a conference")
        self.setAccessibleName("Add a conference")
        self.library, self.runner = library, runner
        self._cancel: threading.Event | None = None
        self.task: Any = None  # the network task of the fetch in progress
        self._fetching = ""  # "Fetching ICML 2025…": the status line's start while a fetch runs
        self.busy = False

        intro = QLabel("Fetch every accepted paper of a conference into a collection named for it. "
                       "Papers you already have are updated, keeping your stars, tags and notes.", self)
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)
        self.filterEdit = QLineEdit(self)
        self.filterEdit.setObjectName("venueFilter")
        self.filterEdit.setPlaceholderText("Filter: icml 2025, acl, cvpr…")
        self.filterEdit.setAccessibleName("Filter conferences")
        self.filterEdit.setClearButtonEnabled(True)
        self.list = QListWidget(self)
        self.list.setObjectName("venueList")
        self.list.setAccessibleName("Conferences")
        # The list is disabled while a fetch runs: its chosen row keeps the active highlight so the
        # conference being fetched stays readable (the disabled grey gave white on mid-grey).
        palette = self.list.palette()
        for role in (QPalette.ColorRole.Highlight, QPalette.ColorRole.HighlightedText):
            palette.setColor(QPalette.ColorGroup.Disabled, role, palette.color(QPalette.ColorGroup.Active, role))
        self.list.setPalette(palette)
        for entry in catalogue.entries():
            item = QListWidgetItem(f"{entry.venue.label(entry.year)} — {entry.venue.title}  ·  "
                                   f"{', '.join(entry.sources)}")
            item.setData(Qt.ItemDataRole.UserRole, (entry.venue.name, entry.year))
            item.setData(Qt.ItemDataRole.AccessibleTextRole,
                         f"{entry.venue.label(entry.year)}, {entry.venue.title}, from {', '.join(entry.sources)}")
            self.list.addItem(item)
        self.refreshCheck = QCheckBox("Fetch anew (update changed titles and abstracts)", self)
        self.refreshCheck.setObjectName("venueRefresh")
        self.refreshCheck.setAccessibleName("Fetch anew, ignoring the cache")
        self.progress = QProgressBar(self)
        self.progress.setObjectName("venueProgress")
        self.progress.setAccessibleName("Fetch progress")
        self.progress.setTextVisible(False)  # its text sat half on the bar, half off: the step is said below
        self.progress.hide()
        self.statusLabel = QLabel("", self)
        self.statusLabel.setObjectName("venueStatus")
        self.statusLabel.setAccessibleName("Status")
        self.statusLabel.setWordWrap(True)
        self.statusLabel.setTextFormat(Qt.TextFormat.PlainText)
        self.statusLabel.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.addButton = QPushButton("Add", self)
        self.addButton.setObjectName("venueAdd")
        self.addButton.setAccessibleName("Add the chosen conference")
        self.addButton.setDefault(True)
        self.cancelButton = QPushButton("Close", self)
        self.cancelButton.setObjectName("venueCancel")
        self.cancelButton.setAccessibleName("Close")
        buttons = QHBoxLayout()
        buttons.addWidget(self.refreshCheck, 1)
        buttons.addWidget(self.addButton)
        buttons.addWidget(self.cancelButton)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.filterEdit)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.statusLabel)
        layout.addLayout(buttons)
        self.resize(620, 480)

        self.filterEdit.textChanged.connect(self._filter)
        self.filterEdit.returnPressed.connect(self._add)
        self.list.itemActivated.connect(lambda _item: self._add())
        self.list.currentItemChanged.connect(lambda *_: self._update_buttons())
        self.addButton.clicked.connect(self._add)
        self.cancelButton.clicked.connect(self._cancel_or_close)
        self.progressed.connect(self._show_progress)
        self.list.setCurrentRow(0)
        self._update_buttons()
        if parent is not None:
            parent.installEventFilter(self)  # the window closing cancels a fetch (it waits for its tasks)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close and self.busy and self._cancel is not None:
            self._cancel.set()
        return False

    # -- the list ------------------------------------------------------------------------------
    def _filter(self, text: str) -> None:
        words = text.lower().split()
        first = None
        for row in range(self.list.count()):
            item = self.list.item(row)
            hay = f"{item.text().lower()} {item.data(Qt.ItemDataRole.UserRole)[0]}"
            hidden = not all(w in hay for w in words)
            item.setHidden(hidden)
            if not hidden and first is None:
                first = item
        if first is not None and (self.list.currentItem() is None or self.list.currentItem().isHidden()):
            self.list.setCurrentItem(first)
        self._update_buttons()

    def chosen(self) -> tuple[str, int] | None:
        item = self.list.currentItem()
        if item is None or item.isHidden():
            return None
        name, year = item.data(Qt.ItemDataRole.UserRole)
        return str(name), int(year)

    def _update_buttons(self) -> None:
        self.addButton.setEnabled(not self.busy and self.chosen() is not None)

    # -- the work ------------------------------------------------------------------------------
    def _add(self) -> None:
        choice = self.chosen()
        if self.busy or choice is None:
            return
        from reader.sources import venue_add

        name, year = choice
        refresh = self.refreshCheck.isChecked()
        cancel = self._cancel = threading.Event()
        folder = self.library.paths.root
        self._set_busy(True)
        self._fetching = f"Fetching {catalogue.venue(name).label(year)}…"
        self.statusLabel.setText(self._fetching)

        def fetch(task: Any) -> Any:
            return venue_add.fetch(folder, name, year, refresh=refresh,
                                   progress=lambda d, t, w: self.progressed.emit(d, t, w),
                                   cancelled=lambda: cancel.is_set() or task.cancelled())

        self.task = self.runner.network(fetch, self._store, self._failed, label=f"Fetching {catalogue.venue(name).label(year)}",
                                        with_task=True)

    def _store(self, fetched: Any) -> None:
        if self._cancel is not None and self._cancel.is_set():
            self._failed(ReaderError("cancelled"))
            return
        self.statusLabel.setText(f"Storing {len(fetched.records):,} papers of {fetched.label}…")
        self.progress.setRange(0, 0)
        records, label, origin = fetched.records, fetched.label, fetched.origin
        cancel = self._cancel
        self.runner.write(lambda: self.library.add_fetched(records, collection=label, origin=origin,
                                                           cancelled=cancel.is_set if cancel else None),
                          lambda result: self._stored(fetched, result), self._failed,
                          label=f"Adding {label}")

    def _stored(self, fetched: Any, result: Any) -> None:
        from reader.sources.venue_add import added

        line = added(fetched, result).summary()
        self._set_busy(False)
        self.statusLabel.setText(line)
        self.finished_adding.emit(line)

    def _failed(self, error: BaseException) -> None:
        self._set_busy(False)
        cancelled = self._cancel is not None and self._cancel.is_set()
        if cancelled:
            self.statusLabel.setText("Cancelled: nothing was stored (what was fetched stays cached "
                                     "for the next try).")
        elif isinstance(error, ReaderError):
            self.statusLabel.setText(str(error))
        else:
            self.statusLabel.setText(f"Could not add it: {type(error).__name__}: {error}")
            raise error

    def _show_progress(self, done: int, total: int, what: str) -> None:
        if not self.busy:
            return
        self.progress.setRange(0, max(total, 0))
        if total:
            self.progress.setValue(min(done, total))
        step = f"{what}: {min(done, total):,} / {total:,}" if total else what
        self.progress.setFormat(step)
        self.progress.setAccessibleDescription(step)
        if self._cancel is None or not self._cancel.is_set():  # "Cancelling…" stays until it has
            self.statusLabel.setText(f"{self._fetching} {step}")

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.progress.setVisible(busy)
        if busy:
            self.progress.setRange(0, 0)
        self.cancelButton.setText("Cancel" if busy else "Close")
        self.cancelButton.setAccessibleName("Cancel the fetch" if busy else "Close")
        self.list.setEnabled(not busy)
        self.filterEdit.setEnabled(not busy)
        self._update_buttons()

    def _cancel_or_close(self) -> None:
        if self.busy and self._cancel is not None:
            self._cancel.set()
            self.statusLabel.setText("Cancelling…")
            return
        self.reject()

    def reject(self) -> None:
        if self.busy and self._cancel is not None:
            self._cancel.set()  # Esc / closing the dialog while fetching cancels it too: nothing stored
        super().reject()
