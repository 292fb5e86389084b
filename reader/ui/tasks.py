"""Background task runner: one serialized writer, an index channel, a layout channel, latest-wins
readers; results back on the GUI thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal, Slot

Callback = Callable[[Any], None] | None
ErrorCallback = Callable[[BaseException], None] | None


class Task:
    """A handle on a submitted job: its future, a cancel flag and a progress callback."""

    def __init__(self, runner: TaskRunner, label: str | None) -> None:
        self.label = label
        self.future: Future | None = None
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

    # One tuple per delivery (origin, on_done, on_error, result, error): PySide6 mishandles the
    # reference counts of bare None/True/False passed as `object` signal arguments across threads.
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
        self._layout_tasks: set[Task] = set()
        # Fetches from the services (reader.sources) on a thread of their own: a service's pace
        # or Retry-After waits hold up neither the writes nor index upkeep. Cancelled at shutdown.
        self._network = ThreadPoolExecutor(1, thread_name_prefix="reader-network")
        self._network_tasks: set[Task] = set()
        self._readers: dict[str, ThreadPoolExecutor] = {}
        self._generations: dict[str, int] = {}
        self._lock = threading.Lock()
        self._pending_writes = 0
        self._closed = False
        self._finished.connect(self._deliver)

    # -- writer -------------------------------------------------------------------------
    def write(
        self,
        fn: Callable[..., Any],
        on_done: Callback = None,
        on_error: ErrorCallback = None,
        *,
        label: str | None = None,
        with_task: bool = False,
    ) -> Task:
        """Queue `fn()` (or `fn(task)` when with_task) on the single writer thread."""
        return self._submit(self._writer, fn, on_done, on_error, label, with_task)

    def background(
        self,
        fn: Callable[..., Any],
        on_done: Callback = None,
        on_error: ErrorCallback = None,
        *,
        label: str | None = None,
        with_task: bool = False,
    ) -> Task:
        """Queue a long job that must not hold up the writer (index sync) on its own thread."""
        return self._submit(self._indexer, fn, on_done, on_error, label, with_task)

    def layout(
        self,
        fn: Callable[..., Any],
        on_done: Callback = None,
        on_error: ErrorCallback = None,
        *,
        label: str | None = None,
        with_task: bool = False,
    ) -> Task:
        """Queue a map layout on the layout thread (beside index upkeep, not behind it)."""
        task = self._submit(self._layouts, fn, on_done, on_error, label, with_task)
        with self._lock:
            self._layout_tasks.add(task)
        assert task.future is not None
        task.future.add_done_callback(lambda _f: self._forget_layout(task))
        return task

    def _forget_layout(self, task: Task) -> None:
        with self._lock:
            self._layout_tasks.discard(task)

    def network(
        self,
        fn: Callable[..., Any],
        on_done: Callback = None,
        on_error: ErrorCallback = None,
        *,
        label: str | None = None,
        with_task: bool = False,
    ) -> Task:
        """Queue a fetch from the services on the network thread (one at a time); its result
        is usually stored by a `write` queued from on_done."""
        task = self._submit(self._network, fn, on_done, on_error, label, with_task)
        task.network = True
        with self._lock:
            self._network_tasks.add(task)
        assert task.future is not None
        task.future.add_done_callback(lambda _f: self._forget_network(task))
        return task

    def _forget_network(self, task: Task) -> None:
        with self._lock:
            self._network_tasks.discard(task)

    def _submit(self, pool: ThreadPoolExecutor, fn: Callable[..., Any], on_done: Callback,
                on_error: ErrorCallback, label: str | None, with_task: bool) -> Task:
        if self._closed:
            raise RuntimeError("the task runner is shut down")
        task = Task(self, label)
        self._pending_writes += 1
        if label:
            self.started.emit(task)

        def job() -> None:
            try:
                result = fn(task) if with_task else fn()
            except BaseException as exc:  # delivered to the GUI thread, never swallowed
                self._finished.emit((task, on_done, on_error, None, exc))
                return
            self._finished.emit((task, on_done, on_error, result, None))

        task.future = pool.submit(job)
        return task

    def write_sync(self, fn: Callable[[], Any], timeout: float = 30.0) -> Any:
        """Run `fn` on the writer and block until it ran (after everything queued before it)."""
        return self._writer.submit(fn).result(timeout=timeout)

    def drain(self, timeout: float = 60.0) -> None:
        """Block until every write queued so far has run."""
        self._writer.submit(lambda: None).result(timeout=timeout)

    @property
    def busy(self) -> bool:
        return self._pending_writes > 0

    # -- latest-wins readers ------------------------------------------------------------
    def read(self, channel: str, fn: Callable[[], Any], on_done: Callback, on_error: ErrorCallback = None) -> int:
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
                self._finished.emit((key, on_done, on_error, None, exc))
                return
            self._finished.emit((key, on_done, on_error, result, None))

        if not self._closed:
            pool.submit(job)
        return gen

    def invalidate(self, channel: str) -> None:
        """Drop whatever the channel is computing now."""
        with self._lock:
            self._generations[channel] = self._generations.get(channel, 0) + 1

    # -- delivery (GUI thread) ------------------------------------------------------------
    @Slot(object)
    def _deliver(self, delivery: tuple) -> None:
        origin, on_done, on_error, result, error = delivery
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
