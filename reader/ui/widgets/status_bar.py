"""The status bar: library counts, and the running task's label, progress and Cancel button."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from reader.plural import count_noun, share

from ..tasks import Task, TaskRunner
from .plain import plain_label

CANCELLED = {"Importing": "Import", "Indexing": "Indexing", "Rebuilding the index": "Index rebuild",
             "Making the map": "Map layout", "Exporting": "Export"}


class StatusBar(QStatusBar):
    """Follows the runner's labelled tasks; the cancellable ones (import, indexing) get a Cancel button."""

    def __init__(self, parent: QWidget, runner: TaskRunner) -> None:
        super().__init__(parent)
        self.runner = runner
        self.tasks: list[Task] = []  # cancellable tasks still running
        self.countsLabel = QLabel(self)
        self.countsLabel.setObjectName("countsLabel")
        plain_label(self.countsLabel)
        self.taskLabel = QLabel(self)
        self.taskLabel.setObjectName("taskLabel")
        plain_label(self.taskLabel)
        self.progressBar = QProgressBar(self)
        self.progressBar.setObjectName("progressBar")
        self.progressBar.setMaximumWidth(180)
        self.progressBar.setTextVisible(False)
        self.cancelButton = QPushButton("Cancel", self)
        self.cancelButton.setObjectName("cancelButton")
        self.cancelButton.clicked.connect(self.cancel_tasks)
        self.addWidget(self.countsLabel, 1)
        self.addPermanentWidget(self.taskLabel)
        self.addPermanentWidget(self.progressBar)
        self.addPermanentWidget(self.cancelButton)
        for w in (self.taskLabel, self.progressBar, self.cancelButton):
            w.hide()
        self.messageChanged.connect(lambda _text: self._voice())
        self.setAccessibleName("Status")
        runner.started.connect(self.task_started)
        runner.progressed.connect(self.task_progress)
        runner.ended.connect(self.task_ended)

    def track(self, task: Task) -> Task:
        """A task the Cancel button (and quitting) may stop: the button shows while it runs (the
        runner announces a task before it is handed here, so Rebuild's Cancel never appeared)."""
        self.tasks.append(task)
        self.cancelButton.show()  # its end is delivered after this (queued to the GUI thread)
        self._voice()
        return task

    def _voice(self) -> None:
        """The accessible name is what the bar shows: a message, else the counts, and the running
        task (Qt read the bar's current message alone: a stale one, or nothing)."""
        parts = [self.currentMessage() or self.countsLabel.text()]
        if self.taskLabel.isVisibleTo(self) and self.taskLabel.text():
            parts.append(self.taskLabel.text())
        self.setAccessibleName(" · ".join(p for p in parts if p) or "Status")

    def show_counts(self, counts: Any) -> None:
        self.countsLabel.setText(
            f"{count_noun(counts.total, 'paper')} · {counts.starred:,} starred · {share(counts.read, counts.total, 'read')}")
        self._voice()

    def task_started(self, task: Task) -> None:
        self.taskLabel.setText(f"{task.label}…")
        self.progressBar.setRange(0, 0)
        for w in (self.taskLabel, self.progressBar):
            w.show()
        self.cancelButton.setVisible(task in self.tasks or task.label == "Importing")
        self._voice()

    def task_progress(self, task: Task, done: int, total: int, message: str) -> None:
        self.taskLabel.setText(message or task.label or "")
        self.progressBar.setRange(0, max(total, 0))
        self.progressBar.setValue(min(done, total) if total else 0)
        self._voice()

    def task_ended(self, task: Task) -> None:
        if task in self.tasks:
            self.tasks.remove(task)
            if task.cancelled():  # plainly, as what it is: not an error
                self.showMessage(f"{CANCELLED.get(task.label or '', task.label)} cancelled", 10000)
        if not self.runner.busy or not self.tasks:
            for w in (self.taskLabel, self.progressBar, self.cancelButton):
                w.hide()
        self.cancelButton.setVisible(bool(self.tasks) and self.cancelButton.isVisible())
        self._voice()

    def cancel_tasks(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        self.taskLabel.setText("Cancelling…")
