"""What the map reads from the store: papers' words (for the layout) and marks (for the colours)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from .papers import PLAIN_SQL
from .sql import chunks, marks

TEXT_BATCH = 2_000


UNREAD, READ, STARRED, TAGGED, SKIPPED = range(5)  # a paper's state on the map, by precedence


class MapMarks(NamedTuple):
    """Every paper's state as the map draws it, column by column from one query (no object
    per paper: 50k of them took half a second to build at every map open)."""

    ids: tuple[str, ...]
    year: tuple[int, ...]  # 0: unknown
    state: tuple[int, ...]  # UNREAD .. SKIPPED: starred over tagged over skipped over read
    tag: tuple[str, ...]  # the first tag by name ("": none)
    title: tuple[str, ...]

    def row_of(self) -> dict[str, int]:
        return dict(zip(self.ids, range(len(self.ids)), strict=True))


def all_ids(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT id FROM papers ORDER BY id")]


def _text(title: str | None, source: str | None, abstract: str | None) -> str:
    head = "" if source == "derived" else (title or "")
    return f"{head}\n{abstract or ''}"


def _label_text(title: str | None, source: str | None, abstract: str | None) -> str | None:
    """The words a region's label must be found in: the abstract alone (a title carries words its
    abstract lacks), the title only when there is no abstract; None when that is `_text`'s words."""
    if not (abstract or "").strip() or source == "derived" or not title:
        return None
    return abstract


def texts(conn: sqlite3.Connection, ids: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(id, the words the map compares) of each paper: its plain abstract, and its title when
    it was given or typed (a title derived from the abstract would count its words twice)."""
    for part in chunks(list(ids)):
        rows = conn.execute(
            f"SELECT id, title, title_source, {PLAIN_SQL} FROM papers WHERE id IN ({marks(len(part))})", part)
        for pid, title, source, abstract in rows.fetchall():  # fetchall: no Python step per row
            yield pid, _text(title, source, abstract)


def all_texts(conn: sqlite3.Connection) -> Iterator[tuple[str, str]]:
    """(id, words as `texts` gives them) of every paper in id order, read TEXT_BATCH rows at a
    time: a full layout never holds every abstract at once."""
    rows = conn.cursor()
    rows.execute(f"SELECT id, title, title_source, {PLAIN_SQL} FROM papers ORDER BY id")
    while batch := rows.fetchmany(TEXT_BATCH):
        for pid, title, source, abstract in batch:
            yield pid, _text(title, source, abstract)


def label_texts(conn: sqlite3.Connection, ids: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """(id, the words its region's label is checked against: see _label_text) of each paper."""
    for part in chunks(list(ids)):
        rows = conn.execute(
            f"SELECT id, title, title_source, {PLAIN_SQL} FROM papers WHERE id IN ({marks(len(part))})", part)
        for pid, title, source, abstract in rows.fetchall():
            yield pid, _label_text(title, source, abstract)


def all_parts(conn: sqlite3.Connection) -> Iterator[tuple[str, str, str]]:
    """(id, title words, abstract) of every paper in id order, as all_texts reads them: `_text`
    of a paper is its title words, a new line and its abstract (the title words are "" for a
    title derived from the abstract). The map reads the two apart: its labels count abstracts."""
    rows = conn.cursor()
    rows.execute(f"SELECT id, title, title_source, {PLAIN_SQL} FROM papers ORDER BY id")
    while batch := rows.fetchmany(TEXT_BATCH):
        for pid, title, source, abstract in batch:
            yield pid, "" if source == "derived" else (title or ""), abstract or ""


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {r[1] for r in conn.execute("PRAGMA table_info(papers)")}


_MARKS_SQL = (
    "SELECT p.id, COALESCE(p.year, 0),"
    " CASE WHEN p.starred THEN {starred} WHEN ft.tag IS NOT NULL THEN {tagged}"
    " WHEN {skipped} THEN {skip} WHEN p.read THEN {read} ELSE {unread} END,"
    " COALESCE(ft.tag, ''), COALESCE(p.title, '')"
    " FROM papers p LEFT JOIN (SELECT pt.paper_id AS pid, MIN(t.name) AS tag FROM paper_tags pt"
    " JOIN tags t ON t.id = pt.tag_id {tag_where} GROUP BY pt.paper_id) ft ON ft.pid = p.id {where}")


def _marks_query(conn: sqlite3.Connection, tag_where: str = "", where: str = "") -> str:
    skipped = "p.skipped" if "skipped" in _columns(conn) else "0"
    return _MARKS_SQL.format(starred=STARRED, tagged=TAGGED, skipped=skipped, skip=SKIPPED, read=READ,
                             unread=UNREAD, tag_where=tag_where, where=where)


def _columnar(rows: list[tuple]) -> MapMarks:
    if not rows:
        return MapMarks((), (), (), (), ())
    ids, year, state, tag, title = zip(*rows, strict=True)
    return MapMarks(ids, year, state, tag, title)


def map_marks(conn: sqlite3.Connection) -> MapMarks:
    """Every paper's year, state, first tag and title (a skipped column may not exist yet).
    A scan of the whole papers table (half a second at 50k: the rows hold the abstracts);
    reader.map.marks keeps a derived copy and reads only the papers changed since."""
    return _columnar(conn.execute(_marks_query(conn)).fetchall())


def marks_of(conn: sqlite3.Connection, ids: Sequence[str]) -> MapMarks:
    """The marks of the given papers that exist (any order)."""
    rows: list[tuple] = []
    for part in chunks(list(ids)):
        inside = f"IN ({marks(len(part))})"
        rows += conn.execute(_marks_query(conn, f"WHERE pt.paper_id {inside}", f"WHERE p.id {inside}"),
                             [*part, *part]).fetchall()
    return _columnar(rows)
