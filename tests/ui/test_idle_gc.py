"""Full cycle collections at idle on the GUI thread, never set off by a worker's allocations
mid-step (reader/ui/idle_gc.py)."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from reader.ui import idle_gc
from reader.ui.idle_gc import IdleCollector
from reader.ui.tasks import InputWatch


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Installed:
    clock: Clock
    watch: InputWatch
    collector: IdleCollector
    runs: list[int]

    def hold_keys(self, ticks: int, every: float) -> None:
        """The user presses a key every `every` seconds, the timer ticking after each."""
        for _ in range(ticks):
            self.clock.now += every
            self.watch.touch()
            self.collector.tick()


@pytest.fixture
def installed(qtbot) -> Iterator[Installed]:
    clock = Clock()
    runs: list[int] = []
    watch = InputWatch(clock=clock)
    c = IdleCollector(watch, clock=clock, collect=runs.append)
    c.install()
    yield Installed(clock, watch, c, runs)
    c.uninstall()


def test_a_full_collection_waits_for_the_user_to_be_idle(installed: Installed):
    t, c, runs = installed, installed.collector, installed.runs
    t.hold_keys(60, 2.0)  # two minutes of J/K, a key every 2 s
    assert runs == []  # the user was never idle, and LONGEST_S has not passed
    t.clock.now += idle_gc.IDLE_S  # the user stops
    assert c.tick() and runs == [2]
    t.clock.now += idle_gc.IDLE_S + 1
    assert not c.tick()  # at most every EVERY_S
    t.clock.now += idle_gc.EVERY_S
    assert c.tick() and runs == [2, 2]


def test_a_user_never_idle_still_gets_one_every_longest(installed: Installed):
    installed.hold_keys(int(idle_gc.LONGEST_S) + 2, 1.0)
    assert installed.runs == [2]  # garbage in cycles is freed even under a held key


def test_installed_no_automatic_full_collection_and_thresholds_restored(qtbot):
    before = gc.get_threshold()
    clock = Clock()
    c = IdleCollector(InputWatch(clock=clock), clock=clock, collect=lambda _g: None)
    c.install()
    try:
        assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] == idle_gc.NEVER
        # A worker allocating many long-lived containers sets off young collections only.
        seen: list[int] = []

        def note(phase: str, info: dict) -> None:
            if phase == "start":
                seen.append(info["generation"])

        gc.callbacks.append(note)
        try:
            held: list[list[int]] = []

            def allocate() -> None:
                for i in range(400_000):
                    held.append([i])

            t = threading.Thread(target=allocate)
            t.start()
            t.join()
        finally:
            gc.callbacks.remove(note)
        assert seen and 2 not in seen
        held.clear()
        other = IdleCollector(InputWatch(clock=clock), clock=clock, collect=lambda _g: None)
        other.install()  # a second window: the first gives its thresholds back first
        assert IdleCollector.installed is other and gc.get_threshold()[2] == idle_gc.NEVER
        other.uninstall()
        assert gc.get_threshold() == before
    finally:
        c.uninstall()
    assert gc.get_threshold() == before


def test_the_window_installs_it_and_gives_it_back_on_close(qtbot, library):
    from reader.ui.window.main_window import MainWindow

    before = gc.get_threshold()
    w = MainWindow(library, theme="light")
    qtbot.addWidget(w)
    assert IdleCollector.installed is w.idle_gc and w.idle_gc.timer.isActive()
    assert gc.get_threshold()[2] == idle_gc.NEVER
    w.close()
    assert IdleCollector.installed is None and gc.get_threshold() == before
