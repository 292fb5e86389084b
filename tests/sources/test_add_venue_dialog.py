"""File → Add a conference…: filter, Add, progress, Cancel, with pytest-qt and the local replay
server serving the REAL AISTATS 2018 PMLR volume (../shared/corpora/bibtex). The CVF bodies of the
Cancel test are built from the site's published HTML structure around real corpus papers
(tests/sources/venue_fixtures.py: no real CVF recording exists here). Never the network."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from reader.library import Library, View
from reader.models import ViewKind
from reader.ui.sources.add_venue import AddVenueDialog
from reader.ui.tasks import TaskRunner

from .replay import Fault, ReplayServer
from .venue_fixtures import CORPORA, PAPERS, corpus_papers, cvf_site

V84 = CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    for name, value in (("RETRIES", "2"), ("BACKOFF", "0.05"), ("DEADLINE", "20"), ("PACE_SCALE", "0")):
        monkeypatch.setenv(f"READER_SOURCE_{name}", value)


@pytest.fixture()
def env(qtbot, tmp_path, monkeypatch):
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    runner = TaskRunner()
    with ReplayServer() as server:
        for name in ("PMLR", "CVF", "OPENREVIEW", "ACL"):
            monkeypatch.setenv(f"READER_SOURCE_{name}_URL", server.url)
        dialog = AddVenueDialog(None, lib, runner)
        qtbot.addWidget(dialog)
        yield dialog, lib, server
        dialog.reject()
        runner.shutdown(wait=True)
        lib.close()


def test_filter_add_and_progress(env, qtbot):
    dialog, lib, server = env
    if not V84.exists():
        pytest.skip("bibtex corpus not available")
    server.add("/v84/assets/bib/bibliography.bib", V84.read_bytes())
    for name in ("venueFilter", "venueList", "venueAdd", "venueCancel", "venueProgress", "venueStatus",
                 "venueRefresh"):
        widget = dialog.findChild(object, name)
        assert widget is not None and widget.accessibleName(), name
    qtbot.keyClicks(dialog.filterEdit, "aistats 2018")
    shown = [dialog.list.item(r) for r in range(dialog.list.count()) if not dialog.list.item(r).isHidden()]
    assert len(shown) == 1 and shown[0].text().startswith("AISTATS 2018")
    assert dialog.chosen() == ("aistats", 2018)
    with qtbot.waitSignal(dialog.finished_adding) as done:
        qtbot.mouseClick(dialog.addButton, Qt.MouseButton.LeftButton)
    assert done.args[0].startswith("AISTATS 2018: 216 papers from pmlr — 216 new")
    assert dialog.statusLabel.text() == done.args[0] and not dialog.busy
    assert len(lib.paper_ids(View(ViewKind.COLLECTION, "AISTATS 2018"))) == 216


def test_cancel_stores_nothing(env, qtbot):
    dialog, lib, server = env
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    site = cvf_site(list(corpus_papers("wacv2024:", 6)), "WACV2024")
    for path, body in site.items():
        server.add(path, body)
    pages = [p for p in site if p.startswith("/content/")]
    server.fault(pages[2], Fault.slow(3))
    qtbot.keyClicks(dialog.filterEdit, "wacv 2024")
    qtbot.mouseClick(dialog.addButton, Qt.MouseButton.LeftButton)
    assert dialog.busy and dialog.cancelButton.text() == "Cancel"
    qtbot.waitUntil(lambda: any(r.path == pages[2] for r in server.requests))
    # the step is said in the status line, not drawn half on the bar and half off it
    qtbot.waitUntil(lambda: "paper pages: " in dialog.statusLabel.text())
    assert dialog.statusLabel.text().startswith("Fetching WACV 2024… ")
    assert not dialog.progress.isTextVisible()
    # the list is disabled while fetching, but the chosen row keeps a readable highlight
    from PySide6.QtGui import QPalette
    palette = dialog.list.palette()
    assert not dialog.list.isEnabled()
    for role in (QPalette.ColorRole.Highlight, QPalette.ColorRole.HighlightedText):
        assert palette.color(QPalette.ColorGroup.Disabled, role) == palette.color(QPalette.ColorGroup.Active, role)
    qtbot.mouseClick(dialog.cancelButton, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.busy)
    assert dialog.statusLabel.text().startswith("Cancelled: nothing was stored")
    assert lib.counts().total == 0 and dialog.isVisible() is not None


def test_not_served_is_said_in_the_dialog(env, qtbot):
    dialog, lib, server = env
    server.fault("/notes", Fault.status_code(403))
    qtbot.keyClicks(dialog.filterEdit, "iclr 2026")
    assert dialog.chosen() == ("iclr", 2026)
    qtbot.mouseClick(dialog.addButton, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.busy)
    assert dialog.statusLabel.text().startswith("iclr 2026: not available yet; tried openreview ")
    assert "(403 Forbidden)" in dialog.statusLabel.text() and lib.counts().total == 0


def test_file_menu_opens_it(qtbot, tmp_path, monkeypatch):
    from PySide6.QtGui import QAction

    from reader.ui.window.main_window import MainWindow

    monkeypatch.setenv("READER_CONFIG_DIR", str(tmp_path / "config"))
    lib = Library.open(tmp_path / "seeded")
    window = MainWindow(lib, theme="light")
    qtbot.addWidget(window)
    try:
        action = window.findChild(QAction, "addVenueAction")
        assert action is not None and action.text() == "Add a &conference…"
        file_menu = window.menuBar().actions()[0].menu()
        assert action in file_menu.actions()
        action.trigger()
        dialog = window.findChild(AddVenueDialog, "addVenueDialog")
        assert dialog is not None and dialog.isVisible() and dialog.list.count() > 100
        dialog.reject()
        qtbot.waitUntil(lambda: not window.runner.busy)
    finally:
        window.close()
        lib.close()


def test_closing_the_window_mid_fetch_cancels_it(qtbot, tmp_path, monkeypatch):
    """The window waits for its tasks as it closes: the fetch stops after the request in flight
    (a request being read is not interrupted; it is bounded by READER_SOURCE_TIMEOUT)."""
    import time

    from reader.ui.window.main_window import MainWindow

    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    monkeypatch.setenv("READER_CONFIG_DIR", str(tmp_path / "config"))
    lib = Library.open(tmp_path / "seeded")
    with ReplayServer() as server:
        monkeypatch.setenv("READER_SOURCE_CVF_URL", server.url)
        site = cvf_site(list(corpus_papers("wacv2024:", 4)), "WACV2024")
        for path, body in site.items():
            server.add(path, body)
        pages = [p for p in site if p.startswith("/content/")]
        server.fault(pages[1], Fault.slow(3))
        window = MainWindow(lib, theme="light")
        qtbot.addWidget(window)
        try:
            dialog = window.sources.ask_add_venue()
            qtbot.keyClicks(dialog.filterEdit, "wacv 2024")
            qtbot.mouseClick(dialog.addButton, Qt.MouseButton.LeftButton)
            qtbot.waitUntil(lambda: any(r.path == pages[1] for r in server.requests))
            start = time.monotonic()
            window.close()
            assert time.monotonic() - start < 30  # the page in flight (3 s), not the fetch's end
            assert not any(r.path in pages[2:] for r in server.requests)  # no page after the one in flight
        finally:
            lib.close()
    again = Library.open(tmp_path / "seeded")
    try:
        assert not again.paper_ids(View(ViewKind.COLLECTION, "WACV 2024"))
    finally:
        again.close()
