"""Import and export flows: file dialogs, drag and drop, background import, exports and Copy as Markdown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from reader.import_report import details_text, has_details
from reader.library import View
from reader.library.io import ExportCancelled
from reader.models import ExportKind
from reader.plural import count_noun

from ..dialogs.common import ExportDialog, ExportOptions, import_summary_text
from ..operations import ids_getter, scope
from ..pages import PageContext
from ..tasks import Task
from ..widgets.theme import file_dialog_options
from .index_sync import IndexSync

ShowMessage = Callable[[str, str, QMessageBox.Icon, str], Any]


def accepts_drag(event: QDragEnterEvent) -> None:
    if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
        event.acceptProposedAction()


@dataclass(frozen=True)
class Copied:
    """A copy job's result: how many papers the text holds, and the text for the clipboard."""

    count: int
    text: str


class ImportExport(QObject):
    """The window's import and export flows; the list redraws itself from the change events."""

    imported = Signal(list)  # the new papers' ids of a finished import (the list shows them)

    def __init__(self, page: PageContext, index_sync: IndexSync, show_message: ShowMessage,
                 tag_names: Callable[[], list[str]]) -> None:
        """`show_message`: the window's message box (an import's summary); `tag_names`: the sidebar's."""
        ctx = page.ops
        super().__init__(ctx.parent)
        self.ctx, self.settings, self.pane, self.status = ctx, page.settings, page.list.pane, page.list.status
        self.index_sync = index_sync
        self.show_message = show_message
        self.list_scope = page.list.scope
        self.tag_names = tag_names
        self.last_import_summaries: list = []
        self.last_import_text = ""
        self.last_export: int | Path | list[Path] | None = None
        self.export_options: ExportOptions | None = None

    def ask_import(self) -> None:
        # Here: every parser loads with the first import, not at the window's start.
        from reader.importers import file_dialog_filter

        start = str(self.settings.value("lastImportFolder", str(Path.home())))
        paths, _ = QFileDialog.getOpenFileNames(self.ctx.parent, "Import papers", start, file_dialog_filter(),
                                                options=file_dialog_options())
        if paths:
            self.settings.setValue("lastImportFolder", str(Path(paths[0]).parent))
            self.import_paths(paths)

    def import_paths(self, paths: Sequence[str | Path]) -> Task:
        """The import code path of the dialog and of drag-and-drop: background, with progress."""
        self.pane.flush_note()  # a typed note is saved before anything can fail
        lib = self.ctx.library
        files = [str(p) for p in paths]

        def job(task: Task) -> list:
            # The store only: the index catches up afterwards on its own thread (see import_done).
            return lib.import_files(files, progress=task.progress, cancelled=task.cancelled, index=False)

        made: list[Task] = []  # the task, for its done callback (which runs later, on the GUI thread)
        task = self.ctx.runner.write(job, lambda summaries: self.import_done(summaries, made[0].cancelled()),
                                     self.import_failed, label="Importing", with_task=True)
        made.append(task)
        return self.status.track(task)

    def import_sample(self) -> Task:
        """The bundled sample papers, imported like a file (the empty library's offer)."""
        lib = self.ctx.library
        made: list[Task] = []
        task = self.ctx.runner.write(lambda: lib.import_seeds(index=False),
                                     lambda summaries: self.import_done(summaries, made[0].cancelled()),
                                     self.import_failed, label="Importing")
        made.append(task)
        return task

    def import_cancelled(self, summaries: list) -> None:
        """Cancel: said plainly in the status bar (no warning dialog). The cancelled file wrote
        nothing; files finished before it were committed and are indexed like any import."""
        kept = sum(s.new for s in summaries if not s.error)
        text = "Import cancelled"
        if kept:
            text += f" — {count_noun(kept, 'new paper')} from the files before it kept"
        self.last_import_summaries = summaries
        self.last_import_text = text
        self.ctx.notify(text, 10000)
        if kept:
            self.index_sync.sync_in_background()

    def import_done(self, summaries: list, cancelled: bool = False) -> None:
        if cancelled:
            self.import_cancelled(summaries)
            return
        self.last_import_summaries = summaries
        self.last_import_text = import_summary_text(summaries)
        new = sum(s.new for s in summaries)
        self.ctx.notify(f"Imported {count_noun(new, 'new paper')}", 8000)
        new_ids = [pid for s in summaries for pid in s.new_ids]
        if new_ids:
            self.imported.emit(new_ids)
        self.index_sync.sync_in_background()
        errors = any(s.error or s.skipped for s in summaries)
        box = self.show_message("Import finished", self.last_import_text,
                                QMessageBox.Icon.Warning if errors else QMessageBox.Icon.Information,
                                "importSummary")
        if box is not None and has_details(summaries):
            # Qt's "Show Details…" button: every problem of every file, grouped by cause.
            box.setDetailedText(details_text(summaries))

    def import_failed(self, exc: BaseException) -> None:
        self.last_import_text = f"Import failed: {exc}"
        self.index_sync.sync_in_background()  # files before the failing one were stored
        self.ctx.on_error(exc)

    def drop(self, event: QDropEvent) -> None:
        """Dropped local files are imported like the dialog's."""
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.import_paths(paths)

    def ask_export(self) -> None:
        selected = len(self.list_scope().selected)
        options = self.export_options or ExportOptions(scope="selection" if selected > 1 else "view")
        dialog = ExportDialog(self.ctx.parent, self.tag_names(), selected, options)
        if dialog.exec() != ExportDialog.DialogCode.Accepted:
            return
        options = dialog.options()
        self.export_options = options
        folder = str(self.settings.value("lastExportFolder", str(Path.home())))
        parent = self.ctx.parent
        if options.kind == ExportKind.PER_PAPER:
            path = QFileDialog.getExistingDirectory(parent, "Export to folder", folder,
                                                    QFileDialog.Option.ShowDirsOnly | file_dialog_options())
        elif ExportKind(options.kind).citing:
            # Here: the exporters load with an export, not at the window's start.
            from reader.exporters.cite import EXTENSIONS, LABELS

            suffix = EXTENSIONS[options.kind]
            path, _ = QFileDialog.getSaveFileName(parent, "Export", str(Path(folder) / f"references{suffix}"),
                                                  f"{LABELS[options.kind]} (*{suffix})", options=file_dialog_options())
        else:
            suffix = ".json" if options.kind == ExportKind.JSON else ".md"
            name = "reader-backup.json" if options.kind == ExportKind.JSON else "reading-list.md"
            path, _ = QFileDialog.getSaveFileName(parent, "Export", str(Path(folder) / name), f"*{suffix}",
                                                  options=file_dialog_options())
        if path:
            self.export_to(path, options)

    def scope_ids(self, options: ExportOptions) -> Callable[[], list[str]]:
        """The ids an export covers, resolved on the writer (after pending saves)."""
        lib, listed = self.ctx.library, self.list_scope()
        if options.scope == "selection":
            return ids_getter(scope.bulk_ids(lib, listed))
        if options.scope == "view":
            if scope.list_truncated(listed):
                return scope.all_matching_ids(lib, listed)  # the whole search, not just the shown best matches
            ids = list(listed.listed)
            return lambda: ids
        if options.scope == "starred":
            return lambda: lib.paper_ids(View("starred"))
        tag = options.tag or ""
        return lambda: lib.paper_ids(View("tag", tag))

    def export_to(self, path: str | Path, options: ExportOptions | None = None) -> Task:
        """The export code path of the dialog: runs on the writer after the note is saved."""
        options = options or ExportOptions()
        self.pane.flush_note()
        self.settings.setValue("lastExportFolder",
                               str(Path(path) if options.kind == ExportKind.PER_PAPER else Path(path).parent))
        lib, chosen = self.ctx.library, options
        ids = self.scope_ids(options)

        def job(task: Task) -> int | Path | list[Path]:
            if ExportKind(chosen.kind).citing:  # callers may pass the plain value ("json")
                # Streamed paper by paper: a progress and a working Cancel (100k papers take a while).
                return lib.export_citations(path, ids(), ExportKind(chosen.kind), with_notes=chosen.with_notes,
                                            progress=task.progress, cancelled=task.cancelled)
            if chosen.kind == ExportKind.JSON:
                return lib.export_json(path)
            if chosen.kind == ExportKind.PER_PAPER:
                return lib.export_per_paper(path, ids(), with_abstracts=chosen.with_abstracts)
            return lib.export_reading_list(path, ids(), title=chosen.title, group_by=chosen.group_by,
                                           with_abstracts=chosen.with_abstracts)

        def done(result: int | Path | list[Path]) -> None:
            self.last_export = result
            if isinstance(result, int):  # a bibliography: how many papers it holds
                self.ctx.notify(f"Exported {count_noun(result, 'paper')} to {path}", 8000)
                return
            count = len(result) if isinstance(result, list) else 1
            self.ctx.notify(f"Exported {count_noun(count, 'file')} to {path}", 8000)

        def failed(exc: BaseException) -> None:
            if not isinstance(exc, ExportCancelled):  # cancelled: the status bar says so
                self.ctx.on_error(exc)

        return self.status.track(self.ctx.runner.write(job, done, failed, label="Exporting", with_task=True))

    def copy_bibtex(self) -> Task | None:
        """Edit → Copy as BibTeX: the entries of the papers a bulk action covers, on the clipboard."""
        lib = self.ctx.library
        return self._copy("BibTeX", lambda ids: lib.citations_text(ids, ExportKind.BIBTEX))

    def copy_markdown(self) -> Task | None:
        """Edit → Copy as Markdown: the papers a bulk action covers, as a reading list on the clipboard."""
        lib = self.ctx.library
        return self._copy("Markdown", lambda ids: lib.reading_list_markdown(ids, title="Reading list"))

    def _copy(self, what: str, text_of: Callable[[list[str]], str]) -> Task | None:
        """Put `text_of(ids)` of the papers a bulk action covers on the clipboard (made on the
        writer, after pending saves) and say how many papers it holds; None when none is chosen."""
        ids = scope.bulk_ids(self.ctx.library, self.list_scope())
        if not ids:
            return None
        self.pane.flush_note()  # as for an export: the note being typed is saved first
        get = ids_getter(ids)

        def job() -> Copied:
            chosen = get()
            return Copied(len(chosen), text_of(chosen))

        def done(out: Copied) -> None:
            QApplication.clipboard().setText(out.text)
            self.ctx.notify(f"Copied {count_noun(out.count, 'paper')} as {what}", 4000)

        return self.ctx.runner.write(job, done, self.ctx.on_error)
