"""The index's warm-up (at 100k ~7 s of a worker's CPU after the window opens) gives way to the
user: between its steps it waits while the user steps through papers (J/K), decides in triage
or types a search, so those keys do not share the GIL with it. A search's own cold build of a
small segment's typo table never waits. Counted naps on a fake clock, never time."""

from __future__ import annotations

from PySide6.QtCore import Qt

from reader.search import typos
from reader.ui.tasks import InputWatch
from reader.ui.window.main_window import MainWindow

from .helpers import key
from .test_triage_view import open_triage, press

K = Qt.Key


class FakeClock:
    def __init__(self, watch: InputWatch) -> None:
        self.now = 1000.0
        self.naps: list[float] = []
        self.watch = watch
        self.held = False  # a key held down: the user touches at every nap
        watch.clock, watch.sleep = self.clock, self.sleep

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        if seconds:
            self.naps.append(seconds)
            self.now += seconds
            if self.held:
                self.watch.touch()


def test_wait_for_idle_naps_while_the_user_is_at_the_keys() -> None:
    watch = InputWatch()
    fake = FakeClock(watch)
    assert watch.wait_for_idle() == 0 and fake.naps == []  # nobody pressed anything
    watch.touch()
    naps = watch.wait_for_idle()
    assert naps == len(fake.naps) and InputWatch.QUIET_S <= sum(fake.naps) + 1e-9 <= InputWatch.QUIET_S + 1.01 * InputWatch.NAP_S
    fake.naps.clear()
    assert watch.wait_for_idle() == 0  # idle since
    fake.held = True
    watch.touch()
    watch.wait_for_idle()  # a held key: MOST_S at most
    assert InputWatch.MOST_S <= sum(fake.naps) + 1e-9 <= InputWatch.MOST_S + 1.01 * InputWatch.NAP_S


def test_the_window_says_when_the_user_steps_decides_or_types(qtbot, window: MainWindow) -> None:
    watch = window.runner.input_watch
    assert typos._pause_hook[0] == watch.wait_for_idle  # the warm-up's steps ask the window
    last = watch.last_input
    window.table.setFocus()
    key(qtbot, window.table, K.Key_J)
    qtbot.waitUntil(lambda: watch.last_input > last)
    last = watch.last_input
    window.focus_search()
    qtbot.keyClicks(window.searchBox, "a")
    assert watch.last_input > last
    last = watch.last_input
    window.searchBox.clear()
    window.focus_table()
    ctl = open_triage(qtbot, window)
    last = watch.last_input
    press(qtbot, ctl, K.Key_J)
    assert watch.last_input > last


def test_a_searchs_own_table_build_never_waits(monkeypatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(typos, "_pause_hook", [lambda: calls.append(1)])
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"word" + letters[i % 26] + letters[i // 26 % 26] + letters[i // 676 % 26]: (1, 0, 0)
             for i in range(3 * typos.BUILD_STEP)}
    typos._store("cold-test", words, {})  # as near_words builds a small segment's table
    assert len(typos._tables["cold-test"].words) == 3 * typos.BUILD_STEP
    assert calls == []
    typos._store("warm-test", words, {}, typos.pause)  # as warm's pending_tables do
    assert len(calls) >= 3
