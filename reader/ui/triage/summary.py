"""Triage's end of queue: the summary page, exporting the starred papers, opening the vault."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QFileDialog

from reader.library import Library, View
from reader.triage.queue import TriageQueue
from reader.triage.state import QueueSpec

from ..pages import PageContext
from ..widgets.theme import file_dialog_options
from .view import TriageView

if TYPE_CHECKING:  # numpy and Whoosh's analyser: loaded with triage, not at the window's start
    from reader.triage import source
else:
    from ..widgets.lazy import LazyModule

    source = LazyModule("reader.triage.source")


class SummaryHost(Protocol):
    """What the summary needs of the TriageController (controller.py; named here, not imported:
    the controller imports this module)."""

    ctx: PageContext
    library: Library
    view: TriageView
    open_vault: Callable[[], None] | None
    spec: QueueSpec

    @property
    def queue(self) -> TriageQueue | None: ...
    def flush_reads(self) -> None: ...
    def update_progress(self) -> None: ...


def show_summary(ctl: SummaryHost) -> None:
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

    ctl.ctx.runner.write(lambda: source.summarize(lib, ids), done, ctl.ctx.on_error)


def ask_export_starred(ctl: SummaryHost) -> None:
    folder = str(ctl.ctx.settings.value("lastExportFolder", str(Path.home())))
    path, _ = QFileDialog.getSaveFileName(ctl.ctx.window, "Export starred as reading list",
                                          str(Path(folder) / "reading-list.md"), "*.md",
                                          options=file_dialog_options())
    if path:
        export_starred(ctl, path)


def export_starred(ctl: SummaryHost, path: str | Path) -> None:
    """The queue's starred papers as a Markdown reading list, written on the writer."""
    lib, ctx, title = ctl.library, ctl.ctx, f"Reading list — {ctl.spec.describe()}"

    def job() -> Path:
        ids = starred_ids_from(ctl, lib)
        return lib.export_reading_list(path, ids, title=title, with_abstracts=True)

    ctx.runner.write(job, lambda out: ctx.notify(f"Exported the starred papers to {out}", 8000),
                     ctx.on_error, label="Exporting")


def starred_ids_from(ctl: SummaryHost, lib: Library) -> list[str]:
    q = ctl.queue
    ids = list(q.ids) if q is not None else []
    starred = set(lib.paper_ids(View("starred")))
    return [pid for pid in ids if pid in starred]


def open_vault(ctl: SummaryHost) -> None:
    if ctl.open_vault is not None:
        ctl.open_vault()
