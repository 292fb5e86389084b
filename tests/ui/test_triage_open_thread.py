"""Triage's first open makes its learner off the GUI thread: importing it (and numpy) took
100-150 ms of the GUI thread at 100k when triage was opened before the index's worker had
preloaded them."""

from __future__ import annotations

import threading

from reader.triage import best as best_module
from reader.ui.window.main_window import MainWindow

from .test_triage_view import open_triage


def test_the_first_open_makes_the_learner_on_a_worker(qtbot, window: MainWindow, monkeypatch) -> None:
    made: list[bool] = []
    real = best_module.BestFirst.__init__

    def spy(self, *args, **kwargs):
        made.append(threading.current_thread() is threading.main_thread())
        real(self, *args, **kwargs)

    monkeypatch.setattr(best_module.BestFirst, "__init__", spy)
    ctl = open_triage(qtbot, window)
    assert made == [False]  # once, and not on the GUI thread
    assert ctl.ranking.best is ctl.ranking.best and made == [False]
