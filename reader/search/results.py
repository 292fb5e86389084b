"""Result types returned by SearchIndex.search."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Hit:
    """One matching paper; `snippet` is safe HTML with matched words in <b>…</b>."""

    id: str
    score: float
    snippet: str = ""


@dataclass
class SearchResults:
    """Hits (best first) plus what the GUI needs to explain the query."""

    query: str
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    problem: str | None = None  # what was wrong with the query, if anything
    suggestion: str | None = None  # "did you mean" query when nothing matched
    terms: list[str] = field(default_factory=list)  # words to highlight (lowercase)
    filters_only: bool = False  # only is:/has: filters: the caller may keep its own order

    @property
    def ids(self) -> list[str]:
        return [h.id for h in self.hits]
