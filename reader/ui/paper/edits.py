"""The paper pane's edits as undoable operations: star, read, tags, title, citation key and
highlights (each through `reader.ui.operations`, on the writer thread, one undo step each)."""

from __future__ import annotations

from collections.abc import Callable

from ..context import OpContext
from ..operations import IdsArg, highlights, papers
from .pane import PaperPane


def connect_edits(pane: PaperPane, ops: OpContext, bulk_ids: Callable[[], IdsArg]) -> None:
    """Wire the pane's edit signals; star, read and added tags apply to `bulk_ids()` (the
    selection), the rest to the paper shown."""
    pane.starToggled.connect(lambda on: papers.set_starred(ops, bulk_ids(), on))
    pane.readToggled.connect(lambda on: papers.set_read(ops, bulk_ids(), on))
    pane.tagAdded.connect(lambda tag: papers.add_tags(ops, bulk_ids(), [tag]))
    pane.tagRemoved.connect(lambda tag: papers.remove_tags(ops, [pane.paper_id] if pane.paper_id else [], [tag]))
    pane.titleEdited.connect(lambda title: papers.set_title(ops, pane.paper_id, title))
    pane.citationKey.keyEdited.connect(
        lambda key: papers.set_citation_key(ops, pane.paper_id, key, pane.citationKey.revert))
    pane.highlightRequested.connect(
        lambda s, e, c, comment: highlights.add_highlight(ops, pane.paper_id, s, e, c, comment))
    pane.highlightRemoveRequested.connect(lambda hid: highlights.remove_highlight(ops, pane.paper, hid))
    pane.highlightCommentRequested.connect(lambda hid: highlights.ask_highlight_comment(ops, pane.paper, hid))
