"""The vault's frozen view of a paper, and the only place that touches the Library's internals."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Highlight:
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
    highlights: tuple[Highlight, ...]


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def snapshot(paper: Any) -> PaperSnapshot:
    """A frozen snapshot of what Library.paper()/papers() returns: a dict today, a dataclass soon."""
    year = _get(paper, "year")
    return PaperSnapshot(
        id=str(_get(paper, "id")),
        title=str(_get(paper, "title") or ""),
        abstract=str(_get(paper, "abstract") or ""),
        authors=tuple(str(a) for a in _get(paper, "authors") or ()),
        venue=str(_get(paper, "venue") or ""),
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
        links=tuple(str(u) for u in _get(paper, "links") or ()),
        code_links=tuple(str(u) for u in _get(paper, "code_links") or ()),
        added_at=str(_get(paper, "added_at") or ""),
        updated_at=str(_get(paper, "updated_at") or ""),
        starred=bool(_get(paper, "starred")),
        read=bool(_get(paper, "read")),
        tags=tuple(str(t) for t in _get(paper, "tags") or ()),
        note=str(_get(paper, "note") or ""),
        highlights=tuple(
            Highlight(int(_get(h, "start") or 0), int(_get(h, "end") or 0), str(_get(h, "quote") or ""),
                      str(_get(h, "comment") or ""))
            for h in _get(paper, "highlights") or ()
        ),
    )


def load(library: Any, ids: Sequence[str]) -> dict[str, PaperSnapshot]:
    return {s.id: s for s in (snapshot(p) for p in library.papers(list(ids)))}


# The Library has no public API for these yet; keeping them here means one place to change.
def read_connection(library: Any) -> sqlite3.Connection:
    """This thread's read connection to the library."""
    return library._reader()  # noqa: SLF001


@contextmanager
def write_transaction(library: Any) -> Iterator[tuple[sqlite3.Connection, int]]:
    """The Library's write transaction: (writer connection, the transaction's change sequence)."""
    with library._write() as seq:  # noqa: SLF001
        yield library._wconn, seq  # noqa: SLF001


def index_changed(library: Any) -> None:
    """Let the search index catch up with what a sync wrote."""
    library._index_changes()  # noqa: SLF001
