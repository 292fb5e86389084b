"""Import and export flows: the dialog code paths, drag and drop, per-paper and JSON exports."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QMessageBox

from reader.library import Library
from reader.ui.dialogs.common import ExportOptions
from reader.ui.window.main_window import MainWindow

from .helpers import import_in_window, paper


def test_import_through_dialog_code_path(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    src = tmp_path / "papers.jsonl"
    good = [
        '{"title": "Tiny test paper one", "abstract": "We study a tiny problem about tadpoles and ponds in great detail here."}',
        '{"title": "Tiny test paper two", "abstract": "A second abstract on frogs, lily pads and the physics of jumping far."}',
    ]
    src.write_text(good[0] + "\n{not json\n" + good[1] + "\n", encoding="utf-8")
    window.table.selectRow(3)
    selected = window.current_id()
    window.transfer.import_paths([src])
    assert window.status.progressBar.isVisible() and window.status.taskLabel.isVisible()
    qtbot.waitUntil(lambda: window.last_import_summaries != [])
    summary = window.last_import_summaries[0]
    assert (summary.new, summary.duplicates, len(summary.skipped)) == (2, 0, 1)
    assert "2 new" in window.last_import_text and "line 2" in window.last_import_text
    box = window.findChild(QMessageBox, "importSummary")
    assert box is not None and box.isVisible()
    box.close()
    qtbot.waitUntil(lambda: window.model.rowCount() == 58)
    # The list goes to the first new paper it shows (it stayed on the paper selected before,
    # which an import of 3,683 papers put at the end of 3,739 rows).
    qtbot.waitUntil(lambda: window.current_id() in summary.new_ids)
    assert window.current_id() != selected and window.selected_ids() == [window.current_id()]
    qtbot.waitUntil(lambda: not window.status.progressBar.isVisible())
    # The counts come from the sidebar's worker, after the import's last change (not with it).
    qtbot.waitUntil(lambda: window.status.countsLabel.text().startswith("58 papers"))


def test_import_dialog_lists_ignored_values(qtbot, window: MainWindow, tmp_path: Path) -> None:
    """The summary dialog names each value an imported record had ignored (impossible
    years), not just their count."""
    src = tmp_path / "years.jsonl"
    src.write_text(
        '{"title": "A paper from the far past", "abstract": "An abstract about ponds and frogs jumping.", "year": -5}\n'
        '{"title": "A paper from later", "abstract": "An abstract about lily pads and long jumps.", "year": 99999}\n',
        encoding="utf-8")
    import_in_window(qtbot, window, src)
    assert len(window.last_import_summaries[0].notes) == 2
    box = window.findChild(QMessageBox, "importSummary")
    assert box is not None and box.isVisible()
    text = box.text() + box.informativeText() + box.detailedText()
    assert "year -5 ignored" in text and "year 99999 ignored" in text
    assert "2 with values ignored" in text  # the count, once, on the file's line
    box.close()


def test_failed_import_keeps_typed_note(qtbot, window: MainWindow, library: Library, tmp_path: Path) -> None:
    pid = window.pane.paper_id
    window.focus_note()
    qtbot.keyClicks(window.pane.noteEditor, "keep me")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{nope\n", encoding="utf-8")
    import_in_window(qtbot, window, bad)
    assert window.last_import_summaries[0].error
    assert paper(library, pid).note == "keep me"
    window.findChild(QMessageBox, "importSummary").close()


def test_drop_files_imports_them(qtbot, window: MainWindow, tmp_path: Path) -> None:
    src = tmp_path / "dropped.jsonl"
    src.write_text('{"title": "Dropped paper", "abstract": "An abstract about dropping files onto windows for tests."}\n',
                   encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(src))])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.last_import_summaries != [])
    assert window.last_import_summaries[0].new == 1
    qtbot.waitUntil(lambda: window.model.rowCount() == 57)


def test_export_per_paper_and_json(qtbot, window: MainWindow, tmp_path: Path) -> None:
    window.table.selectRow(0)
    window.transfer.export_to(tmp_path / "papers", ExportOptions(kind="per_paper", scope="selection"))
    qtbot.waitUntil(lambda: window.last_export is not None)
    assert len(list((tmp_path / "papers").glob("*.md"))) == 1
    window.transfer.last_export = None
    window.transfer.export_to(tmp_path / "backup.json", ExportOptions(kind="json"))
    qtbot.waitUntil(lambda: window.last_export is not None)
    assert '"reader-backup"' in (tmp_path / "backup.json").read_text(encoding="utf-8")
    assert Path(str(window.settings.value("lastExportFolder"))) == tmp_path
