"""The task runner: serial writer, latest-wins reads, errors delivered, cancel and progress."""

from __future__ import annotations

import threading
import time

from reader.ui.tasks import TaskRunner


def test_writer_is_serial_and_delivers_on_gui_thread(qtbot) -> None:
    runner = TaskRunner()
    order: list[int] = []
    threads: set[str] = set()
    delivered: list[tuple[int, bool]] = []
    gui = threading.current_thread()

    def job(n: int):
        def run() -> int:
            threads.add(threading.current_thread().name)
            time.sleep(0.01 * (3 - n))  # later jobs are faster, yet must run after
            order.append(n)
            return n
        return run

    for n in range(3):
        runner.write(job(n), lambda r: delivered.append((r, threading.current_thread() is gui)))
    assert runner.busy
    qtbot.waitUntil(lambda: len(delivered) == 3)
    assert order == [0, 1, 2]
    assert delivered == [(0, True), (1, True), (2, True)]
    assert len(threads) == 1 and gui.name not in threads
    assert not runner.busy
    runner.shutdown()


def test_errors_are_delivered(qtbot) -> None:
    runner = TaskRunner()
    errors: list[BaseException] = []

    def boom() -> None:
        raise ValueError("bad")

    runner.write(boom, lambda _: None, errors.append)
    qtbot.waitUntil(lambda: errors != [])
    assert isinstance(errors[0], ValueError)
    with qtbot.waitSignal(runner.error) as caught:
        runner.read("x", boom, lambda _: None)
    assert isinstance(caught.args[0], ValueError)
    assert not runner.busy
    runner.shutdown()


def test_reads_are_latest_wins(qtbot) -> None:
    runner = TaskRunner()
    got: list[int] = []
    gate = threading.Event()

    def slow(n: int):
        def run() -> int:
            gate.wait(2)
            return n
        return run

    for n in range(5):
        runner.read("search", slow(n), got.append)
    gate.set()
    qtbot.waitUntil(lambda: got != [])
    qtbot.wait(50)
    assert got == [4]  # stale results were dropped
    runner.shutdown()


def test_cancel_flag_and_progress(qtbot) -> None:
    runner = TaskRunner()
    seen: list[tuple[int, int, str]] = []
    runner.progressed.connect(lambda task, d, t, m: seen.append((d, t, m)))
    started = threading.Event()

    def job(task) -> str:
        task.progress(1, 10, "step")
        started.set()
        while not task.cancelled():
            time.sleep(0.005)
        return "stopped"

    out: list[str] = []
    task = runner.write(job, out.append, label="Work", with_task=True)
    assert started.wait(120)  # a limit on a hang only
    task.cancel()
    qtbot.waitUntil(lambda: out == ["stopped"])
    assert seen == [(1, 10, "step")]
    runner.shutdown()


def test_index_upkeep_runs_while_a_layout_runs(qtbot) -> None:
    """A map layout has its own thread: an index catch-up queued after it completes while
    the layout is still going (on one shared background thread it waited for the layout)."""
    runner = TaskRunner()
    started, release = threading.Event(), threading.Event()
    indexed: list[str] = []
    laid_out: list[str] = []

    def slow_layout(task) -> str:
        started.set()
        while not release.wait(0.01):
            if task.cancelled():
                raise RuntimeError("cancelled")
        return "layout"

    runner.layout(slow_layout, laid_out.append, label="Making the map", with_task=True)
    assert started.wait(120)  # a limit on a hang only
    runner.background(lambda: "index", indexed.append, label="Updating the index")
    qtbot.waitUntil(lambda: indexed == ["index"])
    assert laid_out == [] and not release.is_set()  # the layout still running meanwhile
    release.set()
    qtbot.waitUntil(lambda: laid_out == ["layout"])
    runner.shutdown()


def test_shutdown_cancels_a_running_layout(qtbot) -> None:
    runner = TaskRunner()
    started = threading.Event()
    stopped: list[bool] = []

    def endless(task) -> None:
        started.set()
        while not task.cancelled():
            time.sleep(0.01)
        stopped.append(True)

    runner.layout(endless, with_task=True)
    assert started.wait(120)  # a limit on a hang only
    runner.shutdown(wait=True)  # returns: the layout saw its cancel flag
    assert stopped == [True]
