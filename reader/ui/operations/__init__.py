"""User operations that change the library: one function each, each pushing its own undo step.

Modelled on anki's aqt/operations: the window builds widgets and wires signals to these
functions; every write runs on the window's writer thread between two snapshots."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from ..tasks import Task
from ..undo import SnapshotCommand, push_change

if TYPE_CHECKING:
    from reader.models import Paper

    from ..main_window import MainWindow

IdsArg = Sequence[str] | Callable[[], list[str]]  # a fixed list, or resolved on the writer


def ids_getter(ids: IdsArg) -> Callable[[], list[str]]:
    """`ids` as a function the writer calls (several times: snapshot, op, snapshot)."""
    if callable(ids):
        return ids
    fixed = list(ids)
    return lambda: fixed


def change(window: MainWindow, text: str, ids: Sequence[str] | Callable[[], Sequence[str]],
           op: Callable[[], Any], *, merge_key: Any = None, on_done: Callable[[Any], None] | None = None,
           on_error: Callable[[BaseException], None] | None = None) -> Task | None:
    """Run `op` on the writer between two snapshots of `ids`, and push it as one undo step."""
    if window.closing:
        return None
    lib = window.library

    def job() -> tuple:
        paper_ids = list(ids() if callable(ids) else ids)
        before = lib.snapshot(paper_ids)
        result = op()
        after = lib.snapshot(paper_ids)
        return paper_ids, before, after, result

    def done(out: tuple) -> None:
        paper_ids, before, after, result = out
        if before != after:
            restore = partial(restore_snapshots, window)
            push_change(window.undo_stack, SnapshotCommand(restore, text, before, after, merge_key))
        window.after_write(paper_ids)
        if on_done is not None:
            on_done(result)

    return window.runner.write(job, done, on_error or window.handle_error)


def restore_snapshots(window: MainWindow, snapshots: list[Paper], remove_ids: list[str]) -> None:
    """Undo/redo: write the snapshots back on the writer thread."""
    lib = window.library
    ids = [s.id for s in snapshots] + list(remove_ids)
    window.runner.write(lambda: lib.restore(snapshots, remove_ids=remove_ids),
                        lambda _: window.after_write(ids), window.handle_error)
