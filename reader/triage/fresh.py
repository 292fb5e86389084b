"""The "New" view's order: the followed feeds' unread papers best first, by triage's learner
(the same interests and decisions as triage's best first; papers its features lack follow in
the order given, the newest first).

One BestFirst is kept per open library (its features are built once, again when papers
arrive: at 50k papers seconds from the stored word counts), so listing the view again after a
change costs a re-rank (tens of ms), not a build. Runs on a worker thread (the listing's)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from pathlib import Path

from reader.triage.best import BestFirst
from reader.triage.ports import Learning

_held: weakref.WeakKeyDictionary[object, BestFirst] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def best_first(library: Learning, folder: Path | None) -> BestFirst:
    """The library's BestFirst for the New view (made on first use)."""
    with _lock:
        best = _held.get(library)
        if best is None:
            best = _held[library] = BestFirst(library, folder)
        return best


def rank_new(library: Learning, folder: Path | None, candidates: Sequence[str]) -> list[str]:
    """`candidates` (newest first) best first by the user's interests."""
    if len(candidates) < 2:
        return list(candidates)
    best = best_first(library, folder)
    best.ensure(candidates)
    ranking, _ = best.rank(candidates, best.decisions(), why=0, ask_every=0)
    return list(ranking.order)
