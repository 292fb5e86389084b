"""Result types returned by SearchIndex.search."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

EXACT_TOTAL_UP_TO = 2000  # count matches exactly when Whoosh estimates at most this many


def strict_total(r, docnums: list, limit: int | None, doc_count: int) -> int:
    """The match count of a strict search whose best `limit` are `docnums` (Whoosh results `r`)."""
    if limit is None or len(docnums) < limit:
        return len(docnums)
    if r.has_exact_length() or r.estimated_length() <= EXACT_TOTAL_UP_TO:
        return len(r)
    # Counting every match would re-run the query; an estimate is enough for "200 of about N".
    return max(len(docnums), min(r.estimated_length(), doc_count))


@dataclass
class Hit:
    """One matching paper; `snippet` is safe HTML with matched words in <b>…</b>, made on
    first access (a table that never shows snippets never pays for them)."""

    id: str
    score: float
    _snippet: str | Callable[[], str] = field(default="", repr=False)

    @property
    def snippet(self) -> str:
        if callable(self._snippet):
            self._snippet = self._snippet()
        return self._snippet


@dataclass
class SearchResults:
    """Hits (best first) plus what the GUI needs to explain the query.

    `hits` is the first page; `total` counts every match (exact for ranked word queries,
    an estimate past EXACT_TOTAL_UP_TO otherwise). `page(start, n)` returns any later
    page without re-running the query while the index is unchanged (as-you-type tables
    show the first page at once and fetch the rest as the user scrolls).
    """

    query: str
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    problem: str | None = None  # what was wrong with the query, if anything
    suggestion: str | None = None  # "did you mean": the query with its typo'd words corrected
    terms: list[str] = field(default_factory=list)  # words to highlight (lowercase)
    filters_only: bool = False  # only is:/has: filters: the caller may keep its own order
    prefix: str | None = None  # the unfinished last word matched as a prefix (as you type)
    ranked: bool = False  # plain words: every word optional, papers with all of them first
    fetch: Callable[[int, int], list[Hit]] | None = field(default=None, repr=False, compare=False)

    @property
    def ids(self) -> list[str]:
        return [h.id for h in self.hits]

    def page(self, start: int, n: int) -> list[Hit]:
        """Hits start..start+n (fewer at the end)."""
        if start + n <= len(self.hits) or self.fetch is None:
            return self.hits[start:start + n]
        return self.fetch(start, n)

    def all_ids(self) -> list[str]:
        """Every matching paper's id, best first (can cost ~1 µs per match)."""
        if self.fetch is None or len(self.hits) >= self.total:
            return self.ids
        return [h.id for h in self.fetch(0, self.total)]


@dataclass(frozen=True)
class Suggestion:
    """A corrected query ("did you mean") and how many papers it finds."""

    text: str
    hits: int
