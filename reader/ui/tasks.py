"""Background task runner: one serialized writer, an index channel, a layout channel, latest-wins
readers; results back on the GUI thread.

The thread boundary is typed: a job returning T is handed to a callback taking T (`Task[T]`,
`Done[T]`), so mypy rejects a job whose result is not what its callback expects
(tests/ui/test_tasks_typed.py plants one). Results cross the boundary as the job's own return
value; what several values travel together in is a frozen dataclass, not a dict or bare tuple."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from PySide6.QtCore import QObject, Signal, Slot

T = TypeVar("T")
Done = Callable[[T], object] | None  # called on the GUI thread with the job's result
ErrorCallback = Callable[[BaseException], object] | None


class Task(Generic[T]):
    """A handle on a submitted job returning T: its future, a cancel flag and a progress callback."""

    def __init__(self, runner: TaskRunner, label: str | None) -> None:
        self.label = label
        self.future: Future[None] | None = None
        self._cancel = threading.Event()
        self._runner = runner
        self.network = False  # a fetch on the network thread (TaskRunner.network)

    def cancel(self) -> None:
        self._cancel.set()

    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def progress(self, done: int, total: int, message: str = "") -> None:
        # Called on a worker thread; the signal is queued to the GUI thread.
        self._runner.progressed.emit(self, int(done), int(total), str(message))


class TaskRunner(QObject):
    """Runs every store/index write on ONE writer thread and reads on latest-wins workers.

    Results and exceptions are delivered to the GUI thread through a queued signal, so
    callbacks may touch widgets.
    """

    # One _Delivery per result: PySide6 mishandles the reference counts of bare None/True/False
    # passed as `object` signal arguments across threads.
    _finished = Signal(object)
    progressed = Signal(object, int, int, str)  # task, done, total, message
    started = Signal(object)  # task with a label (shown in the status bar)
    ended = Signal(object)
    error = Signal(object)  # an exception nobody handled

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="reader-writer")
        self._indexer = ThreadPoolExecutor(1, thread_name_prefix="reader-index")
        # Map layouts (up to a minute at 50k) on their own thread: index catch-up never waits
        # behind one. Cancelled at shutdown so closing the window does not wait for it either.
        self._layouts = ThreadPoolExecutor(1, thread_name_prefix="reader-layout")
        self._layout_tasks: set[Task[Any]] = set()
        # Fetches from the services (reader.sources) on a thread of their own: a service's pace
        # or Retry-After waits hold up neither the writes nor index upkeep. Cancelled at shutdown.
        self._network = ThreadPoolExecutor(1, thread_name_prefix="reader-network")
        self._network_tasks: set[Task[Any]] = set()
        self._readers: dict[str, ThreadPoolExecutor] = {}
        self._generations: dict[str, int] = {}
        self._lock = threading.Lock()
        self._pending_writes = 0
        self._closed = False
        self._finished.connect(self._deliver)
        self.input_watch = InputWatch()  # idle-time jobs wait while the user is at the keys

    # -- writer -------------------------------------------------------------------------
    @overload
    def write(self, fn: Callable[[], T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
              label: str | None = None, with_task: Literal[False] = False) -> Task[T]: ...
    @overload
    def write(self, fn: Callable[[Task[T]], T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
              label: str | None = None, with_task: Literal[True]) -> Task[T]: ...

    def write(self, fn: Callable[..., T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
              label: str | None = None, with_task: bool = False) -> Task[T]:
        """Queue `fn()` (or `fn(task)` when with_task) on the single writer thread."""
        return self._submit(self._writer, fn, on_done, on_error, label, with_task)

    @overload
    def background(self, fn: Callable[[], T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
                   label: str | None = None, with_task: Literal[False] = False) -> Task[T]: ...
    @overload
    def background(self, fn: Callable[[Task[T]], T], on_done: Done[T] = None, on_error: ErrorCallback = None,
                   *, label: str | None = None, with_task: Literal[True]) -> Task[T]: ...

    def background(self, fn: Callable[..., T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
                   label: str | None = None, with_task: bool = False) -> Task[T]:
        """Queue a long job that must not hold up the writer (index sync) on its own thread."""
        return self._submit(self._indexer, fn, on_done, on_error, label, with_task)

    @overload
    def layout(self, fn: Callable[[], T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
               label: str | None = None, with_task: Literal[False] = False) -> Task[T]: ...
    @overload
    def layout(self, fn: Callable[[Task[T]], T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
               label: str | None = None, with_task: Literal[True]) -> Task[T]: ...

    def layout(self, fn: Callable[..., T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
               label: str | None = None, with_task: bool = False) -> Task[T]:
        """Queue a map layout on the layout thread (beside index upkeep, not behind it)."""
        task = self._submit(self._layouts, fn, on_done, on_error, label, with_task)
        with self._lock:
            self._layout_tasks.add(task)
        assert task.future is not None
        task.future.add_done_callback(lambda _f: self._forget_layout(task))
        return task

    def _forget_layout(self, task: Task[Any]) -> None:
        with self._lock:
            self._layout_tasks.discard(task)

    @overload
    def network(self, fn: Callable[[], T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
                label: str | None = None, with_task: Literal[False] = False) -> Task[T]: ...
    @overload
    def network(self, fn: Callable[[Task[T]], T], on_done: Done[T] = None, on_error: ErrorCallback = None,
                *, label: str | None = None, with_task: Literal[True]) -> Task[T]: ...

    def network(self, fn: Callable[..., T], on_done: Done[T] = None, on_error: ErrorCallback = None, *,
                label: str | None = None, with_task: bool = False) -> Task[T]:
        """Queue a fetch from the services on the network thread (one at a time); its result
        is usually stored by a `write` queued from on_done."""
        task = self._submit(self._network, fn, on_done, on_error, label, with_task)
        task.network = True
        with self._lock:
            self._network_tasks.add(task)
        assert task.future is not None
        task.future.add_done_callback(lambda _f: self._forget_network(task))
        return task

    def _forget_network(self, task: Task[Any]) -> None:
        with self._lock:
            self._network_tasks.discard(task)

    def _submit(self, pool: ThreadPoolExecutor, fn: Callable[..., T], on_done: Done[T],
                on_error: ErrorCallback, label: str | None, with_task: bool) -> Task[T]:
        if self._closed:
            raise RuntimeError("the task runner is shut down")
        task: Task[T] = Task(self, label)
        self._pending_writes += 1
        if label:
            self.started.emit(task)

        def job() -> None:
            try:
                result = fn(task) if with_task else fn()
            except BaseException as exc:  # delivered to the GUI thread, never swallowed
                self._finished.emit(_Delivery(task, on_done, on_error, None, exc))
                return
            self._finished.emit(_Delivery(task, on_done, on_error, result, None))

        task.future = pool.submit(job)
        return task

    def write_sync(self, fn: Callable[[], T], timeout: float = 30.0) -> T:
        """Run `fn` on the writer and block until it ran (after everything queued before it)."""
        return self._writer.submit(fn).result(timeout=timeout)

    def drain(self, timeout: float = 60.0) -> None:
        """Block until every write queued so far has run."""
        self._writer.submit(lambda: None).result(timeout=timeout)

    @property
    def busy(self) -> bool:
        return self._pending_writes > 0

    # -- latest-wins readers ------------------------------------------------------------
    def read(self, channel: str, fn: Callable[[], T], on_done: Done[T], on_error: ErrorCallback = None) -> int:
        """Run `fn` on the channel's worker; only the newest request's result is delivered."""
        with self._lock:
            gen = self._generations.get(channel, 0) + 1
            self._generations[channel] = gen
            pool = self._readers.get(channel)
            if pool is None:
                pool = self._readers[channel] = ThreadPoolExecutor(1, thread_name_prefix=f"reader-{channel}")
        key = (channel, gen)

        def job() -> None:
            if self._generations.get(channel) != gen:
                return  # a newer request is queued: don't even start this one
            try:
                result = fn()
            except BaseException as exc:
                self._finished.emit(_Delivery(key, on_done, on_error, None, exc))
                return
            self._finished.emit(_Delivery(key, on_done, on_error, result, None))

        if not self._closed:
            pool.submit(job)
        return gen

    def invalidate(self, channel: str) -> None:
        """Drop whatever the channel is computing now."""
        with self._lock:
            self._generations[channel] = self._generations.get(channel, 0) + 1

    # -- delivery (GUI thread) ------------------------------------------------------------
    @Slot(object)
    def _deliver(self, delivery: _Delivery[Any]) -> None:
        origin, on_done, on_error, result, error = (delivery.origin, delivery.on_done, delivery.on_error,
                                                    delivery.result, delivery.error)
        if isinstance(origin, Task) and origin.network and self._closed:
            return  # a fetch that ended after the shutdown: nobody waits for it any more
        if isinstance(origin, Task):
            self._pending_writes -= 1
            if origin.label:
                self.ended.emit(origin)
        else:
            channel, gen = origin
            if self._generations.get(channel) != gen:
                return  # stale: a newer read was requested meanwhile
        if error is not None:
            if on_error is not None:
                on_error(error)
            else:
                self.error.emit(error)
        elif on_done is not None:
            on_done(result)

    def shutdown(self, wait: bool = True) -> None:
        self._closed = True
        for gen_channel in list(self._generations):
            self.invalidate(gen_channel)
        for pool in self._readers.values():
            pool.shutdown(wait=wait, cancel_futures=True)
        with self._lock:
            running = list(self._layout_tasks) + list(self._network_tasks)
        for task in running:
            task.cancel()
        self._layouts.shutdown(wait=wait, cancel_futures=True)
        # Not waited for: a fetch blocked in a socket read (up to its time-out) must not hold
        # the closing window; cancelled, it stops at its next step, and its result is dropped.
        self._network.shutdown(wait=False, cancel_futures=True)
        self._indexer.shutdown(wait=wait)
        self._writer.shutdown(wait=wait)


@dataclass(frozen=True, slots=True, eq=False)
class _Delivery(Generic[T]):
    """One job's outcome on its way to the GUI thread: the task (or a read's channel and
    generation), its callbacks, and its result or the exception it raised."""

    origin: Task[T] | tuple[str, int]
    on_done: Done[T]
    on_error: ErrorCallback
    result: T | None
    error: BaseException | None


class InputWatch:
    """When the user last moved through papers, decided in triage or typed a search key
    (`touch`, from those slots): idle-time work on a worker (the index's warm-up, ~7 s of CPU
    at 100k papers) waits in `wait_for_idle` while the user is at it, so that J/K and typing do
    not share the GIL with it. Only when the work is done changes, never what it finds."""

    QUIET_S = 0.3  # no key for this long: the user is idle
    MOST_S = 2.0  # one wait lasts no longer (under a held key the warm-up still goes on)
    NAP_S = 0.02

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], object] = time.sleep) -> None:
        self.clock, self.sleep = clock, sleep
        self.last_input = float("-inf")

    def touch(self) -> None:
        """On the GUI thread: the user did something."""
        self.last_input = self.clock()

    def idle_for(self) -> float:
        """Seconds since the user last stepped, decided or typed."""
        return self.clock() - self.last_input

    def wait_for_idle(self) -> int:
        """On a worker, between two steps of idle-time work: the GIL let go, then short naps
        while the user was active in the last QUIET_S (MOST_S at most); says how many naps."""
        self.sleep(0)
        naps, start = 0, self.clock()
        while self.clock() - self.last_input < self.QUIET_S and self.clock() - start < self.MOST_S:
            self.sleep(self.NAP_S)
            naps += 1
        return naps
