"""The reading group while the window is open: syncs on the writer thread every SYNC_EVERY_MS,
soon after one's own decisions and when the shared folder changes (watchdog); the status bar's
button says when it last synced and what went wrong; File → Reading group… joins or leaves;
divide shares a selection's undecided papers among the members."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from reader.errors import ReaderError
from reader.events import Change, Changes
from reader.group import Group, GroupError, GroupSyncReport
from reader.group.divide import split_even, topics, undecided
from reader.group.folder import TEMP_PREFIX

from ..context import OpContext
from ..pages import PageContext
from ..tasks import Task
from ..widgets.folder_sync import FolderSync
from .dialog import GroupDialog

SYNC_EVERY_MS = 60_000  # others' decisions arrive at least this often (the folder watcher is quicker)
AFTER_WRITE_MS = 1500  # one's own decisions go out this long after the last one
DECISIONS = frozenset({Change.STAR, Change.SKIP, Change.READ, Change.TAG, Change.NOTE, Change.DELETE,
                       Change.IMPORT, Change.OUTSIDE})


def status_text(report: GroupSyncReport | None, when: datetime | None, members: int, *, running: bool = False,
                error: str | None = None) -> str:
    if running:
        return "Group: syncing…"
    if error:
        return f"Group: {error if len(error) <= 60 else error[:59] + '…'}"
    if report is None or when is None:
        return "Group: not synced yet"
    text = f"Group: synced {when.astimezone().strftime('%H:%M')} · {members} member{'s' * (members != 1)}"
    if report.problems:
        text += f" · {len(report.problems)} problem{'s' * (len(report.problems) != 1)}"
    return text


class _Handler(FileSystemEventHandler):
    def __init__(self, poke: Callable[[], None]) -> None:
        self._poke = poke

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        name = Path(str(event.src_path)).name
        if not name.startswith(TEMP_PREFIX):
            self._poke()


class GroupSync(FolderSync):
    """Keeps the library's group state current while the window is open (see the module doc)."""

    ctx: OpContext

    def __init__(self, page: PageContext) -> None:
        ctx, status, bridge = page.ops, page.list.status, page.changes
        super().__init__(ctx, status, name="groupStatus", accessible_name="Reading group status",
                         delay_ms=AFTER_WRITE_MS, on_click=self.sync_now)
        self.ctx = ctx
        self.group = Group(ctx.library)
        self.report: GroupSyncReport | None = None
        self.members = 0
        self.dialog: GroupDialog | None = None
        self.button.setToolTip("The reading group: click to sync now (problems are listed here)")
        self._every = QTimer(self)
        self._every.setInterval(SYNC_EVERY_MS)
        self._every.timeout.connect(self.sync_now)
        self._every.start()
        self._folder_changed.connect(self._timer.start)
        bridge.changed.connect(self.written)
        self._show_status()
        QTimer.singleShot(0, self.sync_now)

    # ------------------------------------------------------------------ state
    def config(self) -> Any:
        try:
            return self.group.config()
        except Exception:  # a closed or damaged library: no group shown
            return None

    def joined(self) -> bool:
        return self.config() is not None

    # ------------------------------------------------------------------ the dialog
    def marks_of(self, pid: str) -> list[Any] | None:
        """The group's decisions on a paper for the pane's Group tab (None: in no group)."""
        try:
            if self.group.config() is None:
                return None
            return self.group.marks([pid]).get(pid, [])
        except Exception:  # a closed or damaged library: no group shown, as config() does
            return None

    def ask(self) -> None:
        """File → Reading group…"""
        status = self.group.status() if self.joined() else None
        self.dialog = dialog = GroupDialog(self.ctx.parent, status)
        dialog.finished.connect(lambda result: self._dialog_done(dialog, result))
        dialog.open()

    def _dialog_done(self, dialog: GroupDialog, result: int) -> None:
        if result != GroupDialog.DialogCode.Accepted:
            return
        try:
            if dialog.leave_requested:
                self.leave()
            elif dialog.joined:
                self.group.set_options(share_notes=dialog.shareNotes.isChecked(), tags=dialog.tags(),
                                       best_first_group=dialog.bestFirst.isChecked())
                self.sync_now()
            else:
                self.join(dialog.folder(), dialog.name(), share_notes=dialog.shareNotes.isChecked(),
                          tags=dialog.tags(), best_first_group=dialog.bestFirst.isChecked())
        except ReaderError as exc:
            QMessageBox.warning(self.ctx.parent, "Reading group", str(exc))

    def join(self, folder: Path, name: str, *, share_notes: bool = False, tags: str = "all",
             best_first_group: bool = False) -> None:
        """Join (raises GroupError with a one-line message), then sync."""
        self.group.join(folder, name, share_notes=share_notes, tags=tags)
        if best_first_group:
            self.group.set_options(best_first_group=True)
        self.error = None
        self.sync_now()

    def leave(self) -> None:
        left = self.group.leave()
        if left.problem:
            self.ctx.notify(left.problem, 8000)
        self._stop_watcher()
        self.report, self.synced_at, self.error = None, None, None
        self._show_status()

    # ------------------------------------------------------------------ scheduling
    def written(self, changes: Changes) -> None:
        """A decision was stored (here or elsewhere): send it out once writes pause."""
        if Change.GROUP in changes.kinds or not changes.kinds & DECISIONS:
            return
        if not (self._stopped or self.ctx.is_closing()) and self.joined():
            self._timer.start()

    def sync_now(self) -> None:
        """Queue a sync on the writer (one at a time: a request during a sync runs after it)."""
        self._timer.stop()
        if self._stopped or self.ctx.is_closing() or not self.joined():
            self._show_status()
            return
        group = self.group
        self._queue(lambda _task: (group.sync(), len(group.members())))

    def _took(self, out: tuple[GroupSyncReport, int]) -> None:
        self.report, self.members = out
        cfg = self.config()
        self._watch(Path(cfg["folder"]) if cfg is not None else None, self._observe)

    def _observe(self, folder: Path) -> Any:
        """A watchdog observer of the group's folder: its events (but the members' temporary
        files') bring a sync soon."""
        observer = Observer()
        observer.daemon = True
        observer.schedule(_Handler(self._folder_changed.emit), str(folder), recursive=True)
        observer.start()
        return observer

    def _show_status(self) -> None:
        joined = self.joined()
        self.button.setVisible(joined)
        self.button.setText(status_text(self.report, self.synced_at, self.members, running=self.running,
                                        error=self.error))
        problems = self.report.problems if self.report is not None else []
        tip = "The reading group: click to sync now"
        if problems:
            tip += "\n\n" + "\n".join(problems[:8])
        self.button.setToolTip(tip)

    def shutdown(self) -> None:
        """Closing: stop the timers and the watcher (the next start syncs what is left)."""
        self._every.stop()
        super().shutdown()

    # ------------------------------------------------------------------ dividing the work
    def divide(self, ids: Sequence[str] | Callable[[], list[str]], query: str = "",
               on_done: Callable[[dict[str, list[str]]], None] | None = None) -> None:
        """Share the undecided papers of `ids` among the members (topics together), on the writer."""
        if not self.joined():
            QMessageBox.information(self.ctx.parent, "Divide among the group",
                                    "Join a reading group first (File → Reading group…).")
            return
        lib, group = self.ctx.library, self.group

        def job(_task: Task) -> dict[str, list[str]]:
            group.sync()
            todo = undecided(lib.read_connection(), ids() if callable(ids) else list(ids))
            topic_of, _how = topics(lib.read_connection(), lib.paths.root, todo)
            shares = split_even(todo, topic_of, group.members())
            group.publish_division(query, shares)
            return shares

        def done(shares: dict[str, list[str]]) -> None:
            parts = ", ".join(f"{m} {len(v)}" for m, v in shares.items())
            total = sum(len(v) for v in shares.values())
            if total == 0:  # it said "Divided 0 undecided papers among the group: ada 0, bob 0"
                self.ctx.notify("Nothing to divide: a member already starred or skipped each of these papers", 8000)
            else:
                self.ctx.notify(f"Divided {total} undecided paper{'s' * (total != 1)} among the group: {parts}", 8000)
            if on_done is not None:
                on_done(shares)

        def failed(exc: BaseException) -> None:
            if isinstance(exc, GroupError | ReaderError | OSError):
                self.ctx.notify(f"Divide: {exc}", 8000)
            else:
                self.ctx.on_error(exc)

        self.ctx.runner.write(job, done, failed, with_task=True)
