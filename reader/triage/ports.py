"""The reads triage needs from the library, as small protocols (the Library satisfies them;
triage never imports it, and tests can hand in a stand-in)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Protocol

from reader.models import Paper, TriageSignals
from reader.search.results import SearchResults
from reader.store.papers import Counts, PaperRow
from reader.store.views import View


class Similar(Protocol):
    """What "best first" ranks with."""

    def more_like(self, ids: Iterable[str], limit: int = ..., *,
                  exclude: Iterable[str] = ()) -> list[tuple[str, float]]:
        """Papers most like `ids`, best first; `ids` and `exclude` left out."""

    def counts(self) -> Counts:
        """How many papers the library holds (and per flag)."""


class TriageLibrary(Similar, Protocol):
    """Every read the triage queue, its cards and its summary make."""

    def paper_ids(self, view: View = ..., sort: str = ..., descending: bool = ...) -> list[str]:
        """A view's ids in (sort, descending) order."""

    def search(self, query: str, *, view: View | None = None, limit: int | None = ...,
               as_you_type: bool = False) -> SearchResults:
        """The query's hits within the view."""

    def tags(self) -> list[tuple[str, int]]:
        """(tag, papers) pairs."""

    def rows(self, ids: Sequence[str]) -> dict[str, PaperRow]:
        """The table rows of `ids` (unknown ids left out)."""

    def papers(self, ids: Sequence[str]) -> list[Paper]:
        """The full papers of `ids` (unknown ids left out)."""


class Learning(Protocol):
    """What the learning best-first order reads: every paper's words and the user's decisions."""

    def read_connection(self) -> sqlite3.Connection:
        """This thread's read connection (the change sequence that stamps the stored counts)."""

    def paper_texts(self) -> list[tuple[str, str, str, bool]]:
        """(id, title, plain abstract, the title is the paper's own) of every paper."""

    def triage_signals(self) -> TriageSignals:
        """Starred, skipped, read, tagged (tag -> ids) and annotated paper ids."""
