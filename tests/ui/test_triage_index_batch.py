"""Triage's decisions are indexed in batches (issue 31): each star, skip or read mark re-indexed
its paper at once (a delete, an add and a commit: ~0.1 s of writer CPU at 100k papers, holding
the GIL the window needs). While triage is open, one index catch-up covers INDEX_BATCH
decisions; each decision is still its own committed transaction, a search sees every one at
once (it settles the batch first), and leaving triage indexes the rest."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reader.store import changes
from reader.ui.triage.index_batch import INDEX_BATCH
from reader.ui.window.main_window import MainWindow

from .test_triage_view import open_triage, press, settle

K = Qt.Key


def count_index_updates(monkeypatch, window: MainWindow) -> list[int]:
    index = window.library.index
    real = index.update
    updates: list[int] = []

    def update(*args, **kwargs):
        updates.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(index, "update", update)
    return updates


def current_seq(window: MainWindow) -> int:
    return changes.current_seq(window.library.read_connection())


def test_a_batch_of_skips_is_indexed_once(qtbot, window: MainWindow, monkeypatch) -> None:
    ctl = open_triage(qtbot, window)
    settle(qtbot, window)
    updates = count_index_updates(monkeypatch, window)
    seq = current_seq(window)
    for _ in range(INDEX_BATCH - 1):
        press(qtbot, ctl, K.Key_X)  # "not for me": one transaction each (skipped and read)
        settle(qtbot, window)
    assert current_seq(window) == seq + INDEX_BATCH - 1  # each decision committed on its own
    assert updates == []  # the old code: one index update per decision (9)
    assert window.library.upkeep.deferred == INDEX_BATCH - 1
    press(qtbot, ctl, K.Key_X)
    settle(qtbot, window)
    assert len(updates) == 1  # the batch's last decision indexes all ten (the old code: 10)
    assert window.library.index.stamp == current_seq(window)
    assert window.library.upkeep.deferred == 0


def test_a_search_sees_a_decision_the_batch_holds_back(qtbot, window: MainWindow) -> None:
    ctl = open_triage(qtbot, window)
    settle(qtbot, window)
    lib = window.library
    pid = ctl.queue.current
    assert pid is not None and pid not in lib.search("is:starred", limit=None).ids
    press(qtbot, ctl, K.Key_S)
    settle(qtbot, window)
    assert lib.upkeep.deferred == 1 and lib.index.stamp < current_seq(window)  # held back
    assert pid in lib.search("is:starred", limit=None).ids  # the list never lies
    assert lib.upkeep.deferred == 0 and lib.index.stamp == current_seq(window)


def test_leaving_triage_indexes_what_the_batch_held_back(qtbot, window: MainWindow) -> None:
    ctl = open_triage(qtbot, window)
    settle(qtbot, window)
    lib = window.library
    skipped = []
    for _ in range(3):
        skipped.append(ctl.queue.current)
        press(qtbot, ctl, K.Key_X)
        settle(qtbot, window)
    assert lib.upkeep.deferred == 3
    press(qtbot, ctl, K.Key_Escape)
    qtbot.waitUntil(lambda: not ctl.active)
    settle(qtbot, window)
    assert lib.upkeep.deferred == 0 and lib.index.stamp == current_seq(window)
    hits = set(lib.index.search("is:skipped", limit=None).ids)  # the index itself, no settle
    assert set(skipped) <= hits
    # Out of triage, a decision is indexed at once again.
    lib.set_starred([skipped[0]], True)
    assert lib.upkeep.deferred == 0 and lib.index.stamp == current_seq(window)
