"""Import and export flows: file dialogs, drag and drop, background import, exports and Copy as Markdown."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from reader.importers import file_dialog_filter
from reader.models import ExportKind
from reader.plural import count_noun
from reader.services import View

from .dialogs import ExportDialog, ExportOptions, import_summary_text
from .operations import ids_getter, scope
from .tasks import Task

if TYPE_CHECKING:
    from .main_window import MainWindow



def ask_import(window: MainWindow) -> None:
    start = str(window.settings.value("lastImportFolder", str(Path.home())))
    paths, _ = QFileDialog.getOpenFileNames(window, "Import papers", start, file_dialog_filter())
    if paths:
        window.settings.setValue("lastImportFolder", str(Path(paths[0]).parent))
        import_paths(window, paths)


def import_paths(window: MainWindow, paths: Sequence[str | Path]) -> Task:
    """The import code path of the dialog and of drag-and-drop: background, with progress."""
    window.pane.flush_note()  # a typed note is saved before anything can fail
    lib = window.library
    files = [str(p) for p in paths]

    def job(task: Task) -> list:
        # The store only: the index catches up afterwards on its own thread (see import_done).
        return lib.import_files(files, progress=task.progress, cancelled=task.cancelled, index=False)

    made: list[Task] = []  # the task, for its done callback (which runs later, on the GUI thread)
    task = window.runner.write(job, lambda summaries: import_done(window, summaries, made[0].cancelled()),
                               lambda exc: import_failed(window, exc), label="Importing", with_task=True)
    made.append(task)
    return window.status.track(task)


def import_cancelled(window: MainWindow, summaries: list) -> None:
    """Cancel: said plainly in the status bar (no warning dialog). The cancelled file wrote
    nothing; files finished before it were committed and are indexed like any import."""
    kept = sum(s.new for s in summaries if not s.error)
    text = "Import cancelled"
    if kept:
        text += f" — {count_noun(kept, 'new paper')} from the files before it kept"
    window.last_import_summaries = summaries
    window.last_import_text = text
    window.statusBar().showMessage(text, 10000)
    if kept:
        window.after_write()
        window.index_sync.sync_in_background()


def import_done(window: MainWindow, summaries: list, cancelled: bool = False) -> None:
    if cancelled:
        import_cancelled(window, summaries)
        return
    window.last_import_summaries = summaries
    window.last_import_text = import_summary_text(summaries)
    new = sum(s.new for s in summaries)
    window.statusBar().showMessage(f"Imported {count_noun(new, 'new paper')}", 8000)
    window.after_write()
    window.index_sync.sync_in_background()
    errors = any(s.error or s.skipped for s in summaries)
    window.show_message("Import finished", window.last_import_text,
                        QMessageBox.Icon.Warning if errors else QMessageBox.Icon.Information, "importSummary")


def import_failed(window: MainWindow, exc: BaseException) -> None:
    window.last_import_text = f"Import failed: {exc}"
    window.after_write()
    window.index_sync.sync_in_background()  # files before the failing one were stored
    window.handle_error(exc)


def accepts_drag(event: QDragEnterEvent) -> None:
    if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
        event.acceptProposedAction()


def drop(window: MainWindow, event: QDropEvent) -> None:
    """Dropped local files are imported like the dialog's."""
    paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
    if paths:
        event.acceptProposedAction()
        import_paths(window, paths)


def ask_export(window: MainWindow) -> None:
    selected = len(window.selected_ids())
    options = window.export_options or ExportOptions(scope="selection" if selected > 1 else "view")
    dialog = ExportDialog(window, window.sidebar.tag_names(), selected, options)
    if dialog.exec() != ExportDialog.DialogCode.Accepted:
        return
    options = dialog.options()
    window.export_options = options
    folder = str(window.settings.value("lastExportFolder", str(Path.home())))
    if options.kind == ExportKind.PER_PAPER:
        path = QFileDialog.getExistingDirectory(window, "Export to folder", folder)
    else:
        suffix = ".json" if options.kind == ExportKind.JSON else ".md"
        name = "reader-backup.json" if options.kind == ExportKind.JSON else "reading-list.md"
        path, _ = QFileDialog.getSaveFileName(window, "Export", str(Path(folder) / name), f"*{suffix}")
    if path:
        export_to(window, path, options)


def scope_ids(window: MainWindow, options: ExportOptions) -> Callable[[], list[str]]:
    """The ids an export covers, resolved on the writer (after pending saves)."""
    lib = window.library
    if options.scope == "selection":
        return ids_getter(scope.bulk_ids(window))
    if options.scope == "view":
        if scope.list_truncated(window):
            return scope.all_matching_ids(window)  # the whole search, not just the shown best matches
        ids = list(window.model.ids())
        return lambda: ids
    if options.scope == "starred":
        return lambda: lib.paper_ids(View("starred"))
    tag = options.tag or ""
    return lambda: lib.paper_ids(View("tag", tag))


def export_to(window: MainWindow, path: str | Path, options: ExportOptions | None = None) -> Task:
    """The export code path of the dialog: runs on the writer after the note is saved."""
    options = options or ExportOptions()
    window.pane.flush_note()
    window.settings.setValue("lastExportFolder",
                             str(Path(path) if options.kind == ExportKind.PER_PAPER else Path(path).parent))
    lib, chosen = window.library, options
    ids = scope_ids(window, options)

    def job() -> Any:
        if chosen.kind == ExportKind.JSON:
            return lib.export_json(path)
        if chosen.kind == ExportKind.PER_PAPER:
            return lib.export_per_paper(path, ids(), with_abstracts=chosen.with_abstracts)
        return lib.export_reading_list(path, ids(), title=chosen.title, group_by=chosen.group_by,
                                       with_abstracts=chosen.with_abstracts)

    def done(result: Any) -> None:
        window.last_export = result
        count = len(result) if isinstance(result, list) else 1
        window.statusBar().showMessage(f"Exported {count_noun(count, 'file')} to {path}", 8000)

    return window.runner.write(job, done, window.handle_error, label="Exporting")


def copy_markdown(window: MainWindow) -> Task | None:
    """Edit → Copy as Markdown: the papers a bulk action covers, as a reading list on the clipboard."""
    ids = scope.bulk_ids(window)
    if not ids:
        return None
    window.pane.flush_note()
    lib, get = window.library, ids_getter(ids)

    def done(out: tuple[int, str]) -> None:
        count, text = out
        QApplication.clipboard().setText(text)
        window.statusBar().showMessage(f"Copied {count_noun(count, 'paper')} as Markdown", 4000)

    def job() -> tuple[int, str]:
        return len(get()), lib.reading_list_markdown(get(), title="Reading list")

    return window.runner.write(job, done, window.handle_error)
