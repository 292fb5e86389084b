"""The folder sync shared by the Markdown vault and the reading group (widgets/folder_sync.py):
one sync at a time, a request during one runs after it, a one-line error for what the disk
refused, a bug to the crash reporter, the watcher started once per folder, and the folder picker
both dialogs use."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow

from reader.errors import ReaderError
from reader.ui.group.dialog import GroupDialog
from reader.ui.tasks import TaskRunner
from reader.ui.vault.dialogs import VaultDialog
from reader.ui.widgets import theme
from reader.ui.widgets.folder_sync import FolderPicker, FolderSync


@dataclass
class _Host:
    parent: QMainWindow
    runner: TaskRunner
    errors: list[BaseException] = field(default_factory=list)

    @property
    def on_error(self):
        return self.errors.append

    @property
    def is_closing(self):
        return lambda: False


class _Sync(FolderSync):
    """A sync that runs `self.outcome` on the writer (a value, or an exception to raise)."""

    def __init__(self, host: _Host) -> None:
        super().__init__(host, host.parent.statusBar(), name="testStatus", accessible_name="Test sync status",
                         delay_ms=10, on_click=self.sync_now)
        self.outcome: Any = "ok"
        self.gate = threading.Event()
        self.gate.set()
        self.runs = 0
        self.took: list[Any] = []

    def sync_now(self) -> None:
        outcome, gate = self.outcome, self.gate

        def job(_task):
            gate.wait(10)
            self.runs += 1
            if isinstance(outcome, BaseException):
                raise outcome
            return outcome

        self._queue(job)

    def _took(self, out: Any) -> None:
        self.took.append(out)

    def _show_status(self) -> None:
        self.button.setText("running" if self.running else self.error or "idle")


def _env(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    runner = TaskRunner()
    host = _Host(window, runner)
    return window, runner, host, _Sync(host)


def test_one_sync_at_a_time_and_a_request_during_one_runs_after_it(qtbot):
    window, runner, host, sync = _env(qtbot)
    try:
        sync.gate.clear()
        sync.sync_now()
        assert sync.running and sync.button.text() == "running"
        sync.sync_now()
        sync.sync_now()  # two requests during a sync: one more sync after it
        sync.gate.set()
        qtbot.waitUntil(lambda: sync.syncs == 2 and not sync.running, timeout=10000)
        qtbot.wait(100)
        assert sync.runs == 2 and sync.took == ["ok", "ok"] and sync.synced_at is not None
        assert sync.button.objectName() == "testStatus" and sync.button.accessibleName() == "Test sync status"
        assert window.statusBar().findChild(type(sync.button), "testStatus") is sync.button
    finally:
        runner.shutdown(wait=True)


def test_what_the_disk_refused_is_one_line_and_a_bug_goes_to_the_crash_reporter(qtbot):
    _window, runner, host, sync = _env(qtbot)
    try:
        sync.outcome = ReaderError("/shared: the folder is read-only")
        sync.sync_now()
        qtbot.waitUntil(lambda: sync.syncs == 1)
        assert sync.error == "/shared: the folder is read-only" and sync.button.text() == sync.error
        assert not host.errors and sync.took == []
        sync.outcome = ValueError("a bug")
        sync.sync_now()
        qtbot.waitUntil(lambda: sync.syncs == 2)
        assert len(host.errors) == 1 and isinstance(host.errors[0], ValueError)
        sync.outcome = "fine"
        sync.sync_now()
        qtbot.waitUntil(lambda: sync.syncs == 3)
        assert sync.error is None and sync.took == ["fine"]
    finally:
        runner.shutdown(wait=True)


@dataclass
class _Watcher:
    folder: Path
    stopped: bool = False

    def stop(self) -> None:
        self.stopped = True


def test_the_watcher_starts_once_per_folder_and_stops_on_close(qtbot, tmp_path):
    window, runner, _host, sync = _env(qtbot)
    started: list[_Watcher] = []

    def start(folder: Path) -> _Watcher:
        started.append(_Watcher(folder))
        return started[-1]

    def refuse(folder: Path) -> _Watcher:
        raise OSError(28, "inotify watch limit reached")

    try:
        sync._watch(tmp_path, start)
        sync._watch(tmp_path, start)
        assert len(started) == 1 and sync.watching()
        other = tmp_path / "other"
        other.mkdir()
        sync._watch(other, start)
        assert len(started) == 2 and started[0].stopped and not started[1].stopped
        sync._watch(tmp_path / "missing", start)
        assert started[1].stopped and not sync.watching()
        sync._watch(tmp_path, refuse)
        assert not sync.watching() and sync.error is not None and "cannot watch" in sync.error
        sync._watch(tmp_path, start)
        sync._timer.start()
        QApplication.sendEvent(window, QCloseEvent())
        assert started[-1].stopped and not sync.watching() and not sync._timer.isActive()
    finally:
        runner.shutdown(wait=True)


def test_both_dialogs_pick_their_folder_with_one_picker_in_the_theme(qtbot, tmp_path, monkeypatch):
    """The group's Choose… opened the platform's dialog, light in a dark window, at no folder;
    both now use one picker: the theme's dialog, where the field points."""
    asked: list[tuple[str, Any]] = []

    def ask(_parent, _title, start, options):
        asked.append((start, options))
        return str(tmp_path / "chosen")

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", ask)
    monkeypatch.setattr(theme, "file_dialog_options", lambda: QFileDialog.Option.DontUseNativeDialog)
    monkeypatch.setattr("reader.ui.widgets.folder_sync.file_dialog_options",
                        lambda: QFileDialog.Option.DontUseNativeDialog)
    group = GroupDialog(None, None)
    owner = QMainWindow()
    qtbot.addWidget(owner)
    vault = VaultDialog(owner, tmp_path, "")
    qtbot.addWidget(group)
    for dialog, edit, button in ((group, "groupFolder", "groupBrowse"), (vault, "vaultFolder", "vaultChoose")):
        picker = dialog.picker
        assert isinstance(picker, FolderPicker) and picker.edit is dialog.folderEdit
        assert picker.edit.objectName() == edit and picker.button.objectName() == button
        assert picker.edit.accessibleName() and picker.button.accessibleName()
        picker.button.click()
        assert dialog.folderEdit.text() == str(tmp_path / "chosen")
    assert [a[0] for a in asked] == [str(Path.home()), str(tmp_path)]
    assert all(a[1] & QFileDialog.Option.DontUseNativeDialog and a[1] & QFileDialog.Option.ShowDirsOnly
               for a in asked)
    assert group.folder() == tmp_path / "chosen" and vault.chosen_folder() == tmp_path / "chosen"
