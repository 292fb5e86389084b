"""The polish pass: sidebar hints and menus, sorting search results, note math, layout, file arguments."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from reader.services import Library, View
from reader.ui.main_window import MainWindow
from reader.ui.paper_model import COL_ADDED, COL_NOTE, COL_STAR, COL_TITLE, COL_YEAR
from reader.ui.paper_pane import HIT_STYLES


def click_header(qtbot, window: MainWindow, column: int) -> None:
    hh = window.table.horizontalHeader()
    x = hh.sectionViewportPosition(column) + hh.sectionSize(column) // 2
    qtbot.mouseClick(hh.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, hh.height() // 2))


def search(qtbot, window: MainWindow, query: str) -> None:
    window.searchBox.setText(query)
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == query)


def test_sidebar_sections_always_shown_with_hints(qtbot, window: MainWindow, library: Library) -> None:
    sections = window.sidebar._sections
    assert all(not item.isHidden() for item in sections.values())
    assert window.sidebar.hint("Saved searches") == "Ctrl+S saves a search"
    assert window.sidebar.hint("Tags")
    assert window.sidebar.tag_names() == []  # the hint is not a tag
    hint_item = sections["Saved searches"].child(0)
    window.sidebar.setCurrentItem(hint_item)
    assert not hint_item.isSelected()  # hints can't be selected

    search(qtbot, window, "diffusion")
    action = window.findChild(type(window.relevanceAction), "saveSearchAction")
    assert action is not None and action.shortcut().toString() == "Ctrl+S"
    window.save_current_search("Diffusion")
    qtbot.waitUntil(lambda: window.sidebar.hint("Saved searches") is None)
    assert [s["name"] for s in library.saved_searches()] == ["Diffusion"]


def test_sidebar_context_menus(qtbot, window: MainWindow) -> None:
    window.add_tags(window.model.ids()[:2], ["rl"])
    window.save_current_search("nothing")  # no query: refused with a status message
    search(qtbot, window, "attention")
    window.save_current_search("Attention")
    qtbot.waitUntil(lambda: "rl" in window.sidebar.tag_names() and window.sidebar.hint("Saved searches") is None)

    tag_menu = window.sidebar.context_menu_for(window.sidebar.item_for("tag:rl"))
    assert [a.text() for a in tag_menu.actions()][:3] == ["Rename tag…", "Merge into…", "Delete tag"]
    seen: list[str] = []
    window.sidebar.deleteTagRequested.connect(seen.append)
    tag_menu.actions()[2].trigger()
    assert seen == ["rl"]
    qtbot.waitUntil(lambda: window.sidebar.tag_names() == [])

    saved = window.sidebar._sections["Saved searches"].child(0)
    search_menu = window.sidebar.context_menu_for(saved)
    texts = [a.text() for a in search_menu.actions()]
    assert texts[:2] == ["Rename saved search…", "Delete saved search"]
    search_menu.actions()[1].trigger()
    qtbot.waitUntil(lambda: window.sidebar.hint("Saved searches") is not None)


def test_header_click_sorts_search_results_and_relevance_returns(qtbot, window: MainWindow,
                                                                 library: Library) -> None:
    search(qtbot, window, "learning")
    relevance = list(window.model.ids())
    assert len(relevance) > 5
    assert "by relevance" in window.resultLabel.text()
    assert window.table.horizontalHeader().sortIndicatorSection() == -1

    click_header(qtbot, window, COL_YEAR)  # ascending by year, restricted to the hits
    wanted = set(relevance)
    by_year = [i for i in library.paper_ids(View(), "year", False) if i in wanted]
    qtbot.waitUntil(lambda: window.model.ids() == by_year)
    assert window.search_sort == (COL_YEAR, Qt.SortOrder.AscendingOrder)
    assert "by relevance" not in window.resultLabel.text()

    click_header(qtbot, window, COL_TITLE)
    by_title = [i for i in library.paper_ids(View(), "title", False) if i in wanted]
    qtbot.waitUntil(lambda: window.model.ids() == by_title)
    click_header(qtbot, window, COL_TITLE)  # descending
    qtbot.waitUntil(lambda: window.model.ids() == by_title[::-1] or window.search_sort[1] == Qt.SortOrder.DescendingOrder)
    click_header(qtbot, window, COL_TITLE)  # third click: back to relevance
    qtbot.waitUntil(lambda: window.model.ids() == relevance)
    assert window.search_sort is None and window.table.horizontalHeader().sortIndicatorSection() == -1

    click_header(qtbot, window, COL_YEAR)
    qtbot.waitUntil(lambda: window.model.ids() == by_year)
    assert window.relevanceAction.isEnabled()
    window.relevanceAction.trigger()
    qtbot.waitUntil(lambda: window.model.ids() == relevance)

    # Leaving the search brings back the library's own sort, untouched by the search sorts.
    window.searchBox.clear()
    qtbot.waitUntil(lambda: window.search_results is None)
    assert (window.sort_column, window.sort_order) == (COL_ADDED, Qt.SortOrder.DescendingOrder)
    assert window.table.horizontalHeader().sortIndicatorSection() == COL_ADDED
    qtbot.waitUntil(lambda: window.model.ids() == library.paper_ids(View(), "added", True))


def test_note_preview_in_the_pane(qtbot, window: MainWindow) -> None:
    window.pane.noteEditor.setPlainText("bound $O(n \\log n)$")
    window.pane.set_preview(True)
    assert "O(n log n)" in window.pane.notePreview.toPlainText()
    assert "$" not in window.pane.notePreview.toPlainText()


def test_search_hits_styled_for_each_theme(qtbot, window: MainWindow) -> None:
    search(qtbot, window, "diffusion")
    for pid in list(window.model.ids()):
        window.select_paper(pid)
        if "diffusion" in window.pane.abstractView.toPlainText().lower():
            break
    html_light = window.pane.abstractView.toHtml()
    assert "#ffc98a" in html_light.lower()
    window.apply_theme("dark")
    assert "#9a4d12" in window.pane.abstractView.toHtml().lower()
    assert HIT_STYLES[True] != HIT_STYLES[False]


def test_title_column_gets_the_room_at_1280(qtbot, window: MainWindow) -> None:
    window.resize(1280, 800)
    qtbot.wait(50)
    hh = window.table.horizontalHeader()
    title = hh.sectionSize(COL_TITLE)
    others = [hh.sectionSize(c) for c in range(window.model.columnCount()) if c != COL_TITLE]
    assert title >= 250 and title > 2 * max(others)
    assert hh.sectionSize(COL_STAR) <= 30 and hh.sectionSize(COL_NOTE) <= 30
    metrics = window.table.fontMetrics()
    assert hh.sectionSize(COL_ADDED) >= metrics.horizontalAdvance("2026-11-29")  # dates not clipped


def test_tag_chips_replace_not_accumulate(qtbot, window: MainWindow) -> None:
    editor = window.pane.tagEditor
    editor.set_tags(["a", "b"])
    editor.set_tags(["a", "c", "d"])
    visible = [c.text() for c in editor.findChildren(type(editor._chips[0])) if c.isVisible()]
    assert sorted(visible) == ["a  ×", "c  ×", "d  ×"]
    many = [f"tag-number-{i}" for i in range(12)]
    editor.set_tags(many)  # chips wrap: the input stays fully visible inside the editor
    qtbot.waitUntil(lambda: editor.input.geometry().right() <= editor.width())
    assert editor.height() > editor.input.height() * 2


def test_bulk_star_read_tag_on_a_multi_selection(qtbot, window: MainWindow, library: Library) -> None:
    window.table.selectRow(0)
    window.table.selectionModel().select(
        window.model.index(2, 0), window.table.selectionModel().SelectionFlag.Select
        | window.table.selectionModel().SelectionFlag.Rows)
    ids = window.selected_ids()
    assert len(ids) == 2
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_S)
    qtbot.keyClick(window.table, Qt.Key.Key_R)
    window.add_tags(window.target_ids(), ["bulk"])
    qtbot.waitUntil(lambda: all(library.paper(i)["starred"] and library.paper(i)["read"]
                                and "bulk" in library.paper(i)["tags"] for i in ids))
    window.copy_markdown()
    qtbot.waitUntil(lambda: "bulk" in QApplication.clipboard().text())
    text = QApplication.clipboard().text()
    assert all(library.paper(i)["title"] in text for i in ids)


def test_open_window_imports_file_arguments(qtbot, tmp_path: Path) -> None:
    from reader.ui.app import open_window

    src = tmp_path / "incoming.jsonl"
    src.write_text('{"title": "Frog jumping dynamics", "abstract": "We measure how far frogs jump '
                   'from lily pads of different sizes and report surprising results."}\n', encoding="utf-8")
    window = open_window(tmp_path / "lib", [src])
    assert window is not None
    qtbot.addWidget(window)
    try:
        qtbot.waitUntil(lambda: window.last_import_summaries != [], timeout=20000)
        assert window.last_import_summaries[0].new == 1
        box = window.findChild(QMessageBox, "importSummary")
        assert box is not None
        box.close()
        qtbot.waitUntil(lambda: window.model.rowCount() == 57)
        # The index caught up on its own thread: the new paper is searchable.
        qtbot.waitUntil(lambda: window.index_ready and not window.runner.busy, timeout=20000)
        search(qtbot, window, "frogs lily")
        qtbot.waitUntil(lambda: window.model.rowCount() >= 1)
        assert window.library.paper(window.model.id_at(0))["title"] == "Frog jumping dynamics"
    finally:
        window.close()
        window.library.close()
