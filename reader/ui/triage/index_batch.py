"""While triage is open, its decisions' index updates go in batches (IndexUpkeep.batch).

A star, skip or read mark re-indexed its paper at once: a delete, an add and a commit, ~0.1 s
of writer CPU at 100k papers holding the GIL the window needs. In triage one catch-up covers
INDEX_BATCH decisions. Each decision stays its own transaction, acknowledged once committed; a
search settles the batch first (Library.search), and leaving triage indexes the rest on the
writer, after the decisions queued there. Closing the window in triage leaves at most
INDEX_BATCH - 1 papers to the next start's catch-up (the index is derived)."""

from __future__ import annotations

from ..pages import PageContext

INDEX_BATCH = 10


def begin(ctx: PageContext) -> None:
    ctx.library.batch_index_syncs(INDEX_BATCH)


def end(ctx: PageContext) -> None:
    lib = ctx.library
    lib.batch_index_syncs(0)
    ctx.runner.write(lib.settle_index, None, ctx.on_error)
