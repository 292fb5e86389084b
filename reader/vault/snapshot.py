"""The vault's frozen view of a paper, and the only place that talks to the Library's store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from ..models import Paper
from .library import VaultLibrary


@dataclass(frozen=True)
class SnapshotHighlight:
    start: int
    end: int
    quote: str
    comment: str


@dataclass(frozen=True)
class PaperSnapshot:
    """What the vault needs of one paper, as Reader holds it."""

    id: str
    title: str
    abstract: str
    authors: tuple[str, ...]
    venue: str
    year: int | None
    links: tuple[str, ...]
    code_links: tuple[str, ...]
    added_at: str
    updated_at: str
    starred: bool
    read: bool
    tags: tuple[str, ...]
    note: str
    highlights: tuple[SnapshotHighlight, ...]


def snapshot(paper: Paper) -> PaperSnapshot:
    """A frozen snapshot of one paper as Library.papers() returns it."""
    year = paper.year
    return PaperSnapshot(
        id=str(paper.id),
        title=paper.title or "",
        abstract=paper.abstract or "",
        authors=tuple(str(a) for a in paper.authors or ()),
        venue=paper.venue or "",
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
        links=tuple(str(u) for u in paper.links or ()),
        code_links=tuple(str(u) for u in paper.code_links or ()),
        added_at=paper.added_at or "",
        updated_at=paper.updated_at or "",
        starred=bool(paper.starred),
        read=bool(paper.read),
        tags=tuple(str(t) for t in paper.tags or ()),
        note=paper.note or "",
        highlights=tuple(SnapshotHighlight(int(h.start or 0), int(h.end or 0), h.quote or "", h.comment or "")
                         for h in paper.highlights or ()),
    )


def load(library: VaultLibrary, ids: Sequence[str]) -> dict[str, PaperSnapshot]:
    return {s.id: s for s in (snapshot(p) for p in library.papers(list(ids)))}


# Through the library's public API; the one place to change when it changes.
def read_connection(library: VaultLibrary) -> sqlite3.Connection:
    """This thread's read connection to the library."""
    return library.read_connection()


@contextmanager
def write_transaction(library: VaultLibrary) -> Iterator[tuple[sqlite3.Connection, int]]:
    """The Library's write transaction: (writer connection, the transaction's change sequence)."""
    with library.write_transaction() as (conn, seq):
        yield conn, seq


def index_changed(library: VaultLibrary) -> None:
    """Let the search index catch up with what a sync wrote."""
    library.index_changed()
