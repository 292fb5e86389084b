"""The table fits the window: the title takes the free width, columns are remembered, a header
menu shows and hides them; titles render LaTeX; Home/End/PageUp/PageDown move in the list."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from reader.library import Library
from reader.ui.list.model import (
    COL_ADDED,
    COL_AUTHORS,
    COL_TITLE,
    COL_VENUE,
    added_text,
    author_text,
)
from reader.ui.paper.pane import TitleEdit
from reader.ui.window.main_window import MainWindow

from .helpers import import_in_window, search_now, shown


def _title_share(window: MainWindow) -> float:
    table = window.table
    return table.horizontalHeader().sectionSize(COL_TITLE) / table.viewport().width()


def test_title_takes_at_least_40_percent_at_1024x640(qtbot, window: MainWindow) -> None:
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024)
    qtbot.wait(50)
    assert _title_share(window) >= 0.40
    hh = window.table.horizontalHeader()
    shown = [c for c in range(hh.count()) if not hh.isSectionHidden(c)]
    assert sum(hh.sectionSize(c) for c in shown) <= window.table.viewport().width() + 1  # no scrolling
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600)
    qtbot.wait(50)
    assert _title_share(window) >= 0.45
    assert hh.sectionSize(COL_VENUE) <= 120  # capped: the free width goes to the title


def test_a_latex_title_renders_in_the_table_and_the_pane(qtbot, window: MainWindow, library: Library,
                                                          tmp_path: Path) -> None:
    src = tmp_path / "latex.jsonl"
    src.write_text(json.dumps({"title": "Cu$_2$O films and AL$\\ell_0$CORE", "authors": ["Ada Lovelace", "B. C"],
                               "abstract": "An abstract long enough to be imported, about copper oxide."}) + "\n",
                   encoding="utf-8")

    import_in_window(qtbot, window, src)
    pid = next(i for i in library.paper_ids() if "Cu$_2$O" in library.paper(i).title)
    window.select_paper(pid)
    qtbot.waitUntil(lambda: window.pane.paper_id == pid)
    row = window.model.row_of(pid)
    assert window.model.index(row, COL_TITLE).data() == "Cu₂O films and ALℓ₀CORE"
    assert window.model.index(row, COL_AUTHORS).data() == "Lovelace et al."
    edit = window.pane.titleEdit
    assert edit.toPlainText() == "Cu₂O films and ALℓ₀CORE"
    assert edit.text() == "Cu$_2$O films and AL$\\ell_0$CORE"  # what an edit would store


def test_title_edit_edits_the_stored_text(qtbot) -> None:
    edit = TitleEdit()
    qtbot.addWidget(edit)
    edit.setText("H$_2$O")
    assert edit.toPlainText() == "H₂O" and edit.text() == "H$_2$O"
    edit.show()
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    assert edit.toPlainText() == "H$_2$O"
    edit.setPlainText("D$_2$O")
    finished: list[str] = []
    edit.editingFinished.connect(lambda: finished.append(edit.text()))
    edit.clearFocus()
    assert finished == ["D$_2$O"] and edit.toPlainText() == "D₂O"


def test_a_long_title_in_a_narrow_pane_is_not_cut(qtbot) -> None:
    """Seen in the map screenshots (a pane 232 px wide): a five-line title showed four lines and
    half of the fifth; the field grows to every line of it."""
    edit = TitleEdit()
    qtbot.addWidget(edit)
    edit.resize(190, 40)
    edit.show()
    edit.setText("Improving Predictive Specificity of Description Logic Learners by Fortification")
    qtbot.waitUntil(lambda: edit._visual_lines() >= 5)
    lines = edit._visual_lines()
    assert lines >= 5
    assert edit.height() >= lines * edit.fontMetrics().lineSpacing()
    edit.setText("Short")
    qtbot.waitUntil(lambda: edit.height() < 2 * edit.fontMetrics().lineSpacing() + 12)


def test_added_and_authors_read_like_a_person_says_them() -> None:
    today = date(2026, 12, 1)
    assert added_text("2026-12-01T10:26:04", today) == "Today 10:26"
    assert added_text("2026-11-30T09:02:00", today) == "Yesterday 09:02"
    assert added_text("2026-03-04T14:10:00", today) == "4 Mar 14:10"
    assert added_text("2024-01-02T00:00:00", today) == "2024-01-02"
    assert author_text("Vaswani, Ashish", 8) == "Vaswani et al."
    assert author_text("Ada Lovelace", 1) == "Lovelace"
    assert author_text("", 0) == ""


def test_column_state_is_remembered(qtbot, library: Library, config_dir: Path) -> None:
    first = MainWindow(library, theme="light")
    qtbot.addWidget(first)
    first.show()
    cols = first.table.columns
    cols.set_hidden(COL_VENUE, True)
    first.table.horizontalHeader().resizeSection(COL_ADDED, 150)  # as a drag does
    first.table.horizontalHeader().moveSection(first.table.horizontalHeader().visualIndex(COL_ADDED), 0)
    order = cols.order()
    first.close()
    assert (config_dir / "settings.ini").is_file()
    again = MainWindow(library, theme="light")
    qtbot.addWidget(again)
    again.show()
    hh = again.table.horizontalHeader()
    assert hh.isSectionHidden(COL_VENUE)
    assert hh.sectionSize(COL_ADDED) == 150 and again.table.columns.order() == order
    again.table.columns.reset()
    assert not hh.isSectionHidden(COL_VENUE) and hh.visualIndex(COL_ADDED) != 0
    again.close()


def test_header_menu_hides_and_shows_columns(qtbot, window: MainWindow) -> None:
    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600)
    header = window.table.horizontalHeader()
    assert header.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu
    menu = window.table.columns.menu()
    assert isinstance(menu, QMenu) and menu.objectName() == "columnMenu"
    actions = {a.text(): a for a in menu.actions() if a.text()}
    assert not actions["Title"].isEnabled()  # the title always stays
    assert actions["Venue"].isChecked()
    actions["Venue"].trigger()
    assert header.isSectionHidden(COL_VENUE) and COL_VENUE in window.table.columns.hidden()
    reset = next(a for a in window.table.columns.menu().actions() if a.objectName() == "resetColumnsAction")
    reset.trigger()
    assert not header.isSectionHidden(COL_VENUE)


def test_home_end_page_keys_move_in_the_list(qtbot, window: MainWindow) -> None:
    table = window.table
    window.focus_table()
    table.go_to_row(10)
    qtbot.keyClick(table, Qt.Key.Key_End)
    assert table.currentIndex().row() == 55 and shown(qtbot, window) == window.model.id_at(55)
    qtbot.keyClick(table, Qt.Key.Key_Home)
    assert table.currentIndex().row() == 0
    qtbot.keyClick(table, Qt.Key.Key_PageDown)
    down = table.currentIndex().row()
    assert down > 5
    qtbot.keyClick(table, Qt.Key.Key_PageUp)
    assert table.currentIndex().row() < down
    assert [i.row() for i in table.selectionModel().selectedRows()] == [table.currentIndex().row()]


def test_end_then_a_search_still_starts_at_the_top(qtbot, window: MainWindow) -> None:
    window.focus_table()
    qtbot.keyClick(window.table, Qt.Key.Key_End)
    search_now(qtbot, window, "learning")
    assert window.table.currentIndex().row() == 0


def test_an_empty_tags_column_is_left_out_until_a_paper_has_tags(qtbot, window: MainWindow) -> None:
    from reader.ui.list.model import COL_TAGS

    window.resize(1600, 1000)
    qtbot.waitUntil(lambda: window.width() == 1600)
    hh = window.table.horizontalHeader()
    assert not any(window.model.index(r, COL_TAGS).data() for r in range(window.model.rowCount()))
    assert hh.isSectionHidden(COL_TAGS)  # the seeds have no tags: no empty column
    window.library.add_tags([window.model.ids()[0]], ["to-read"])
    qtbot.waitUntil(lambda: not hh.isSectionHidden(COL_TAGS))
    assert COL_TAGS not in window.table.columns.hidden()  # left out, never hidden by the user


def test_a_method_is_never_cut_to_a_stub(qtbot, window: MainWindow) -> None:
    from reader.ui.list.model import COL_METHOD

    hh = window.table.horizontalHeader()
    for width in (1024, 1100, 1280, 1600):
        window.resize(width, 700)
        qtbot.waitUntil(lambda w=width: window.width() == w)
        qtbot.wait(20)
        # Left out, or wide enough for about seven letters ("MoC…" at 48 px said nothing).
        assert hh.isSectionHidden(COL_METHOD) or hh.sectionSize(COL_METHOD) >= 72


def test_the_group_column_keeps_its_initials_at_1024_the_title_gives_way_first(qtbot, window: MainWindow) -> None:
    """At 1024 x 640, beside the group's sidebar and the pane, the table is about 390 px wide and
    the "Group ★" column (who starred) was the first column left out; the title now gives way
    (down to 30 %) before it, and it keeps room for two members' initials."""
    from reader.ui.list.columns import MIN_WIDTH, TITLE_FLOOR
    from reader.ui.list.model import COL_GROUP, COL_YEAR

    fitter = window.table.columns
    hh = window.table.horizontalHeader()
    assert COL_GROUP not in fitter.widths_for(390)  # no group: nothing changes for it
    fitter._known.add(COL_GROUP)  # a member starred a listed paper
    for available in (390, 420, 480):
        widths = fitter.widths_for(available)
        assert COL_GROUP in widths, available
        assert widths[COL_GROUP] >= MIN_WIDTH[COL_GROUP] >= hh.fontMetrics().horizontalAdvance("AL BO") + 12
        assert available - sum(widths.values()) >= TITLE_FLOOR * available - 1, available  # the title's
    wide = fitter.widths_for(1000)
    assert COL_GROUP in wide and COL_YEAR in wide  # with room, nothing is left out for it
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.width() == 1024)
    fitter.fit()
    assert not hh.isSectionHidden(COL_GROUP)
    shown = [c for c in range(hh.count()) if not hh.isSectionHidden(c)]
    assert sum(hh.sectionSize(c) for c in shown) <= window.table.viewport().width() + 1  # no scrolling
