"""A desktop app's manners: global and per-library settings, opening and switching libraries,
Preferences, About, plain cancels, rebuild asks first, undo puts a paper back in its place,
singular and plural."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from reader.library import Library
from reader.models import ImportSummary
from reader.plural import count_noun
from reader.ui.dialogs.about import AboutDialog
from reader.ui.dialogs.common import import_summary_text
from reader.ui.window import libraries, settings
from reader.ui.window.main_window import MainWindow
from reader.ui.window.preferences import PreferencesDialog


def test_old_per_library_settings_move_to_the_global_file_once(tmp_path: Path) -> None:
    lib = QSettings(str(tmp_path / "lib.ini"), QSettings.Format.IniFormat)
    app = QSettings(str(tmp_path / "app.ini"), QSettings.Format.IniFormat)
    lib.setValue("theme", "dark")
    lib.setValue("geometry", b"xy")
    lib.setValue("header", b"old")
    lib.setValue("sidebar", "starred:")
    assert set(settings.migrate(lib, app)) == {"theme", "geometry", "header"}
    assert app.value("theme") == "dark" and not app.contains("header")
    assert not lib.contains("theme") and lib.value("sidebar") == "starred:"  # views stay per library
    assert settings.migrate(lib, app) == []  # once


def test_window_state_is_global_and_views_per_library(qtbot, library: Library, config_dir: Path) -> None:
    w = MainWindow(library)
    qtbot.addWidget(w)
    w.apply_theme("dark")
    w.close()
    app = QSettings(str(config_dir / "settings.ini"), QSettings.Format.IniFormat)
    own = QSettings(str(library.paths.settings_file), QSettings.Format.IniFormat)
    assert app.value("theme") == "dark" and app.contains("columns")
    assert "windowPerScreen" in app.childGroups() and not app.contains("geometry")  # per screen now
    assert not own.contains("theme") and own.contains("sidebar")
    assert settings.recent_libraries(app)[0] == library.paths.root.resolve()


def test_switching_library_opens_the_other_one_and_remembers_both(qtbot, data_dir: Path,
                                                                  tmp_path: Path) -> None:
    first = Library.open(data_dir)
    window = MainWindow(first, theme="light")  # closed and deleted by the switch
    window.show()
    qtbot.waitUntil(lambda: window.model.rowCount() > 0)
    other = tmp_path / "other"
    first_root = first.paths.root
    new = libraries.switch_library(window, other, MainWindow)
    assert new is not None and new is not window
    qtbot.addWidget(new)
    qtbot.waitUntil(lambda: new.empty_state.isVisible())
    assert new.model.rowCount() == 0  # a new library starts empty (it offers the sample)
    assert new.library.paths.root == other.resolve()
    assert first._closed  # the old window's library is closed
    recent = settings.recent_libraries(new.app_settings)
    assert recent[:2] == [other.resolve(), first_root.resolve()]
    menu = new.findChild(type(new.menuBar().actions()[0].menu()), "recentLibrariesMenu")
    libraries.fill_recent_menu(new, menu, MainWindow)
    assert [a.text().split(" ", 1)[1] for a in menu.actions()] == [str(first_root.resolve())]
    new.close()


def test_a_folder_that_is_no_library_is_refused(qtbot, window: MainWindow, tmp_path: Path) -> None:
    stuff = tmp_path / "stuff"
    stuff.mkdir()
    (stuff / "notes.txt").write_text("mine", encoding="utf-8")
    assert libraries.switch_library(window, stuff, MainWindow) is None
    box = window.findChild(QMessageBox, "openLibraryProblem")
    assert box is not None and "not a Reader library" in box.text()
    assert not (stuff / "library.sqlite3").exists() and window.isVisible()


def test_preferences_apply_theme_and_mark_read(qtbot, window: MainWindow) -> None:
    dialog = PreferencesDialog(window, window)
    qtbot.addWidget(dialog)
    assert dialog.themeCombo.currentData() == "light"
    dialog.themeCombo.setCurrentIndex(dialog.themeCombo.findData("dark"))
    dialog.markReadCheck.setChecked(False)
    assert "7" in dialog.backupsLabel.text() and dialog.vaultLabel.text() == "Not connected"
    assert dialog.askEverySpin.value() == 0 and dialog.askEverySpin.text() == "Never"  # off: it did not pay
    dialog.askEverySpin.setValue(10)
    dialog.apply()
    assert window.theme == "dark" and window.app_settings.value("theme") == "dark"
    assert not window.triage.mark_read
    assert window.triage.ranking.ask_every() == 10  # what best first reads


def test_about_says_version_licence_and_folder(qtbot, window: MainWindow) -> None:
    from reader import __version__

    dialog = AboutDialog(window, window.library.paths.root)
    qtbot.addWidget(dialog)
    text = dialog.textLabel.text()
    assert __version__ in text and "MIT" in text and str(window.library.paths.root) in text
    assert "https://" in text and dialog.textLabel.accessibleName()


def test_rebuild_asks_first_and_cancel_does_nothing(qtbot, window: MainWindow, monkeypatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(window.index_sync, "reindex", lambda: calls.append(1))
    box = window.ask_rebuild_index()
    assert "56 papers" in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert calls == []
    box = window.ask_rebuild_index()
    next(b for b in box.buttons() if b.objectName() == "rebuildButton").click()
    assert calls == [1]


def test_the_menus_open_about_preferences_rebuild_and_another_library(qtbot, data_dir: Path, tmp_path: Path,
                                                                     monkeypatch) -> None:
    # The window's own wiring of the helpers (their arguments, the new window's factory).
    first = Library.open(data_dir)
    window = MainWindow(first, theme="light")  # closed by the switch
    window.show()
    qtbot.waitUntil(lambda: window.model.rowCount() > 0)

    def trigger(name: str) -> None:
        action = window.findChild(QAction, name)
        assert action is not None, name
        action.trigger()

    trigger("aboutAction")
    about = window.findChild(AboutDialog, "aboutDialog")
    assert about is not None and str(first.paths.root) in about.textLabel.text()
    about.reject()
    trigger("preferencesAction")
    prefs = window.findChild(PreferencesDialog, "preferencesDialog")
    assert prefs is not None and prefs.themeCombo.currentData() == "light"
    prefs.reject()
    trigger("rebuildIndexAction")
    box = window.findChild(QMessageBox, "rebuildIndexQuestion")
    assert box is not None and count_noun(window.model.total(), "paper") in box.text()
    box.button(QMessageBox.StandardButton.Cancel).click()
    other = tmp_path / "other"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *_args: str(other))
    trigger("openLibraryAction")
    opened = [w for w in QApplication.topLevelWidgets()
              if isinstance(w, MainWindow) and w.library.paths.root == other.resolve()]
    assert len(opened) == 1 and opened[0].isVisible() and first._closed
    qtbot.addWidget(opened[0])
    opened[0].close()


def test_a_cancelled_import_says_so_and_leaves_nothing(qtbot, window: MainWindow, library: Library,
                                                       tmp_path: Path) -> None:
    src = tmp_path / "many.jsonl"
    src.write_text("".join(json.dumps({"title": f"P {i}", "abstract": f"Abstract {i} long enough to import here."})
                           + "\n" for i in range(300)), encoding="utf-8")
    window.runner.write(lambda: window.runner.drain)  # keep the writer busy a moment
    task = window.transfer.import_paths([src])
    task.cancel()  # before (or while) it runs
    qtbot.waitUntil(lambda: bool(window.last_import_text))
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert window.last_import_text.startswith("Import cancelled")
    assert window.findChild(QMessageBox, "importSummary") is None  # no warning dialog
    assert "cancelled" in window.statusBar().currentMessage().lower()
    assert library.counts().total == 56 and not library.index_needs_sync()
    assert not any(t.label == "Indexing" for t in window.status.tasks)


def test_undo_puts_a_deleted_paper_back_in_its_place(qtbot, window: MainWindow, library: Library) -> None:
    window.table.go_to_row(7)
    pid = window.current_id()
    order = list(window.model.ids())
    window.delete_pressed()
    qtbot.waitUntil(lambda: window.model.row_of(pid) < 0)
    assert window.statusBar().currentMessage().startswith("Deleted 1 paper — ")
    window.undo_stack.undo()
    qtbot.waitUntil(lambda: window.model.row_of(pid) >= 0)
    assert window.model.row_of(pid) == 7 and list(window.model.ids()) == order


def test_singular_and_plural() -> None:
    assert count_noun(1, "paper") == "1 paper" and count_noun(0, "paper") == "0 papers"
    assert count_noun(2356, "file") == "2,356 files" and count_noun(1, "duplicate") == "1 duplicate"
    one = ImportSummary(path="a.bib", new=1, duplicates=1)
    assert import_summary_text([one]).startswith("Imported 1 new paper (1 duplicate) from 1 file.")
    assert "1 duplicate," in one.describe()


def test_import_summary_says_ignored_values_once_under_the_file() -> None:
    """The box's text: the file's line with its count of values ignored, then each cause indented
    once under it (as file_lines gives them), not indented twice nor followed by a third
    "Imported with 2 values ignored" saying the count again (seen in the 1024x640 screenshots)."""
    from reader.import_report import file_lines
    from reader.models import Problem

    notes = [Problem(14, "year 99999 ignored", key="t5", cause="year ignored"),
             Problem(15, "year -5 ignored", key="t6", cause="year ignored")]
    one = ImportSummary(path="items.csl.json", new=15, notes=notes)
    lines = import_summary_text([one]).splitlines()
    first, *rest = file_lines(one)
    assert lines[1:] == [f"• {first}", *rest]
    assert "2 with values ignored" in lines[1] and not any("values ignored" in line for line in lines[2:])
    assert rest and all(line.startswith("  ") and not line.startswith("   ") for line in rest)


def test_status_counts_say_one_paper(qtbot, window: MainWindow) -> None:
    from reader.store.papers import Counts

    window.status.show_counts(Counts(total=1, unread=1, read=0, starred=0, with_notes=0))
    assert window.status.countsLabel.text().startswith("1 paper ·")


def test_plural_endings() -> None:
    assert count_noun(2, "title match") == "2 title matches"
    assert count_noun(3, "library") == "3 libraries" and count_noun(2, "day") == "2 days"
    assert count_noun(1, "new paper") == "1 new paper" and count_noun(5, "new paper") == "5 new papers"


def test_preferences_have_room_at_1024x640(qtbot, window: MainWindow) -> None:
    """At its least size (430 x 186) the rows touched and the backups line wrapped beside its
    button: the form keeps 10 px between rows, the backups line fits on one line, and the whole
    dialog still fits a 1024 x 640 screen."""
    from reader.ui.window.preferences import ROW_GAP

    window.resize(1024, 640)
    dialog = PreferencesDialog(window, window)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    size = dialog.size()
    assert size.width() <= 1024 * 0.8 and size.height() <= 640 * 0.8, size

    def top(w) -> int:
        return w.mapTo(dialog, w.rect().topLeft()).y()

    def bottom(w) -> int:
        return w.mapTo(dialog, w.rect().bottomLeft()).y()

    rows = [dialog.themeCombo, dialog.markReadCheck, dialog.askEverySpin, dialog.vaultLabel.parentWidget(),
            dialog.backupsLabel.parentWidget()]
    for above, below in zip(rows, rows[1:], strict=False):
        assert top(below) - bottom(above) > ROW_GAP - 2, (above.objectName(), below.objectName())
    label = dialog.backupsLabel
    one_line = label.fontMetrics().horizontalAdvance(label.text())
    assert label.width() >= one_line, (label.width(), one_line, dialog.size(), dialog.minimumSizeHint(), label.minimumSizeHint(), label.text())
    dialog.reject()
