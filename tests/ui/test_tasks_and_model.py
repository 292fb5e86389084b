"""The task runner (serial writer, latest-wins reads, errors delivered) and the lazy table model."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from PySide6.QtCore import Qt

from reader.ui.paper_model import COL_STAR, COL_TITLE, COL_YEAR, PAGE_SIZE, PaperModel
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
    assert started.wait(2)
    task.cancel()
    qtbot.waitUntil(lambda: out == ["stopped"])
    assert seen == [(1, 10, "step")]
    runner.shutdown()


@dataclass(frozen=True)
class Row:
    id: str
    title: str
    method: str = ""
    venue: str = "V"
    year: int | None = 2020
    starred: bool = False
    read: bool = False
    has_note: bool = False
    tags: tuple[str, ...] = ()
    added_at: str = "2025-01-01T00:00:00"


class FakeLibrary:
    def __init__(self) -> None:
        self.calls: list[int] = []

    def rows(self, ids: list[str]) -> dict[str, Row]:
        self.calls.append(len(ids))
        return {i: Row(i, f"title {i}", starred=i.endswith("7"), read=int(i) % 2 == 0) for i in ids}


def test_model_fetches_lazily_in_pages(qapp) -> None:
    lib = FakeLibrary()
    model = PaperModel(lib)
    model.set_ids([str(i) for i in range(100_000)])
    assert model.rowCount() == 100_000 and lib.calls == []
    assert model.data(model.index(99_999, COL_TITLE)) == "title 99999"
    assert lib.calls == [PAGE_SIZE]
    model.data(model.index(99_998, COL_YEAR))
    assert lib.calls == [PAGE_SIZE]  # same page: cached
    assert model.data(model.index(7, COL_STAR)) == "★"
    assert model.data(model.index(6, COL_STAR)) == ""
    assert model.data(model.index(1, COL_TITLE), Qt.ItemDataRole.FontRole).bold()  # unread
    assert model.data(model.index(2, COL_TITLE), Qt.ItemDataRole.FontRole) is None  # read
    assert model.row_of("12345") == 12345 and model.row_of("nope") == -1
    model.invalidate()
    model.data(model.index(7, COL_TITLE))
    assert len(lib.calls) == 3


def test_model_sort_asks_the_window(qtbot) -> None:
    model = PaperModel(FakeLibrary())
    with qtbot.waitSignal(model.sortRequested) as sig:
        model.sort(COL_YEAR, Qt.SortOrder.AscendingOrder)
    assert sig.args == [COL_YEAR, Qt.SortOrder.AscendingOrder]
