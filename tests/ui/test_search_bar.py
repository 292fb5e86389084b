"""The search bar: focus, query problems, did-you-mean, sorting results, uncapped filter searches."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox

from reader import listing
from reader.library import Library, View
from reader.ui.list import search_bar
from reader.ui.list.model import COL_ADDED, COL_TITLE, COL_YEAR
from reader.ui.window.main_window import MainWindow

from .helpers import key, search, search_now


def click_header(qtbot, window: MainWindow, column: int) -> None:
    hh = window.table.horizontalHeader()
    x = hh.sectionViewportPosition(column) + hh.sectionSize(column) // 2
    qtbot.mouseClick(hh.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, hh.height() // 2))


def test_slash_focuses_search_and_problem_shown_inline(qtbot, window: MainWindow) -> None:
    window.focus_table()
    key(qtbot, window.table, Qt.Key.Key_Slash)
    assert window.searchBox.hasFocus()
    qtbot.keyClicks(window.searchBox, "title:(")
    qtbot.waitUntil(lambda: window.search_results is not None and window.searchBar.problemLabel.isVisible())
    assert window.searchBar.problemLabel.text()
    assert window.findChild(QMessageBox) is None


def test_did_you_mean(qtbot, window: MainWindow) -> None:
    window.searchBox.setText("difusion")
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == "difusion")
    if not window.search_results.suggestion:
        pytest.skip("the index offered no suggestion for this misspelling")
    assert window.searchBar.suggestionLabel.isVisible()
    window.searchBar.accept_suggestion()
    qtbot.waitUntil(lambda: window.model.rowCount() > 0 and window.searchBox.text() != "difusion")


def test_header_click_sorts_search_results_and_relevance_returns(qtbot, window: MainWindow,
                                                                 library: Library) -> None:
    search(qtbot, window, "learning")
    relevance = list(window.model.ids())
    assert len(relevance) > 5
    assert "by relevance" in window.searchBar.resultLabel.text()
    assert window.table.horizontalHeader().sortIndicatorSection() == -1

    click_header(qtbot, window, COL_YEAR)  # ascending by year, restricted to the hits
    wanted = set(relevance)
    by_year = [i for i in library.paper_ids(View(), "year", False) if i in wanted]
    qtbot.waitUntil(lambda: window.model.ids() == by_year)
    assert window.searchBar.search_sort == (COL_YEAR, Qt.SortOrder.AscendingOrder)
    assert "by relevance" not in window.searchBar.resultLabel.text()

    click_header(qtbot, window, COL_TITLE)
    by_title = [i for i in library.paper_ids(View(), "title", False) if i in wanted]
    qtbot.waitUntil(lambda: window.model.ids() == by_title)
    click_header(qtbot, window, COL_TITLE)  # descending
    qtbot.waitUntil(lambda: window.model.ids() == by_title[::-1] or window.searchBar.search_sort[1] == Qt.SortOrder.DescendingOrder)
    click_header(qtbot, window, COL_TITLE)  # third click: back to relevance
    qtbot.waitUntil(lambda: window.model.ids() == relevance)
    assert window.searchBar.search_sort is None and window.table.horizontalHeader().sortIndicatorSection() == -1

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


def test_filter_only_search_lists_every_match(qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing, "SEARCH_LIMIT", 10)
    search_now(qtbot, window, "year:2025")
    assert window.model.rowCount() == 56
    assert window.searchBar.resultLabel.text() == "56 results"
    search_now(qtbot, window, "tag:none-yet OR venue:icml")
    assert window.model.rowCount() == 56
    monkeypatch.setattr(search_bar, "FIRST_PAGE", 10)
    search_now(qtbot, window, "model")  # words, by relevance: 10 at once, the rest as the table asks
    total = window.search_results.total
    assert total > 10 and window.searchBar.resultLabel.text() == f"{total} results · by relevance"
    qtbot.waitUntil(lambda: window.model.rowCount() == total)  # an unfilled view fetches more itself
    assert window.model.ids() == window.library.search("model", limit=None).ids


def _type_and_wait(qtbot, window: MainWindow, char: str) -> None:
    before = window.list_generation
    qtbot.keyClicks(window.searchBox, char)
    text = window.searchBox.text().strip()
    qtbot.waitUntil(lambda: window.list_generation > before and window.search_results is not None
                    and window.search_results.query == text)


def test_typing_searches_the_unfinished_word_as_a_prefix(qtbot, window: MainWindow, library: Library) -> None:
    import re

    words = set()
    for paper in library.papers(library.paper_ids()):
        words.update(re.findall(r"[a-z0-9]+", f"{paper.title} {paper.abstract}".lower()))
    window.searchBox.setFocus()
    shown = []
    for char in "sparse atten":
        _type_and_wait(qtbot, window, char)
        text = window.searchBox.text()
        last = text.split()[-1].lower()
        assert window.searchBar.listed_as_you_type
        assert not window.searchBar.suggestionLabel.isVisible()  # never while typing
        if text.endswith(" ") or any(w.startswith(last) for w in words):
            shown.append((text, window.model.rowCount()))
            assert window.model.rowCount() > 0, f"{text!r} showed no hits"
    assert len(shown) == len("sparse atten")
    # The prefix "atten" finds attention: SpargeAttn (the seeds' sparse attention paper) comes first.
    first = library.paper(window.model.ids()[0])
    assert "attention" in first.abstract.lower() and "sparse" in first.abstract.lower()


def test_did_you_mean_only_for_a_finished_query(qtbot, window: MainWindow) -> None:
    window.searchBox.setFocus()
    for char in "difusion":
        _type_and_wait(qtbot, window, char)
        assert window.search_results.suggestion is None and not window.searchBar.suggestionLabel.isVisible()
    before = window.list_generation
    qtbot.keyClick(window.searchBox, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.list_generation > before)
    assert not window.searchBar.listed_as_you_type
    if window.search_results.hits:
        pytest.skip("the finished query has hits")
    if not window.search_results.suggestion:
        pytest.skip("the index offered no suggestion for this misspelling")
    assert window.searchBar.suggestionLabel.isVisible()


def test_a_new_count_does_not_relayout_the_window(qtbot, window: MainWindow) -> None:
    """The count changes at every keystroke: a label sized to its text asked every layout up to
    the window's again. Its size is fixed (a sample count's width)."""
    label = window.searchBar.resultLabel
    search_now(qtbot, window, "learning")
    size = label.size()
    assert label.minimumSize() == label.maximumSize() == size
    for query in ("q", "attention", "learning to rank"):
        search_now(qtbot, window, query)
        assert label.size() == size and label.text()
