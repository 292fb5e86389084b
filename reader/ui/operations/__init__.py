"""User operations that change the library: one function each, each pushing its own undo step.

Modelled on anki's aqt/operations: an operation takes a narrow `OpContext` (library, undo stack,
runner, parent widget) and the ids it acts on, never the window; every write runs on the writer
thread between two snapshots. Nothing here redraws anything: the Library publishes what changed
once the transaction commits, and the widgets that show it follow those events."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from ..context import OpContext
from ..tasks import Task
from ..undo import SnapshotCommand, push_change

if TYPE_CHECKING:
    from reader.models import Paper

IdsArg = Sequence[str] | Callable[[], list[str]]  # a fixed list, or resolved on the writer


def ids_getter(ids: IdsArg) -> Callable[[], list[str]]:
    """`ids` as a function the writer calls (several times: snapshot, op, snapshot)."""
    if callable(ids):
        return ids
    fixed = list(ids)
    return lambda: fixed


def change(ctx: OpContext, text: str, ids: Sequence[str] | Callable[[], Sequence[str]],
           op: Callable[[], Any], *, merge_key: Any = None, on_done: Callable[[Any], None] | None = None,
           on_error: Callable[[BaseException], None] | None = None) -> Task | None:
    """Run `op` on the writer between two snapshots of `ids`, and push it as one undo step."""
    if ctx.is_closing():
        return None
    lib = ctx.library

    def job() -> Changed:
        paper_ids = list(ids() if callable(ids) else ids)
        before = lib.snapshot(paper_ids)
        result = op()
        return Changed(before, lib.snapshot(paper_ids), result)

    def done(out: Changed) -> None:
        if out.before != out.after:
            push_change(ctx.undo_stack, SnapshotCommand(partial(restore_snapshots, ctx), text, out.before,
                                                        out.after, merge_key))
        if on_done is not None:
            on_done(out.result)

    return ctx.runner.write(job, done, on_error or ctx.on_error)


@dataclass(frozen=True)
class Changed:
    """What an operation's write hands back to the GUI thread: the papers before and after it
    (the undo step) and what the operation returned."""

    before: list[Paper]
    after: list[Paper]
    result: Any


def restore_snapshots(ctx: OpContext, snapshots: list[Paper], remove_ids: list[str]) -> None:
    """Undo/redo: write the snapshots back on the writer thread."""
    lib = ctx.library
    ctx.runner.write(lambda: lib.restore(snapshots, remove_ids=remove_ids), None, ctx.on_error)
