"""Every view is exact and immediate: zero hits show zero rows and an empty state, a new query
starts at its first hit, a new sort keeps the selected paper."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reader.library import View
from reader.listing import Listing
from reader.ui.list.model import KEPT, NEW, RELISTED, SORTED, PaperModel, listing_change
from reader.ui.window.main_window import MainWindow

from .helpers import search_now


def _row_visible(window: MainWindow, row: int) -> bool:
    table = window.table
    rect = table.visualRect(window.model.index(row, 1))
    return rect.isValid() and table.viewport().rect().intersects(rect)


def test_zero_hits_show_zero_rows_and_an_empty_state(qtbot, window: MainWindow) -> None:
    window.table.go_to_row(3)
    assert window.pane.paper_id is not None
    search_now(qtbot, window, "qwertyuiop")
    assert window.model.rowCount() == 0
    assert window.table.selectionModel().selectedRows() == []
    assert window.pane.paper_id is None
    state = window.empty_state
    assert state.isVisible() and state.parent() is window.table.viewport()
    assert "qwertyuiop" in state.messageLabel.text()
    assert state.messageLabel.accessibleName() == state.messageLabel.text()
    assert state.backButton.isVisible() and state.backButton.text() == "Clear the search"
    state.backButton.click()
    qtbot.waitUntil(lambda: window.model.rowCount() == 56)
    assert not state.isVisible()
    assert window.searchBar.query() == ""


def test_empty_state_offers_the_correction_with_its_count(qtbot, window: MainWindow, monkeypatch) -> None:
    from reader.search.results import SearchResults

    lib = window.library
    real_search = lib.search  # "atention" finds nothing (a typo-tolerant engine would find it)
    monkeypatch.setattr(lib, "search", lambda q, **kw: SearchResults(query=q) if q == "atention"
                        else real_search(q, **kw))
    window.searchBox.setText("atention")
    window.searchBox.setModified(False)  # a finished query
    window.refresh_list()
    qtbot.waitUntil(lambda: window.empty_state.suggestionButton.isVisible())
    button = window.empty_state.suggestionButton
    assert "attention" in button.text() and "9 papers" in button.text()
    button.click()
    qtbot.waitUntil(lambda: window.model.rowCount() == 9)
    assert window.searchBar.query() == "attention"
    assert not window.empty_state.isVisible()


def test_an_empty_view_says_so_and_offers_the_library(qtbot, window: MainWindow) -> None:
    gen = window.list_generation
    window.set_view(View("starred"))
    qtbot.waitUntil(lambda: window.list_generation > gen)
    assert window.model.rowCount() == 0
    assert "Starred" in window.empty_state.messageLabel.text()
    window.empty_state.backButton.click()
    qtbot.waitUntil(lambda: window.model.rowCount() == 56)


def test_after_end_a_new_search_starts_at_its_first_hit(qtbot, window: MainWindow) -> None:
    window.focus_table()
    qtbot.keyClick(window.table, Qt.Key.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert window.table.currentIndex().row() == 55
    search_now(qtbot, window, "model")
    assert window.model.rowCount() > 1
    assert window.table.currentIndex().row() == 0
    assert [i.row() for i in window.table.selectionModel().selectedRows()] == [0]
    assert _row_visible(window, 0)
    assert window.table.verticalScrollBar().value() == 0
    assert window.pane.paper_id == window.model.id_at(0)


def test_a_new_view_starts_at_the_top(qtbot, window: MainWindow) -> None:
    window.table.go_to_row(55)
    gen = window.list_generation
    window.set_view(View("unread"))
    qtbot.waitUntil(lambda: window.list_generation > gen)
    assert window.table.currentIndex().row() == 0 and _row_visible(window, 0)


def test_a_new_sort_keeps_the_selected_paper_in_view(qtbot, window: MainWindow) -> None:
    window.table.go_to_row(40)
    pid = window.current_id()
    gen = window.list_generation
    window.model.sort(1, Qt.SortOrder.AscendingOrder)  # by title
    qtbot.waitUntil(lambda: window.list_generation > gen)
    assert window.current_id() == pid
    row = window.model.row_of(pid)
    assert row != 40 and _row_visible(window, row)
    assert window.pane.paper_id == pid


def test_an_empty_listing_replaces_the_rows_even_with_more_to_fetch(qapp) -> None:
    """The stale-rows bug: an empty first page is a prefix of any list, so a search with no
    hits (a paged listing: `more` set) kept the previous rows on screen."""

    class Lib:
        def rows(self, ids):
            return {}

    model = PaperModel(Lib())
    assert model.set_listing(Listing("", None, ["a", "b", "c"]), ("", View())) == NEW
    empty = Listing("qwertyuiop", None, [], 0, lambda start, n: [])
    assert model.set_listing(empty, ("qwertyuiop", View())) == NEW
    assert model.rowCount() == 0
    # The same key again with no ids (every match deleted) also empties the table.
    model.set_listing(Listing("q", None, ["a"], 5, lambda s, n: []), ("q", View()))
    assert model.set_listing(Listing("q", None, [], 0, lambda s, n: []), ("q", View())) == RELISTED
    assert model.rowCount() == 0


def test_listing_change_kinds() -> None:
    assert listing_change(None, ("q", View())) == NEW
    assert listing_change(("q", View(), "added"), ("q", View(), "added")) == RELISTED
    assert listing_change(("q", View(), "added"), ("q", View(), "title")) == SORTED
    assert listing_change(("q", View(), "added"), ("r", View(), "added")) == NEW
    assert listing_change(("q", View(), "a"), ("q", View("starred"), "a")) == NEW
    assert KEPT not in (NEW, RELISTED, SORTED)


def test_while_the_index_is_built_titles_are_matched_in_sql(qtbot, window: MainWindow, monkeypatch) -> None:
    from reader.search.results import SearchResults

    lib = window.library
    monkeypatch.setattr(window.index_sync, "ready", False)  # as at the first start of a big library
    real_search = lib.search
    monkeypatch.setattr(lib, "search", lambda q, **kw: SearchResults(query=q) if q == "portable reward"
                        else real_search(q, **kw))
    search_now(qtbot, window, "portable reward")
    assert window.model.rowCount() == 1
    assert "portable reward" in window.model.index(0, 1).data().lower()
    assert window.searchBar.resultLabel.text() == "1 title match · index still being built"
    assert window.table.currentIndex().row() == 0 and not window.empty_state.isVisible()
    search_now(qtbot, window, "zzzz nothing")
    assert window.model.rowCount() == 0
    assert "still being built" in window.empty_state.messageLabel.text()


def test_listings_arriving_together_cost_one_reset_and_the_newest_wins(qtbot, window: MainWindow) -> None:
    """Three listings delivered in one pass of the event loop (a burst of keys on a busy
    machine): the table is reset once, with the newest; a listing for an older key is dropped."""
    ids = window.model.ids()[:9]
    key = window.searchBar.listed_key
    gen, dropped = window.list_generation, window.listings_dropped
    window._list_ready(Listing("", None, ids[:3]), ("stale",) + tuple(key or ())[1:])  # an older key
    for n in (3, 5, 7):
        window._list_ready(Listing("", None, ids[:n]), key)
    assert window.list_generation == gen  # nothing applied yet: at the end of this pass
    qtbot.waitUntil(lambda: window.list_generation > gen)
    qtbot.wait(20)
    assert window.list_generation == gen + 1
    assert window.model.ids() == ids[:7]
    assert window.listings_dropped == dropped + 2


def test_a_listing_made_stale_by_a_newer_key_is_not_prepared(qtbot, window: MainWindow, monkeypatch) -> None:
    """A key typed while the worker searches: the older search's result is neither prepared
    (rows read, ids mapped) nor shown."""
    import threading

    from reader.ui.window import listing_work

    started, release = threading.Event(), threading.Event()
    real_job, real_prepare = window.searchBar.list_job, listing_work.prepare_listing
    prepared: list[str] = []

    def list_job(*args, **kwargs):
        job = real_job(*args, **kwargs)
        if started.is_set():
            return job

        def slow():
            started.set()
            assert release.wait(10)
            return job()

        return slow

    def prepare(lib, found, wanted=(), *cache):
        prepared.append(found.query)
        return real_prepare(lib, found, wanted, *cache)

    monkeypatch.setattr(window.searchBar, "list_job", list_job)
    monkeypatch.setattr(listing_work, "prepare_listing", prepare)
    window.searchBox.setText("learning")
    window.refresh_list()
    assert started.wait(10)
    window.searchBox.setText("attention")
    window.refresh_list()
    release.set()
    qtbot.waitUntil(lambda: window.search_results is not None and window.search_results.query == "attention")
    qtbot.wait(50)
    assert prepared == ["attention"]
