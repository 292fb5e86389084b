"""The index's segment merges (housekeeping) start once the user pauses, not mid-typing."""

from __future__ import annotations

from reader.ui.window import index_sync
from reader.ui.window.main_window import MainWindow


def test_a_merge_waits_for_a_pause_then_runs_anyway_after_a_few_ticks(qtbot, window: MainWindow,
                                                                     monkeypatch) -> None:
    merges: list[int] = []
    monkeypatch.setattr(window.library, "maintain_index", lambda: merges.append(1) or False)
    sync = window.index_sync
    watch = window.runner.input_watch
    for _ in range(index_sync.MAINTAIN_MOST_SKIPS):
        watch.touch()  # the user typed just now
        sync._maintain()
    qtbot.waitUntil(lambda: not window.runner.busy)
    assert merges == []
    watch.touch()
    sync._maintain()  # busy for too long: it runs anyway
    qtbot.waitUntil(lambda: len(merges) == 1)
    watch.last_input -= index_sync.MAINTAIN_IDLE_S + 1  # the user paused
    sync._maintain()
    qtbot.waitUntil(lambda: len(merges) == 2)
