"""The window's fetching (reader/ui/sources) with pytest-qt against the replay server: Edit →
Add by identifier… (results per line, progress, Cancel, never on the GUI thread), the arXiv
feeds updated when the window opens (the last update older than a day) and on demand, and the
sidebar's New view."""

from __future__ import annotations

import threading

import pytest

from reader.library import Library
from reader.models import ViewKind
from reader.store.views import View

from .fixtures import CROSSREF_BODY, CROSSREF_DOI
from .replay import ARXIV_API, Fault, ReplayServer, load_arxiv_recordings
from .test_feed import PAGE100, _cat_path, _newest_first

pytestmark = pytest.mark.skipif(not ARXIV_API.is_dir(), reason="corpora not present")
AEW10 = "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"


@pytest.fixture(autouse=True)
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("READER_CONFIG_DIR", str(tmp_path / "config"))
    for name, value in (("READER_SOURCE_RETRIES", "2"), ("READER_SOURCE_BACKOFF", "0.05"),
                        ("READER_SOURCE_PACE_SCALE", "0")):
        monkeypatch.setenv(name, value)


@pytest.fixture()
def server(monkeypatch):
    with ReplayServer() as srv:
        load_arxiv_recordings(srv)
        srv.add(f"/works/{CROSSREF_DOI}", CROSSREF_BODY)
        srv.add(_cat_path("cs.LG", 0), _newest_first(PAGE100.read_bytes()))
        for name in ("ARXIV", "CROSSREF", "OPENREVIEW"):
            monkeypatch.setenv(f"READER_SOURCE_{name}_URL", srv.url)
        yield srv


def _window(qtbot, library):
    from reader.ui.window.main_window import MainWindow

    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.index_ready and not w.runner.busy)
    return w


@pytest.fixture()
def window(qtbot, tmp_path, server):
    lib = Library.open(tmp_path / "lib")
    w = _window(qtbot, lib)
    yield w
    w.close()
    lib.close()


def test_add_by_identifier(qtbot, window, server, monkeypatch):
    from reader.sources import http

    threads = []
    real = http.Client._fetch_network
    monkeypatch.setattr(http.Client, "_fetch_network",
                        lambda self, *a: threads.append(threading.current_thread().name) or real(self, *a))
    action = window.findChild(type(window.sources.addAction), "addByIdAction")
    assert action is not None and action.text() == "Add by &identifier…"
    action.trigger()
    dialog = window.sources.dialog
    assert dialog.objectName() == "addByIdDialog" and dialog.isVisible()
    for name in ("addByIdInput", "addByIdAdd", "addByIdCancel", "addByIdResults", "addByIdProgress", "addByIdStatus"):
        widget = dialog.findChild(object, name)
        assert widget is not None and widget.accessibleName(), name
    before = window.library.counts().total
    dialog.input.setPlainText(f"0808.05394\n\n{CROSSREF_DOI}\narXiv:1707.08567\nnot an id")
    dialog.addButton.click()
    qtbot.waitUntil(lambda: dialog.list.isVisible() and not dialog.running)
    lines = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert lines == ["Not added  0808.05394: arXiv has no paper with this id",
                     f"Added  {CROSSREF_DOI} — Attention is all you need",
                     f"Added  arXiv:1707.08567 — {AEW10}",
                     "Not added  not an id: not an arXiv id, DOI or OpenReview id"]
    assert dialog.status.text() == "2 added, 0 updated, 0 already there, 2 not added."
    assert window.library.counts().total == before + 2
    assert threads and all(t.startswith("reader-network") for t in threads)
    # The collection shows in the sidebar.
    qtbot.waitUntil(lambda: any(window.sidebar.topLevelItem(i).child(j).text(0) == "Added by identifier"
                                for i in range(window.sidebar.topLevelItemCount())
                                for j in range(window.sidebar.topLevelItem(i).childCount())))
    dialog.input.setPlainText("1707.08567")
    dialog.addButton.click()
    qtbot.waitUntil(lambda: not dialog.running and dialog.list.count() == 1)
    assert dialog.list.item(0).text() == f"Already there  1707.08567 — {AEW10}"
    assert dialog.list.wordWrap() and dialog.list.horizontalScrollBar().maximum() == 0  # not cut at the edge


def test_cancel_adds_nothing(qtbot, window, server):
    server.fault("/api/query", Fault.slow(3))
    dialog = window.sources.ask_add()
    before = window.library.counts().total
    dialog.input.setPlainText("1707.08567")
    dialog.addButton.click()
    assert dialog.running and dialog.progress.isVisible()
    dialog.cancelButton.click()  # the first Cancel stops the fetch, the dialog stays
    assert dialog.isVisible()
    qtbot.waitUntil(lambda: not dialog.running)
    assert dialog.status.text() == "Cancelled: nothing was added."
    window.runner.drain()
    assert window.library.counts().total == before
    dialog.cancelButton.click()
    assert not dialog.isVisible()


def test_a_service_down_is_one_line_in_the_dialog(qtbot, window, server):
    server.fault("/api/query", *[Fault.status_code(503)] * 3)
    dialog = window.sources.ask_add()
    dialog.input.setPlainText("1707.08567")
    dialog.addButton.click()
    qtbot.waitUntil(lambda: not dialog.running)
    assert "did not answer (503 Service Unavailable) after 2 tries" in dialog.status.text()
    assert dialog.status.text().endswith("nothing was added.")


def test_feeds_update_when_the_window_opens_and_fill_the_new_view(qtbot, tmp_path, server):
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    lib.follow_feed("arxiv", "cs.LG")
    w = _window(qtbot, lib)
    try:
        qtbot.waitUntil(lambda: bool(w.sources.last_update))
        ((name, result),) = w.sources.last_update
        assert name == "arxiv:cs.LG" and result.new == 100
        new_item = next(w.sidebar.topLevelItem(0).child(j) for j in range(w.sidebar.topLevelItem(0).childCount())
                        if w.sidebar.topLevelItem(0).child(j).text(0) == "New")
        qtbot.waitUntil(lambda: new_item.text(1) == "100")
        w.set_view(View(ViewKind.NEW))
        qtbot.waitUntil(lambda: w.model.rowCount() == 100)
        # Updated a moment ago: opening again does not ask arXiv; on demand it does.
        asked = len(server.requests)
        w.sources.update_if_due()
        qtbot.wait(300)
        w.runner.drain()
        assert len(server.requests) == asked and w.sources.update_task is None
        w.sources.updateAction.trigger()
        qtbot.waitUntil(lambda: len(server.requests) > asked and w.sources.update_task is None)
        assert w.sources.last_update[0][1].new == 0
    finally:
        w.close()
        lib.close()


def test_closing_the_window_does_not_wait_for_a_hung_fetch(qtbot, tmp_path, server):
    import time

    server.fault("/api/query", Fault.slow(60))
    lib = Library.open(tmp_path / "lib2", seed_if_empty=False)
    w = _window(qtbot, lib)
    try:
        dialog = w.sources.ask_add()
        dialog.input.setPlainText("1707.08567")
        dialog.addButton.click()
        qtbot.waitUntil(lambda: bool(server.requests))
        start = time.monotonic()
        w.close()
        assert time.monotonic() - start < 20  # not the 60 s the server takes
    finally:
        lib.close()
