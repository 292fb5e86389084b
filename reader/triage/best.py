"""Best first that learns: one library's features (built once, again when papers arrive), the
user's decisions, and the ranking and why-lines of `interests.Learner`.

Thread use: `build` runs on a worker of its own (at 50k papers: seconds from the word counts
kept in the library folder, `feature_store`; more the first time, counting every abstract's
words), `rank` on the ranking worker; a new build swaps the learner in one assignment."""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from pathlib import Path

from reader.store.group_triage import hints as group_hints
from reader.store.group_triage import share_first
from reader.triage import feature_store
from reader.triage.interests import ASK_EVERY, ASKED, Decisions, InterestRanking, Learner
from reader.triage.ports import Learning

WHY_AHEAD = 40  # why-lines computed with each ranking: the cards prefetched next


class BestFirst:
    """Holds the learner of one library between decisions (a derived value, never stored)."""

    def __init__(self, library: Learning, folder: Path | None = None) -> None:
        self.library = library
        self.folder = folder  # the library folder, where the word counts are kept (None: not kept)
        self.learner: Learner | None = None
        self._lock = threading.Lock()

    def covers(self, ids: Collection[str]) -> bool:
        """The features know every paper of `ids` (else a build is due: papers arrived)."""
        learner = self.learner
        if learner is None:
            return False
        index = learner.features.index
        return all(pid in index for pid in ids)

    def build(self) -> None:
        """(Re)build the features from the library's stored counts or texts."""
        with self._lock:  # two builds at once would only do the work twice
            self.learner = Learner(feature_store.current(self.library, self.folder))

    def ensure(self, ids: Collection[str]) -> Learner:
        if not self.covers(ids):
            self.build()
        assert self.learner is not None
        return self.learner

    def decisions(self) -> Decisions:
        signals = self.library.triage_signals()
        _share, group_stars = self._group()
        if group_stars:  # the member chose to learn from the reading group's stars too
            signals = {**signals, "starred": list(dict.fromkeys([*signals.get("starred", []), *group_stars]))}
        return Decisions.from_signals(signals)

    def _group(self) -> tuple[set[str], list[str]]:
        """The reading group's hints (reader.store.group_triage); none for a stand-in library."""
        connect = getattr(getattr(self, "library", None), "read_connection", None)
        return group_hints(connect()) if connect is not None else (set(), [])

    def rank(self, candidates: Sequence[str], decisions: Decisions, *, why: int = WHY_AHEAD,
             ask_every: int = ASK_EVERY, shown: int = 0,
             also: Sequence[str] = ()) -> tuple[InterestRanking, dict[str, str]]:
        """(the ranking, why-lines of its first `why` papers and of `also`: papers not ranked
        that need one, the one on screen); the features must be built. An asked paper's line
        says so first."""
        learner = self.learner
        if learner is None:
            raise RuntimeError("best first: the features are not built yet")
        ranking = learner.rank(candidates, decisions, ask_every=ask_every, shown=shown)
        share, _stars = self._group()
        ranking.order = share_first(ranking.order, share)  # a divided list: this member's share first
        lines = {}
        for pid in ranking.order[:why]:
            line = learner.why(pid, ranking.interest_of.get(pid))
            lines[pid] = " · ".join(filter(None, (ASKED, line))) if pid in ranking.asked else line
        for pid in also:
            if pid not in lines:
                lines[pid] = learner.why(pid)
        return ranking, lines
