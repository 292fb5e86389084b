"""Edit → Add by identifier…: paste arXiv ids, DOIs or OpenReview ids (one per line); they are
fetched on the task runner's network thread (progress, Cancel), stored in one write, and each
line gets its result ("added", "updated", "already there" or why not)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from reader.errors import ReaderError
from reader.library import Library
from reader.sources import Client, FetchCancelled
from reader.sources.ids import IdResult, fetch_ids

from ..tasks import Task, TaskRunner
from ..widgets.plain import plain_label

COLLECTION = "Added by identifier"
INTRO = ("Paste arXiv ids or URLs, DOIs, or OpenReview forum ids or URLs, one per line. Reader asks "
         "arXiv, Crossref and OpenReview for them (arXiv allows one request every 3 seconds) and adds "
         f"the papers to the collection “{COLLECTION}”; papers you have are updated, keeping your "
         "stars, tags, notes and highlights.")
PLACEHOLDER = "2401.01234\narXiv:hep-th/9901001\n10.1145/3292500.3330701\nhttps://openreview.net/forum?id=…"
SAID = {"added": "Added", "updated": "Updated", "unchanged": "Already there"}


def result_lines(results: list[IdResult], outcomes: dict[int, tuple[str, str]]) -> list[str]:
    """One line per id: "Added  2401.01234 — Title", or the id and why nothing was added."""
    lines = []
    for n, r in enumerate(results):
        if r.error is not None or n not in outcomes:
            lines.append(f"Not added  {r.error or r.ident}")
            continue
        _pid, outcome = outcomes[n]
        title = " ".join(((r.record.title if r.record else None) or "").split())
        lines.append(f"{SAID[outcome]}  {r.ident} — {title}")
    return lines


class AddByIdDialog(QDialog):
    """The dialog; `on_added(ids)` is called with the papers stored (the window shows them)."""

    def __init__(self, parent: QWidget, library: Library, runner: TaskRunner, on_added: Any = None,
                 on_error: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("addByIdDialog")
        self.setWindowTitle("Add by identifier")
        self.setAccessibleName("Add papers by identifier")
        self.library, self.runner, self.on_added, self.on_error = library, runner, on_added, on_error
        self.task: Task | None = None
        self.results: list[IdResult] = []

        intro = QLabel(INTRO, self)
        intro.setWordWrap(True)
        plain_label(intro)
        self.input = QPlainTextEdit(self)
        self.input.setObjectName("addByIdInput")
        self.input.setAccessibleName("Identifiers, one per line")
        self.input.setPlaceholderText(PLACEHOLDER)
        self.input.setTabChangesFocus(True)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("addByIdProgress")
        self.progress.setAccessibleName("Fetching progress")
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = QLabel(self)
        self.status.setObjectName("addByIdStatus")
        self.status.setAccessibleName("Status")
        self.status.setWordWrap(True)
        plain_label(self.status)
        self.list = QListWidget(self)
        self.list.setObjectName("addByIdResults")
        self.list.setAccessibleName("Results, one line per identifier")
        # A long title wraps inside the dialog (it ran off its right edge behind a scroll bar).
        self.list.setWordWrap(True)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.hide()

        buttons = QDialogButtonBox(self)
        self.addButton = buttons.addButton("Add", QDialogButtonBox.ButtonRole.AcceptRole)
        self.addButton.setObjectName("addByIdAdd")
        self.addButton.setAccessibleName("Add the papers")
        self.addButton.setDefault(True)
        self.cancelButton = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.cancelButton.setObjectName("addByIdCancel")
        self.cancelButton.setAccessibleName("Cancel")
        self.addButton.clicked.connect(self.start)
        self.cancelButton.clicked.connect(self.reject)
        runner.progressed.connect(self._progressed)

        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.input, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.resize(560, 420)

    # ------------------------------------------------------------------ running
    @property
    def running(self) -> bool:
        return self.task is not None

    def ids(self) -> list[str]:
        return [line.strip() for line in self.input.toPlainText().splitlines() if line.strip()]

    def start(self) -> None:
        ids = self.ids()
        if not ids or self.running:
            if not ids:
                self.status.setText("Paste at least one identifier, one per line.")
            return
        self.list.clear()
        self.list.hide()
        self.input.setReadOnly(True)
        self.addButton.setEnabled(False)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.status.setText(f"Fetching {len(ids)} {'paper' if len(ids) == 1 else 'papers'}…")
        root = self.library.paths.root

        def work(task: Task) -> list[IdResult]:
            with Client(root, cancelled=task.cancelled) as client:
                return fetch_ids(client, ids, progress=task.progress)

        self.task = self.runner.network(work, self._fetched, self._failed, label="Fetching papers", with_task=True)

    def _progressed(self, task: Task, done: int, total: int, message: str) -> None:
        if task is not self.task:
            return
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(done)
        if message:
            self.status.setText(message + "…")

    def _fetched(self, results: list[IdResult]) -> None:
        task = self.task
        if task is None or task.cancelled():
            self._failed(FetchCancelled("cancelled"))
            return
        self.results = results
        good = [n for n, r in enumerate(results) if r.record is not None]
        if not good:
            self._stored(None, [])
            return
        records = [r for r in (results[n].record for n in good) if r is not None]
        self.status.setText("Adding…")
        self.runner.write(lambda: self.library.add_fetched(records, collection=COLLECTION, origin="add"),
                          lambda stored: self._stored(stored, good), self._failed, label="Adding papers")

    def _stored(self, stored: Any, good: list[int]) -> None:
        self.task = None
        outcomes: dict[int, tuple[str, str]] = {}
        if stored is not None:
            rejected = {n for n, _ in stored.rejected}
            for n, why in stored.rejected:
                r = self.results[good[n]]
                r.error, r.record = f"{r.ident}: {why}", None
            kept = [g for i, g in enumerate(good) if i not in rejected]
            outcomes = {n: (pid, o) for n, pid, o in zip(kept, stored.ids, stored.outcomes, strict=True)}
        lines = result_lines(self.results, outcomes)
        self.list.clear()
        self.list.addItems(lines)
        self.list.show()
        counts = {o: sum(1 for _, oo in outcomes.values() if oo == o) for o in SAID}
        missing = len(self.results) - len(outcomes)
        parts = [f"{counts['added']} added", f"{counts['updated']} updated", f"{counts['unchanged']} already there"]
        if missing:
            parts.append(f"{missing} not added")
        self.status.setText(", ".join(parts) + ".")
        self._idle()
        self.input.clear()
        if self.on_added is not None and outcomes:
            self.on_added([pid for pid, _ in outcomes.values()])

    def _failed(self, exc: BaseException) -> None:
        self.task = None
        self._idle()
        if isinstance(exc, FetchCancelled):
            self.status.setText("Cancelled: nothing was added.")
        elif isinstance(exc, ReaderError):
            self.status.setText(f"{exc} — nothing was added.")
        else:  # a bug: the window's error handler (logged, the crash reporter)
            self.status.setText("Internal error: nothing was added.")
            if self.on_error is not None:
                self.on_error(exc)

    def _idle(self) -> None:
        self.progress.hide()
        self.input.setReadOnly(False)
        self.addButton.setEnabled(True)

    def reject(self) -> None:
        """Cancel stops a running fetch (nothing is added); pressed again, or when idle, closes."""
        if self.task is not None and not self.task.cancelled():
            self.task.cancel()
            self.status.setText("Cancelling…")
            return
        self.runner.progressed.disconnect(self._progressed)
        super().reject()

