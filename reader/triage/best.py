"""Best first that learns: one library's features (built once, again when papers arrive), the
user's decisions, and the ranking and why-lines of `interests.Learner`.

Thread use: `build` runs on a worker of its own (seconds at 50k papers: the words of every
abstract), `rank` on the ranking worker; a new build swaps the learner in one assignment."""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence

from reader.triage.features import build
from reader.triage.interests import Decisions, Learner, Ranking
from reader.triage.ports import Learning

WHY_AHEAD = 40  # why-lines computed with each ranking: the cards prefetched next


class BestFirst:
    """Holds the learner of one library between decisions (a derived value, never stored)."""

    def __init__(self, library: Learning) -> None:
        self.library = library
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
        """(Re)build the features from the library's texts."""
        with self._lock:  # two builds at once would only do the work twice
            self.learner = Learner(build(self.library.paper_texts()))

    def ensure(self, ids: Collection[str]) -> Learner:
        if not self.covers(ids):
            self.build()
        assert self.learner is not None
        return self.learner

    def decisions(self) -> Decisions:
        return Decisions.from_signals(self.library.triage_signals())

    def rank(self, candidates: Sequence[str], decisions: Decisions, *, why: int = WHY_AHEAD) -> tuple[Ranking, dict[str, str]]:
        """(the ranking, why-lines of its first `why` papers); the features must be built."""
        learner = self.learner
        if learner is None:
            raise RuntimeError("best first: the features are not built yet")
        ranking = learner.rank(candidates, decisions)
        lines = {pid: learner.why(pid, ranking.interest_of.get(pid)) for pid in ranking.order[:why]}
        return ranking, lines
