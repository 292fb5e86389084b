"""A folder kept in step with the library while the window is open, and the row that picks it.

The Markdown vault (ui/vault) and the reading group (ui/group) both sync a folder the same way:
a button in the status bar that says how the last sync went, a single-shot timer that syncs
once writes pause, one sync at a time on the writer thread (a request during one runs after
it), a folder watcher whose events bring a sync sooner, and a one-line error for what the disk
refused (anything else is a bug, for the crash reporter). `FolderSync` is that controller; a
screen says what a sync is (`_queue` a job), what came of it (`_took`) and what the button says
(`_show_status`). `FolderPicker` is the folder's line edit and its Choose… button."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QStatusBar,
    QToolButton,
    QWidget,
)

from reader.errors import ReaderError

from ..tasks import Task, TaskRunner
from .theme import file_dialog_options
from .timers import single_shot


class SyncHost(Protocol):
    """What a folder sync uses of the window (ui.context.OpContext has it)."""

    @property
    def parent(self) -> QWidget: ...
    @property
    def runner(self) -> TaskRunner: ...
    @property
    def on_error(self) -> Callable[[BaseException], None]: ...
    @property
    def is_closing(self) -> Callable[[], bool]: ...


class Watcher(Protocol):
    """A running folder watcher (watchdog's Observer, reader.vault.watch.VaultWatcher)."""

    def stop(self) -> None: ...


class FolderSync(QObject):
    """The scheduling, the status button and the folder watcher of a folder's sync (module doc).

    `syncs` counts finished syncs, failed ones too (tests wait on it); `error` is the last one's
    one-line error; `synced_at` when the last one succeeded."""

    _folder_changed = Signal()  # from the watcher's thread to the GUI thread

    def __init__(self, ctx: SyncHost, status: QStatusBar, *, name: str, accessible_name: str, delay_ms: int,
                 on_click: Callable[[], Any]) -> None:
        super().__init__(ctx.parent)
        self.ctx = ctx
        self.error: str | None = None
        self.synced_at: datetime | None = None
        self.syncs = 0
        self._task: Task[Any] | None = None
        self._again = False
        self._stopped = False  # the window is closing: no more automatic syncs
        self._watcher: Watcher | None = None
        self._watched: Path | None = None
        self.button = QToolButton(status)
        self.button.setObjectName(name)
        self.button.setAccessibleName(accessible_name)
        self.button.setAutoRaise(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.button.clicked.connect(on_click)
        status.addPermanentWidget(self.button)
        self._timer = single_shot(self, delay_ms, self.sync_now)  # (re)armed by each write
        ctx.parent.installEventFilter(self)

    # ------------------------------------------------------------------ what a screen says
    def sync_now(self) -> None:
        """Queue a sync now (a screen's: it checks its folder, then calls `_queue`)."""
        raise NotImplementedError(f"{type(self).__name__} says how it syncs")

    def _took(self, out: Any) -> None:
        """A sync's result on the GUI thread, before the status is shown (a screen keeps it)."""

    def _show_status(self) -> None:
        """The button's text and tooltip (a screen's)."""

    @property
    def running(self) -> bool:
        return self._task is not None

    # ------------------------------------------------------------------ scheduling
    def _queue(self, job: Callable[[Task[Any]], Any]) -> None:
        """Run `job` on the writer, or once more after the running one when one runs."""
        self._timer.stop()
        if self._task is not None:
            self._again = True
            return
        self._task = self.ctx.runner.write(job, self._done, self._failed, with_task=True)
        self._show_status()

    def _done(self, out: Any) -> None:
        self._task, self.error = None, None
        self.synced_at = datetime.now(UTC)
        self._took(out)
        self.syncs += 1
        self._show_status()
        self._next()

    def _failed(self, exc: BaseException) -> None:
        self._task = None
        self.syncs += 1
        if not isinstance(exc, ReaderError | OSError):
            self._show_status()
            self.ctx.on_error(exc)  # a bug: the crash reporter
            return
        self.error = str(exc)
        self._show_status()
        self._next()

    def _next(self) -> None:
        if self._again and not self._stopped:
            self._again = False
            self._timer.start()

    # ------------------------------------------------------------------ the folder watcher
    def _watch(self, folder: Path | None, start: Callable[[Path], Watcher]) -> None:
        """Watch `folder` (started by `start`) unless it is already watched; stop for None,
        a missing folder or a closing window. A watcher that cannot start is a one-line error
        (e.g. out of inotify watches): the timer still syncs."""
        if folder is None or not folder.is_dir() or self._stopped or self.ctx.is_closing():
            self._stop_watcher()
            return
        if self._watched == folder.resolve():
            return
        self._stop_watcher()
        try:
            self._watcher = start(folder)
        except OSError as exc:
            self.error = f"cannot watch {folder}: {exc}"
            return
        self._watched = folder.resolve()

    def _stop_watcher(self) -> None:
        watcher, self._watcher, self._watched = self._watcher, None, None
        if watcher is not None:
            watcher.stop()

    def watching(self) -> bool:
        return self._watcher is not None

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt's name
        if obj is self.ctx.parent and event.type() == QEvent.Type.Close:
            self.shutdown()
        return False

    def shutdown(self) -> None:
        """Closing: no more automatic syncs, no watcher (the next start syncs what is left)."""
        self._stopped = True
        self._timer.stop()
        self._stop_watcher()


class FolderPicker(QWidget):
    """A folder's line edit and its Choose… button in one row; Choose… opens the folder dialog
    of the theme (file_dialog_options) where the edit points, or the home folder."""

    def __init__(self, parent: QWidget, *, title: str, edit_name: str, button_name: str, accessible_name: str,
                 text: str = "", placeholder: str = "") -> None:
        super().__init__(parent)
        self._title = title
        self.edit = QLineEdit(text, self)
        self.edit.setObjectName(edit_name)
        self.edit.setAccessibleName(accessible_name)
        self.edit.setPlaceholderText(placeholder)
        self.button = QPushButton("Choose…", self)
        self.button.setObjectName(button_name)
        self.button.setAccessibleName(f"Choose the {accessible_name.lower()}")
        self.button.clicked.connect(self.choose)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.edit, 1)
        row.addWidget(self.button)

    def choose(self) -> None:
        start = self.edit.text().strip() or str(Path.home())
        chosen = QFileDialog.getExistingDirectory(self, self._title, start,
                                                  QFileDialog.Option.ShowDirsOnly | file_dialog_options())
        if chosen:
            self.edit.setText(chosen)

    def folder(self) -> Path:
        return Path(self.edit.text().strip()).expanduser()

    def lock(self) -> None:
        """Shown, not changed (a group already joined)."""
        self.edit.setReadOnly(True)
        self.button.setEnabled(False)
