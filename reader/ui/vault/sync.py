"""Live sync with a Markdown vault: settings, the folder watcher, syncs on the writer, status and undo."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, QUrl
from PySide6.QtGui import QDesktopServices

from reader.errors import ReaderError
from reader.events import Change, Changes
from reader.models import Paper

from ..context import OpContext
from ..operations import restore_snapshots
from ..pages import PageContext
from ..paper.note_merge import MERGE_VAULT, NoteMerges
from ..tasks import Task
from ..undo import SnapshotCommand, push_change
from ..widgets.folder_sync import FolderSync
from .dialogs import VaultDialog, VaultReportDialog

if TYPE_CHECKING:
    from reader import vault
else:  # the vault's modules (YAML) load when a vault is set or its dialog opens, not at the start
    from ..widgets.lazy import LazyModule

    vault = LazyModule("reader.vault")

WRITE_DELAY_MS = 800  # Reader's own changes go out this long after the last write (≈ 2 s after typing stops)
FOLDER_KEY, QUERY_KEY = "vault/folder", "vault/query"
# What a sync may change in the library (VAULT marks the sync's own, which the scheduler skips).
VAULT_KINDS = frozenset({Change.VAULT, Change.STAR, Change.READ, Change.TAG, Change.NOTE, Change.TITLE})


@dataclass(frozen=True)
class SyncResult:
    """A sync job's result: its report, and the papers it changed as they were before and after."""

    report: vault.SyncReport
    before: list[Paper]
    after: list[Paper]


def status_text(report: vault.SyncReport | None, when: datetime | None, *, running: bool = False,
                error: str | None = None) -> str:
    """The status bar's one line: "Vault: synced 12:03 · 2 conflicts", "Vault: syncing…", an error."""
    if running:
        return "Vault: syncing…"
    if error:
        return f"Vault: error — {error if len(error) <= 60 else error[:59] + '…'}"
    if report is None or when is None:
        return "Vault: not synced yet"
    parts = [f"Vault: synced {when.astimezone().strftime('%H:%M')}"]
    for count, word in ((len(report.conflicts), "conflict"), (len(report.damaged), "damaged file")):
        if count:
            parts.append(f"{count} {word}{'s' if count != 1 else ''}")
    return " · ".join(parts)


def _report_at_exit(exc: BaseException) -> None:
    sys.stderr.write(f"reader: the last vault sync failed: {exc}\n")


class VaultSync(FolderSync):
    """Keeps the library and the vault folder in step while the window is open.

    Every sync runs on the window's writer thread (its transaction is serialised with every other
    write), after the note being typed was handed to the writer. A sync that takes changes from
    the vault is one undo step. If the user kept typing a note the sync just changed, the text
    they were typing is merged with the vault's when it is saved (note_merge.py), never dropped.
    Reader's own changes (this window's, or another process's) go out once writes pause: the
    scheduler follows the library's change events, except those of its own syncs.
    """

    ctx: OpContext

    def __init__(self, page: PageContext, merges: NoteMerges) -> None:
        """`merges`: notes the vault changed under the editor, merged when they are saved."""
        ctx, status, bridge = page.ops, page.list.status, page.changes
        super().__init__(ctx, status, name="vaultStatus", accessible_name="Markdown vault status",
                         delay_ms=WRITE_DELAY_MS, on_click=self.show_report)
        self.settings = page.settings
        self.pane = page.list.pane
        self.merges = merges
        self._index_ready = page.list.index_ready
        self.report: vault.SyncReport | None = None
        self.wakeups = 0  # changes in the folder that were not our own writes
        self.dialog: VaultDialog | None = None
        self.report_dialog: VaultReportDialog | None = None
        self._lock = threading.Lock()
        self._own: dict[str, tuple[int, int]] = {}  # path -> (mtime_ns, size) as our syncs wrote it

        self.button.setToolTip("The Markdown vault: click for the last sync's report")
        self._folder_changed.connect(self.sync_now)
        bridge.changed.connect(self.written)
        self._show_status()
        QTimer.singleShot(0, self._start)

    # ------------------------------------------------------------------ settings
    @property
    def folder(self) -> Path | None:
        value = str(self.settings.value(FOLDER_KEY, "") or "")
        return Path(value) if value else None

    @property
    def query(self) -> str:
        return str(self.settings.value(QUERY_KEY, "") or "").strip() or vault.DEFAULT_QUERY

    def configure(self, folder: str | Path | None, query: str = "") -> None:
        """Set (or, with None, disconnect) the vault folder and its query; a set vault syncs now."""
        s = self.settings
        self._stop_watcher()
        self.report, self.synced_at, self.error = None, None, None
        with self._lock:
            self._own.clear()
        if folder is None:
            s.remove(FOLDER_KEY)
            s.remove(QUERY_KEY)
        else:
            s.setValue(FOLDER_KEY, str(Path(folder).expanduser()))
            s.setValue(QUERY_KEY, query.strip() or vault.DEFAULT_QUERY)
        s.sync()
        if folder is not None:
            try:  # the dialog checked that its parent exists
                Path(folder).expanduser().mkdir(exist_ok=True)
            except OSError as exc:
                self.error = str(exc)
        self._show_status()
        if folder is not None and self.error is None:
            self.sync_now()

    def ask(self) -> None:
        """File → Markdown vault…: choose, change or disconnect the folder, and its query."""
        self.dialog = dialog = VaultDialog(self.ctx.parent, self.folder, self.query)
        dialog.finished.connect(lambda result: self._dialog_done(dialog, result))
        dialog.open()

    def _dialog_done(self, dialog: VaultDialog, result: int) -> None:
        if dialog.disconnect_requested:
            self.configure(None)
        elif result == VaultDialog.DialogCode.Accepted:
            self.configure(dialog.chosen_folder(), dialog.chosen_query())

    def open_folder(self) -> None:
        """Show the vault folder in the file manager (asks for one when none is set)."""
        folder = self.folder
        if folder is None:
            self.ask()
            return
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    # ------------------------------------------------------------------ scheduling
    def _start(self) -> None:
        if self.folder is not None and not (self._stopped or self.ctx.is_closing()):
            self.sync_now()

    def written(self, changes: Changes) -> None:
        """Something was stored (here or by another process): send it out once writes pause.

        Not for a sync's own changes (VAULT), nor for index upkeep, which changes no paper."""
        if Change.VAULT in changes.kinds or not changes.kinds - {Change.INDEX}:
            return
        if self.folder is not None and not (self._stopped or self.ctx.is_closing()):
            self._timer.start()

    def sync_now(self) -> None:
        """Queue a sync on the writer (one at a time: a request during a sync runs after it)."""
        folder = self.folder
        self._timer.stop()
        if folder is None or self.ctx.is_closing():
            return
        if self.running:
            self._again = True
            return
        if not folder.is_dir():
            self._failed(ReaderError(f"{folder}: the vault folder is missing"))
            return
        from reader.vault.membership import needs_index

        if needs_index(self.query) and not self._index_ready():
            self._timer.start()  # its query searches the index: wait until it is built
            return
        self.pane.flush_note()  # what is typed goes to the writer first: the sync merges it
        self._queue(self._job(folder, self.query))

    def _job(self, folder: Path, query: str) -> Callable[[Task], SyncResult]:
        lib = self.ctx.library

        def job(task: Task) -> SyncResult:
            before: list[Paper] = []
            # Runs inside the sync's transaction, just before the vault's changes are applied.
            report = vault.sync(lib, folder, query=query, cancelled=task.cancelled,
                                on_apply=lambda ids: before.extend(lib.snapshot(ids)))
            after = lib.snapshot([p.id for p in before]) if before else []
            self._remember(report, before, after)
            if before:  # what the vault changed reaches the widgets like any committed write
                lib.changes.publish(Changes.of(VAULT_KINDS, [p.id for p in before]))
            return SyncResult(report, before, after)

        return job

    # ------------------------------------------------------------------ results
    def _remember(self, report: vault.SyncReport, before: list[Paper], after: list[Paper]) -> None:
        """On the writer: the files this sync wrote (their events are ours) and the notes it changed."""
        from reader.vault.sync import written_stamps

        own = written_stamps(self.ctx.library, report)
        notes_after = {p.id: p.note for p in after}
        with self._lock:
            self._own.update(own)
        for p in before:
            new = notes_after.get(p.id)
            if new is not None and new != p.note:
                self.merges.changed_under_editor(p.id, p.note, new, MERGE_VAULT)

    def _took(self, out: SyncResult) -> None:
        report, before, after = out.report, out.before, out.after
        ctx = self.ctx
        self.report = report
        if before != after and not ctx.is_closing():
            text = f"Sync from vault ({len(after)} paper{'s' if len(after) != 1 else ''})"
            push_change(ctx.undo_stack, SnapshotCommand(partial(restore_snapshots, ctx), text, before, after))
        self.merges.settle(self.pane.unsaved_notes())
        self._watch_if_set()

    def _show_status(self) -> None:
        self.button.setVisible(self.folder is not None)
        self.button.setText(status_text(self.report, self.synced_at, running=self.running,
                                        error=self.error))
        if self.report_dialog is not None and self.report_dialog.isVisible():
            self.report_dialog.show_state(self.button.text(), self.report, self.error)

    def show_report(self) -> None:
        """The last sync's report: conflicts and damaged files by path, files written, errors."""
        if self.report_dialog is None:
            self.report_dialog = VaultReportDialog(self.ctx.parent)
            self.report_dialog.syncRequested.connect(self.sync_now)
            self.report_dialog.openRequested.connect(self.open_folder)
        self.report_dialog.show_state(self.button.text(), self.report, self.error)
        self.report_dialog.show()

    # ------------------------------------------------------------------ the folder watcher
    def _paths_changed(self, paths: set[str]) -> None:
        """On the watcher's thread: sync unless every changed file is just as our sync wrote it."""
        with self._lock:
            own = dict(self._own)
        for path in paths:
            try:
                st = os.stat(path)
                ours = own.get(path) == (st.st_mtime_ns, st.st_size)
            except OSError:
                ours = False  # deleted or moved away
            if not ours:
                self.wakeups += 1
                self._folder_changed.emit()
                return

    def shutdown(self) -> None:
        """Closing: stop watching; what Reader changed since the last sync goes out in a last one
        (the window waits for the writer before it quits)."""
        ctx = self.ctx
        self.pane.commit_edits()
        pending = self._timer.isActive() or self._again or ctx.runner.busy
        self._timer.stop()
        self._again = False
        self._stop_watcher()
        self._stopped = True
        if self._task is not None:
            self._task.cancel()  # it stops between files; the next start syncs the rest
            return
        folder = self.folder
        if pending and folder is not None and folder.is_dir() and not ctx.is_closing():
            ctx.runner.write(self._job(folder, self.query), None, _report_at_exit, with_task=True)

    def _watch_if_set(self) -> None:
        from reader.vault.watch import VaultWatcher

        self._watch(self.folder, lambda folder: VaultWatcher(folder, lambda: None,
                                                             on_paths=self._paths_changed).start())
