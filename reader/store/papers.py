"""Queries over the papers table: rows for the list, full papers, flags, titles (no transactions here)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..identity import arxiv_key, doi_key, ident_key, links_openreview, title_key
from ..models import Paper, TitleSource, TriageSignals, ViewKind, paper_id_for, without_controls
from ..venues import venue_name
from . import groups, notes, tags
from . import highlights as hl
from .citekeys import KeyAllocator
from .sql import chunks, marks, now_iso
from .tags import clean_tag, clean_tags  # noqa: F401 - re-exported: callers import them from here
from .views import View, where_for

# The plain text of an abstract (LaTeX rendered, markup dropped) is stored in abstract_text only
# when it differs from the abstract: about half of all abstracts have no markup, and storing them
# twice was a seventh of the database (m0018_plain_text_once). '' there means "the abstract
# itself"; a plain text that is empty while its abstract is not is stored as ' ' (a plain text is
# never blank otherwise: it is stripped). Writers go through stored_plain(), readers select
# PLAIN_SQL (or plain_sql("p.") with a table alias).
SAME_AS_ABSTRACT = ""
EMPTY_PLAIN = " "


def plain_sql(prefix: str = "") -> str:
    """The SQL expression giving a row's plain text (prefix: the papers table's alias and a dot)."""
    return (f"CASE {prefix}abstract_text WHEN '{SAME_AS_ABSTRACT}' THEN {prefix}abstract "
            f"WHEN '{EMPTY_PLAIN}' THEN '' ELSE {prefix}abstract_text END")


PLAIN_SQL = plain_sql()


def stored_plain(abstract: str, plain: str) -> str:
    """What abstract_text holds for this plain text of this abstract (see PLAIN_SQL)."""
    if plain == abstract:
        return SAME_AS_ABSTRACT
    return plain or EMPTY_PLAIN


# A title key and a derived title are stored once too (issue 31, disk: ~13 MB at 100k papers):
# title_key holds '' where ident_key begins with it (ident_key is "title key|first author|
# year", identity.ident_key, and a title key has no '|'), derived_title '' where it is the
# title itself (every paper imported with a title). Writers go through stored_title_key() and
# stored_derived_title() (insert_rows, update_fields, paper_to_row, set_title); readers select
# title_key_sql() / derived_title_sql(). Rows written before keep both in full: they read the same.
def title_key_sql(prefix: str = "") -> str:
    """The SQL expression giving a row's title key (prefix: the papers table's alias and a dot)."""
    return (f"CASE {prefix}title_key WHEN '' THEN substr({prefix}ident_key, 1, instr({prefix}ident_key, '|') - 1) "
            f"ELSE {prefix}title_key END")


def derived_title_sql(prefix: str = "") -> str:
    """The SQL expression giving a row's derived title (the title it was imported with, for an edited one)."""
    return f"CASE {prefix}derived_title WHEN '' THEN {prefix}title ELSE {prefix}derived_title END"


TITLE_KEY_SQL = title_key_sql()
DERIVED_TITLE_SQL = derived_title_sql()


def stored_title_key(tkey: str, ident: str) -> str:
    """What title_key holds for this title key beside this ident_key (see title_key_sql)."""
    return "" if tkey and ident.startswith(tkey + "|") else tkey


def stored_derived_title(title: str, derived: str) -> str:
    """What derived_title holds for this derived title of a paper with this title."""
    return "" if derived == title else derived


@dataclass(frozen=True)
class PaperRow:
    """What the paper table shows for one paper."""

    id: str
    title: str
    method: str
    venue: str
    year: int | None
    starred: bool
    read: bool
    has_note: bool
    tags: tuple[str, ...]
    added_at: str
    first_author: str = ""  # the table shows "first author et al."
    author_count: int = 0
    skipped: bool = False  # "not for me" (triage X)
    group_stars: tuple[str, ...] = ()  # the reading group's members who starred it (reader.group)


@dataclass(frozen=True)
class Counts:
    total: int
    unread: int
    read: int
    starred: int
    with_notes: int
    new: int = 0  # the New view's: the followed feeds' papers not read or skipped
    follows: bool = False  # whether the library follows a feed (the New view is shown only then)


@dataclass(frozen=True)
class TitleFields:
    """What deciding a title edit needs from the stored paper."""

    derived_title: str
    abstract: str
    method: str


def touch(conn: sqlite3.Connection, ids: Iterable[str], seq: int, *, updated: bool = True) -> None:
    """Mark papers changed at seq (so the index picks them up) and, normally, updated now."""
    ids = list(ids)
    ts = now_iso()
    for part in chunks(ids):
        if updated:
            conn.execute(
                f"UPDATE papers SET seq = ?, updated_at = ? WHERE id IN ({marks(len(part))})",
                [seq, ts, *part],
            )
        else:
            conn.execute(f"UPDATE papers SET seq = ? WHERE id IN ({marks(len(part))})", [seq, *part])


def count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM papers").fetchone()[0])


def counts(conn: sqlite3.Connection) -> Counts:
    r = conn.execute(
        "SELECT count(*), coalesce(sum(read = 0), 0), coalesce(sum(read), 0), coalesce(sum(starred), 0), "
        "(SELECT count(*) FROM notes) FROM papers"
    ).fetchone()
    where, params = where_for(View(ViewKind.NEW))
    follows = _follows(conn)
    new = conn.execute(f"SELECT count(*) FROM papers p {where}", params).fetchone()[0] if follows else 0
    return Counts(total=r[0], unread=r[1], read=r[2], starred=r[3], with_notes=r[4], new=new, follows=follows)


def _follows(conn: sqlite3.Connection) -> bool:
    """Whether the library follows a feed (a library opened read-only may predate the table)."""
    try:
        return conn.execute("SELECT EXISTS (SELECT 1 FROM feeds)").fetchone()[0] == 1
    except sqlite3.OperationalError:
        return False


def collections(conn: sqlite3.Connection) -> list[tuple[str, int]]:
    """Each collection (imported file, its groups) with its paper count, by name."""
    return groups.counts(conn)


def ids_with_prefix(conn: sqlite3.Connection, prefix: str, limit: int = 3) -> list[str]:
    """Up to `limit` ids starting with a lower-case hex prefix."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT id FROM papers WHERE id >= ? AND id < ? LIMIT ?", [prefix, prefix + "g", limit]
        )
    ]


def existing_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for part in chunks(list(ids)):
        found.update(
            r[0] for r in conn.execute(f"SELECT id FROM papers WHERE id IN ({marks(len(part))})", part)
        )
    return found


def set_flag(conn: sqlite3.Connection, column: str, ids: Sequence[str], value: bool, seq: int) -> None:
    """Set the starred, read or skipped flag of papers."""
    if column not in ("starred", "read", "skipped"):
        raise ValueError(f"not a paper flag: {column!r}")
    ts = now_iso()
    for part in chunks(list(ids)):
        conn.execute(
            f"UPDATE papers SET {column} = ?, seq = ?, updated_at = ? WHERE id IN ({marks(len(part))})",
            [int(bool(value)), seq, ts, *part],
        )


def title_fields(conn: sqlite3.Connection, paper_id: str) -> TitleFields:
    r = conn.execute(f"SELECT {DERIVED_TITLE_SQL} AS derived_title, abstract, method FROM papers WHERE id = ?",
                     [paper_id]).fetchone()
    return TitleFields(derived_title=r["derived_title"], abstract=r["abstract"], method=r["method"] or "")


def set_title(conn: sqlite3.Connection, paper_id: str, title: str, source: TitleSource) -> None:
    title = " ".join(without_controls(title).split())
    conn.execute(
        # The derived title read from the title until now is kept (SET reads the row as it was).
        f"UPDATE papers SET derived_title = {DERIVED_TITLE_SQL}, title = ?, title_source = ? WHERE id = ?",
        [title[:500], str(source), paper_id]
    )


def abstract_of(conn: sqlite3.Connection, paper_id: str) -> str:
    return str(conn.execute("SELECT abstract FROM papers WHERE id = ?", [paper_id]).fetchone()[0])


def abstracts(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(id, raw abstract) of every paper."""
    return [(r[0], r[1]) for r in conn.execute("SELECT id, abstract FROM papers")]


def set_plain_texts(conn: sqlite3.Connection, texts: Iterable[tuple[str, str]], seq: int) -> None:
    """Store recomputed plain texts, given as (id, text) pairs."""
    conn.executemany(
        f"UPDATE papers SET abstract_text = CASE ?1 WHEN abstract THEN '{SAME_AS_ABSTRACT}' "
        f"WHEN '' THEN '{EMPTY_PLAIN}' ELSE ?1 END, seq = ?2 WHERE id = ?3",
        ((t, seq, pid) for pid, t in texts))


def rows(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, PaperRow]:
    out: dict[str, PaperRow] = {}
    tag_map = tags.tags_for(conn, ids)
    for part in chunks(list(ids)):
        for r in conn.execute(
            "SELECT p.id, p.title, p.method, p.venue, p.year, p.starred, p.read, p.skipped, p.added_at, "
            "json_extract(p.authors, '$[0]') AS first_author, json_array_length(p.authors) AS n_authors, "
            "n.paper_id IS NOT NULL AS has_note, (SELECT json_group_array(g.member) FROM group_state g "
            "WHERE g.paper_id = p.id AND g.star = 1) AS group_stars FROM papers p "
            f"LEFT JOIN notes n ON n.paper_id = p.id WHERE p.id IN ({marks(len(part))})",
            part,
        ):
            out[r["id"]] = PaperRow(
                id=r["id"], title=r["title"], method=r["method"], venue=r["venue"], year=r["year"],
                starred=bool(r["starred"]), read=bool(r["read"]), has_note=bool(r["has_note"]),
                tags=tuple(tag_map.get(r["id"], ())), added_at=r["added_at"],
                first_author=r["first_author"] or "", author_count=r["n_authors"] or 0,
                skipped=bool(r["skipped"]), group_stars=tuple(sorted(json.loads(r["group_stars"] or "[]"))),
            )
    return out


MAX_TITLE_WORDS = 8


def title_matches(conn: sqlite3.Connection, words: Sequence[str], limit: int) -> list[str]:
    """Ids of papers whose title holds every word (case-insensitive substrings), newest first:
    what a search can show while the index is still being built. One scan of the titles at
    most, stopped at `limit` matches."""
    words = [w for w in words if w][:MAX_TITLE_WORDS]
    if not words:
        return []
    where = " AND ".join("title LIKE ? ESCAPE '\\'" for _ in words)
    params = ["%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%" for w in words]
    sql = f"SELECT id FROM papers WHERE {where} ORDER BY rowid DESC LIMIT ?"
    return [r[0] for r in conn.execute(sql, [*params, int(limit)])]


def papers_full(conn: sqlite3.Connection, ids: Sequence[str]) -> list[Paper]:
    """Full papers (row, tags, note, highlights) in the order of ids; unknown ids skipped."""
    ids = list(ids)
    tag_map = tags.tags_for(conn, ids)
    note_map = notes.notes_for(conn, ids)
    hl_map = hl.highlights_for(conn, ids)
    coll_map = groups.collections_of(conn, ids)
    base: dict[str, sqlite3.Row] = {}
    for part in chunks(ids):
        for r in conn.execute(f"SELECT rowid AS position, * FROM papers WHERE id IN ({marks(len(part))})", part):
            base[r["id"]] = r
    out = []
    for pid in ids:
        r = base.get(pid)
        if r is None:
            continue
        note, note_ts = note_map.get(pid, ("", None))
        out.append(Paper(
            id=pid,
            title=r["title"],
            title_source=TitleSource(r["title_source"]),
            derived_title=r["derived_title"] or r["title"],  # '' stands for the title
            abstract=r["abstract"],
            venue=r["venue"],
            year=r["year"],
            authors=json.loads(r["authors"]),
            links=json.loads(r["links"]),
            code_links=json.loads(r["code_links"]),
            method=r["method"],
            collection=r["collection"],
            collections=coll_map.get(pid, []),
            sources=json.loads(r["sources"]),
            added_at=r["added_at"],
            updated_at=r["updated_at"],
            read=bool(r["read"]),
            starred=bool(r["starred"]),
            skipped=bool(r["skipped"]),
            tags=tag_map.get(pid, []),
            note=note,
            note_updated_at=note_ts,
            highlights=hl_map.get(pid, []),
            citation_key=r["citation_key"],
            entry_type=r["entry_type"],
            status=r["status"],
            position=r["position"],
        ))
    return out


def _json(items: Sequence[str]) -> str:
    return json.dumps(list(items), ensure_ascii=False)


def paper_to_row(p: Paper, seq: int, abstract_text: str) -> dict[str, Any]:
    """The papers-table row for a full paper; its plain text is derived by the caller."""
    keys = identity_columns(p)
    return {
        "id": p.id,
        "title": p.title,
        "title_source": str(p.title_source),
        "derived_title": stored_derived_title(p.title, p.derived_title or p.title),
        "abstract": p.abstract,
        "abstract_text": stored_plain(p.abstract, abstract_text),
        "venue": p.venue,
        "year": p.year,
        "authors": _json(p.authors),
        "links": _json(p.links),
        "code_links": _json(p.code_links),
        "method": p.method,
        "collection": p.collection,
        "sources": _json(p.sources),
        "added_at": p.added_at or now_iso(),
        "updated_at": p.updated_at or now_iso(),
        "read": int(p.read),
        "starred": int(p.starred),
        "skipped": int(p.skipped),
        "seq": seq,
        "citation_key": p.citation_key,
        "entry_type": p.entry_type,
        "status": p.status,
        **keys,
        "title_key": stored_title_key(keys["title_key"], keys["ident_key"]),
    }


def identity_columns(p: Paper) -> dict[str, str]:
    """The identity and venue keys of a full paper (identity.py), as stored with its row."""
    real = p.title if p.title_source == TitleSource.IMPORTED else (
        p.derived_title if p.title_source == TitleSource.EDITED else "")
    tkey = title_key(real)
    doi = next((k for k in map(doi_key, p.links) if k), "")
    return {
        "doi": doi, "arxiv": next((k for k in map(arxiv_key, [*p.links, doi]) if k), ""),
        "openreview": links_openreview(p.links),
        "abstract_key": paper_id_for(p.abstract) if p.abstract else "", "title_key": tkey,
        "ident_key": ident_key(tkey, p.authors, p.year),
        "venue_key": venue_name(p.venue).key if p.venue else "",
    }


def insert_rows(conn: sqlite3.Connection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert finished papers-table rows (all with the same columns; abstract_text, when
    given, is the plain text itself: it is stored as stored_plain() says)."""
    if not rows:
        return
    # executemany over a fixed column list: ~5x faster than sqlite-utils' insert_all for 50k rows
    cols = list(rows[0])
    at = {c: i for i, c in enumerate(cols)}
    # (column stored, how: stored_*(first, second)) for the texts kept once (see PLAIN_SQL,
    # title_key_sql and derived_title_sql)
    once = [(at[c], fn, at[a], at[b]) for c, fn, a, b in (
        ("abstract_text", stored_plain, "abstract", "abstract_text"),
        ("derived_title", stored_derived_title, "title", "derived_title"),
        ("title_key", stored_title_key, "title_key", "ident_key")) if c in at and a in at and b in at]

    def values(r: dict[str, Any]) -> list:
        v = [r[c] for c in cols]
        for i, x in [(i, fn(v[a], v[b])) for i, fn, a, b in once]:
            v[i] = x
        return v

    conn.executemany(f"INSERT INTO papers ({', '.join(cols)}) VALUES ({marks(len(cols))})", map(values, rows))
    if "collection" in cols:  # a paper is in the collection it came in
        groups.add_memberships(conn, ((r["id"], r["collection"]) for r in rows))


# The tables a bulk load fills, whose secondary indexes it builds after the rows (bulk_load).
_BULK_TABLES = ("papers", "paper_collections")
# SQLite's page cache during a bulk load (KiB; SQLite's default is 2 MiB): the rows' B-trees
# and the sorter that builds the indexes stay in memory instead of spilling to the WAL.
BULK_CACHE_KIB = 65536


@contextmanager
def bulk_load(conn: sqlite3.Connection) -> Iterator[None]:
    """Inside the caller's transaction, around a bulk insert into an empty library: the
    papers' and their collections' secondary indexes are dropped and made again once the rows
    are in (sorted once instead of one random B-tree insert per row and index: cheaper, and
    the index pages come out full), with a bigger page cache meanwhile.

    The same index definitions are made again (read from sqlite_master), so a unique index
    still refuses duplicates, then. On an exception they are not remade here: the caller's
    transaction rolls back, and the DROPs with it."""
    defs = conn.execute(
        f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
        f"AND tbl_name IN ({marks(len(_BULK_TABLES))}) ORDER BY name", _BULK_TABLES).fetchall()
    cache = conn.execute("PRAGMA cache_size").fetchone()[0]
    conn.execute(f"PRAGMA cache_size = {-BULK_CACHE_KIB}")
    try:
        for name, _ in defs:
            conn.execute(f'DROP INDEX "{name}"')
        yield
        for _, sql in defs:
            conn.execute(sql)
    finally:
        conn.execute(f"PRAGMA cache_size = {int(cache)}")


def write_paper_state(conn: sqlite3.Connection, p: Paper, seq: int, abstract_text: str,
                      keys: KeyAllocator | None = None) -> None:
    """Write a full paper back exactly: row, tags, note and highlights (its citation key too,
    unless another paper took it meanwhile: then it gets a new one)."""
    row: dict[str, Any] = paper_to_row(p, seq, abstract_text)
    row["citation_key"] = (keys or KeyAllocator(conn)).for_restore(p.id, p.citation_key, p.authors, p.year,
                                                         p.title, p.method)
    if p.position is not None and conn.execute(
            "SELECT NOT EXISTS (SELECT 1 FROM papers WHERE rowid = ? OR id = ?)", [p.position, p.id]).fetchone()[0]:
        row = {"rowid": p.position, **row}  # a deleted paper back in its place (the list's order)
    cols = list(row)
    # An upsert, not INSERT OR REPLACE: REPLACE deletes the row first, cascading to its children.
    updates = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in ("id", "rowid"))
    conn.execute(
        f"INSERT INTO papers ({', '.join(cols)}) VALUES ({marks(len(cols))}) "
        f"ON CONFLICT (id) DO UPDATE SET {updates}",
        [row[c] for c in cols],
    )
    conn.execute("DELETE FROM tombstones WHERE paper_id = ?", [p.id])
    tags.set_tags(conn, p.id, p.tags)
    groups.set_collections(conn, p.id, p.collections or ([p.collection] if p.collection else []))
    notes.set_note(conn, p.id, p.note, p.note_updated_at)
    hl.replace_all(conn, p.id, p.highlights)


def add_source(conn: sqlite3.Connection, ids: Iterable[str], source: str) -> None:
    """Remember that papers also came from this file (not a searchable change: no seq bump)."""
    for pid in dict.fromkeys(ids):
        row = conn.execute("SELECT sources FROM papers WHERE id = ?", [pid]).fetchone()
        sources = json.loads(row[0])
        if source not in sources:
            sources.append(source)
            conn.execute("UPDATE papers SET sources = ? WHERE id = ?", [json.dumps(sources), pid])


def delete_papers(conn: sqlite3.Connection, ids: Sequence[str], seq: int) -> None:
    """Delete papers (their tags links, notes and highlights cascade) and leave tombstones for the index."""
    for part in chunks(list(ids)):
        conn.execute(f"DELETE FROM papers WHERE id IN ({marks(len(part))})", part)
        conn.executemany(
            "INSERT OR REPLACE INTO tombstones (paper_id, seq) VALUES (?, ?)", [(i, seq) for i in part]
        )


IDENTITY_COLUMNS = ("doi", "arxiv", "openreview", "abstract_key", "ident_key", "citation_key")


def candidate_rows(conn: sqlite3.Connection, values: dict[str, set[str]], ids: Sequence[str]) -> list[sqlite3.Row]:
    """The identity keys of stored papers sharing a DOI, arXiv id, abstract, title + first
    author + year or citation key with `values` (per column), or having one of `ids`."""
    found: dict[str, sqlite3.Row] = {}
    cols = f"id, abstract_key, {TITLE_KEY_SQL} AS title_key, doi, arxiv, ident_key, citation_key, openreview"
    for column in IDENTITY_COLUMNS:
        for part in chunks(sorted(values.get(column, ()))):
            for r in conn.execute(f"SELECT {cols} FROM papers WHERE {column} IN ({marks(len(part))})", part):
                found[r["id"]] = r
    for part in chunks(list(ids)):
        for r in conn.execute(f"SELECT {cols} FROM papers WHERE id IN ({marks(len(part))})", part):
            found[r["id"]] = r
    return list(found.values())


def identity_row(conn: sqlite3.Connection, pid: str) -> dict[str, Any] | None:
    """What filling a stored paper from a duplicate entry needs to see of it."""
    r = conn.execute(
        "SELECT title, title_source, abstract, method, code_links, venue, year, authors, links, doi, arxiv, "
        "openreview, status FROM papers WHERE id = ?", [pid]).fetchone()
    return dict(r) if r is not None else None


FILLABLE = frozenset({"abstract", "abstract_text", "abstract_key", "method", "code_links", "title",
                      "title_source", "derived_title", "venue", "venue_key", "year", "authors",
                      "links", "doi", "arxiv", "title_key", "ident_key", "openreview", "status",
                      "entry_type"})


def update_fields(conn: sqlite3.Connection, pid: str, values: dict[str, Any], seq: int) -> None:
    """Set some columns of one paper (a merge filling what it lacked), marking it changed.
    abstract_text, when given, is the plain text itself (stored as stored_plain() says)."""
    cols = [c for c in values if c in FILLABLE]
    if not cols:
        return
    if "abstract_text" in values or "abstract" in values:
        # '' in abstract_text stands for the abstract: a new abstract alone keeps the old plain text
        stored = conn.execute(f"SELECT abstract, {PLAIN_SQL} FROM papers WHERE id = ?", [pid]).fetchone()
        if stored is None:
            return
        abstract = values.get("abstract", stored[0])
        values = {**values, "abstract_text": stored_plain(abstract, values.get("abstract_text", stored[1]))}
        cols = [c for c in values if c in FILLABLE]
    if {"title", "derived_title", "title_key", "ident_key"} & set(cols):
        # Each of these is stored beside its pair (see title_key_sql): both written again.
        now = conn.execute(f"SELECT title, {DERIVED_TITLE_SQL}, {TITLE_KEY_SQL}, ident_key FROM papers WHERE id = ?",
                           [pid]).fetchone()
        if now is None:
            return
        title, ident = values.get("title", now[0]), values.get("ident_key", now[3])
        values = {**values, "title": title, "ident_key": ident,
                  "derived_title": stored_derived_title(title, values.get("derived_title", now[1])),
                  "title_key": stored_title_key(values.get("title_key", now[2]), ident)}
        cols = [c for c in values if c in FILLABLE]
    sets = ", ".join(f"{c} = ?" for c in cols)
    conn.execute(f"UPDATE papers SET {sets}, seq = ?, updated_at = ? WHERE id = ?",
                 [*(values[c] for c in cols), seq, now_iso(), pid])


def texts(conn: sqlite3.Connection) -> list[tuple[str, str, str, bool]]:
    """(id, title, plain abstract, the title is the paper's own) of every paper, in the store's
    order: what triage learns from (a title derived from the abstract repeats its words)."""
    return [(r[0], r[1], r[2], r[3] != "derived") for r in conn.execute(
        f"SELECT id, title, {PLAIN_SQL}, title_source FROM papers ORDER BY rowid")]


def signals(conn: sqlite3.Connection) -> TriageSignals:
    """What the user told triage, in one read: starred, skipped and read (not starred/skipped)
    ids, each tag's papers, and the papers with a note or a highlight."""
    starred: list[str] = []
    skipped: list[str] = []
    read: list[str] = []
    # From the partial index of the decided papers (m0024: at 100k papers 1.4 ms, against 57 ms
    # for a scan of the table, at every re-rank's and undo's read), then in the store's order.
    decided = sorted(tuple(r) for r in conn.execute(
        "SELECT rowid, id, starred, skipped FROM papers WHERE starred = 1 OR skipped = 1 OR read = 1"))
    for _, pid, star, skip in decided:
        (starred if star else skipped if skip else read).append(pid)
    tagged: dict[str, list[str]] = {}
    for pid, name in conn.execute(
            "SELECT pt.paper_id, t.name FROM paper_tags pt JOIN tags t ON t.id = pt.tag_id ORDER BY pt.rowid"):
        tagged.setdefault(name, []).append(pid)
    noted = [r[0] for r in conn.execute(
        "SELECT paper_id FROM notes UNION SELECT paper_id FROM highlights")]
    return TriageSignals(starred=starred, skipped=skipped, read=read, tagged=tagged, noted=noted)


_METADATA = (f"title, title_source, {DERIVED_TITLE_SQL} AS derived_title, abstract, {PLAIN_SQL} AS abstract_text, "
             "method, "
             "code_links, venue, year, authors, links, doi, arxiv, openreview, status, entry_type")


def metadata_row(conn: sqlite3.Connection, pid: str) -> dict[str, Any] | None:
    """What updating a stored paper from a fetched record compares (reader/library/fetched.py)."""
    r = conn.execute(f"SELECT {_METADATA} FROM papers WHERE id = ?", [pid]).fetchone()
    return dict(r) if r is not None else None
