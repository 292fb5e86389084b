"""Triage's end of queue: the summary page, exporting the starred papers, opening the vault."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from PySide6.QtWidgets import QFileDialog

from reader.store.views import View
from reader.triage import source
from reader.triage.queue import TriageQueue
from reader.triage.state import QueueSpec

from .view import TriageView


class TriageController(Protocol):
    """What the summary needs of triage_controller.TriageController (named here, not imported:
    the controller imports this module)."""

    window: Any
    library: Any
    view: TriageView
    spec: QueueSpec

    @property
    def queue(self) -> TriageQueue | None: ...
    def flush_reads(self) -> None: ...
    def update_progress(self) -> None: ...


def show_summary(ctl: TriageController) -> None:
    """The queue is done: count what the user did (on the writer) and show the summary page."""
    q = ctl.queue
    if q is None:
        return
    ctl.flush_reads()
    ctl.view.show_summary("Counting…", False)
    ctl.update_progress()
    lib, ids = ctl.library, list(q.ids)

    def done(summary: source.Summary) -> None:
        if ctl.queue is q and q.finished:
            ctl.view.show_summary(summary.describe(), summary.starred > 0)

    ctl.window.runner.write(lambda: source.summarize(lib, ids), done, ctl.window.handle_error)


def ask_export_starred(ctl: TriageController) -> None:
    folder = str(ctl.window.settings.value("lastExportFolder", str(Path.home())))
    path, _ = QFileDialog.getSaveFileName(ctl.window, "Export starred as reading list",
                                          str(Path(folder) / "reading-list.md"), "*.md")
    if path:
        export_starred(ctl, path)


def export_starred(ctl: TriageController, path: str | Path) -> None:
    """The queue's starred papers as a Markdown reading list, written on the writer."""
    lib, w, title = ctl.library, ctl.window, f"Reading list — {ctl.spec.describe()}"

    def job() -> Path:
        ids = starred_ids_from(ctl, lib)
        return lib.export_reading_list(path, ids, title=title, with_abstracts=True)

    w.runner.write(job, lambda out: w.statusBar().showMessage(f"Exported the starred papers to {out}", 8000),
                   w.handle_error, label="Exporting")


def starred_ids_from(ctl: TriageController, lib: Any) -> list[str]:
    q = ctl.queue
    ids = list(q.ids) if q is not None else []
    starred = set(lib.paper_ids(View("starred")))
    return [pid for pid in ids if pid in starred]


def open_vault(ctl: TriageController) -> None:
    opener = getattr(ctl.window, "open_vault", None)
    if callable(opener):
        opener()
