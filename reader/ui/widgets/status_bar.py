"""The status bar: library counts, and the running task's label, progress and Cancel button."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar, QWidget

from reader.plural import count_noun, share

from ..tasks import Task, TaskRunner
from .plain import plain_label

CANCELLED = {"Importing": "Import", "Indexing": "Indexing", "Rebuilding the index": "Index rebuild",
             "Making the map": "Map layout", "Exporting": "Export"}
# The index's catch-up after each edit (a star, an X in triage) is over in a few milliseconds:
# its label, progress bar and Cancel show only when it is still running after QUIET_MS. Showing
# and hiding them for each edit relaid the whole window out twice per decision.
QUIET_LABELS = frozenset({"Indexing"})
QUIET_MS = 400


class LabelHolder(QWidget):
    """Holds one label at its own full size, without a layout: the label's new text (the counts
    after each edit) repaints it and stops there. In the status bar's layout, each new count
    relaid the whole window out (the table, the sidebar, the triage card)."""

    def __init__(self, label: QLabel, parent: QWidget) -> None:
        super().__init__(parent)
        self.label = label
        label.setParent(self)

    def resizeEvent(self, event: QResizeEvent) -> None:
        self.label.setGeometry(self.rect())
        super().resizeEvent(event)

    def sizeHint(self) -> QSize:
        return self.label.sizeHint()

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.label.minimumSizeHint().height())


class StatusBar(QStatusBar):
    """Follows the runner's labelled tasks; the cancellable ones (import, indexing) get a Cancel button."""

    def __init__(self, parent: QWidget, runner: TaskRunner) -> None:
        super().__init__(parent)
        self.runner = runner
        self.tasks: list[Task] = []  # cancellable tasks still running
        self._quiet: list[Task] = []  # quiet tasks started, not shown yet (QUIET_LABELS)
        self._quiet_timer = QTimer(self)
        self._quiet_timer.setSingleShot(True)
        self._quiet_timer.setInterval(QUIET_MS)
        self._quiet_timer.timeout.connect(self._show_quiet)
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
        self.countsHolder = LabelHolder(self.countsLabel, self)
        self.addWidget(self.countsHolder, 1)
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
        if task not in self._quiet:  # a quiet one's button shows with its label, if it lasts
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
        if task.label in QUIET_LABELS and not self.taskLabel.isVisibleTo(self):
            self._quiet.append(task)
            self._quiet_timer.start()
            return
        self._show_task(task)

    def _show_task(self, task: Task) -> None:
        for w in (self.taskLabel, self.progressBar):
            w.show()
        self.cancelButton.setVisible(task in self.tasks or task.label == "Importing")
        self._voice()

    def _show_quiet(self) -> None:
        """A quiet task still running after QUIET_MS: shown as any other."""
        if self._quiet:
            self._show_task(self._quiet[-1])
            self.cancelButton.setVisible(any(t in self.tasks for t in self._quiet) or self.cancelButton.isVisible())
            self._quiet.clear()

    def task_progress(self, task: Task, done: int, total: int, message: str) -> None:
        self.taskLabel.setText(message or task.label or "")
        self.progressBar.setRange(0, max(total, 0))
        self.progressBar.setValue(min(done, total) if total else 0)
        self._voice()

    def task_ended(self, task: Task) -> None:
        if task in self._quiet:
            self._quiet.remove(task)
            if not self._quiet:
                self._quiet_timer.stop()
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
