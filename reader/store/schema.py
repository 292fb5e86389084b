"""The versioned schema: sqlite-utils migrations, with a file copy taken before migrating."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils
from sqlite_utils.migrations import Migrations

from ..models import HighlightColour
from .backups import BEFORE_PREFIX, MIGRATION_SUFFIX, write_backup

SCHEMA_MIGRATIONS = Migrations("reader")


@SCHEMA_MIGRATIONS()
def m0001_initial(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta (key, value) VALUES ('change_seq', '0');
        CREATE TABLE papers (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            title_source TEXT NOT NULL CHECK (title_source IN ('derived', 'imported', 'edited')),
            derived_title TEXT NOT NULL,
            abstract TEXT NOT NULL,
            venue TEXT NOT NULL DEFAULT '',
            year INTEGER,
            authors TEXT NOT NULL DEFAULT '[]',
            links TEXT NOT NULL DEFAULT '[]',
            code_links TEXT NOT NULL DEFAULT '[]',
            method TEXT NOT NULL DEFAULT '',
            collection TEXT NOT NULL DEFAULT '',
            sources TEXT NOT NULL DEFAULT '[]',
            added_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            read INTEGER NOT NULL DEFAULT 0,
            starred INTEGER NOT NULL DEFAULT 0,
            seq INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX papers_seq ON papers (seq);
        CREATE INDEX papers_added ON papers (added_at);
        CREATE INDEX papers_collection ON papers (collection);
        CREATE TABLE tombstones (paper_id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
        CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE COLLATE NOCASE);
        CREATE TABLE paper_tags (
            paper_id TEXT NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
            tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
            PRIMARY KEY (paper_id, tag_id)
        );
        CREATE INDEX paper_tags_tag ON paper_tags (tag_id);
        CREATE TABLE notes (
            paper_id TEXT PRIMARY KEY REFERENCES papers (id) ON DELETE CASCADE,
            body TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE highlights (
            id INTEGER PRIMARY KEY,
            paper_id TEXT NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
            start INTEGER NOT NULL,
            "end" INTEGER NOT NULL,
            quote TEXT NOT NULL,
            color TEXT NOT NULL,
            comment TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL
        );
        CREATE INDEX highlights_paper ON highlights (paper_id);
        CREATE TABLE imports (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL,
            format TEXT NOT NULL,
            imported_at TEXT NOT NULL,
            new INTEGER NOT NULL,
            duplicates INTEGER NOT NULL,
            skipped INTEGER NOT NULL,
            problems TEXT NOT NULL DEFAULT '[]'
        );
        CREATE TABLE saved_searches (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE COLLATE NOCASE,
            query TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        """
    )


@SCHEMA_MIGRATIONS()
def m0002_abstract_text(db: sqlite_utils.Database) -> None:
    """Keep the readable plain text of each abstract, so indexing never re-renders LaTeX."""
    db.execute("ALTER TABLE papers ADD COLUMN abstract_text TEXT NOT NULL DEFAULT ''")
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('text_version', '0')")


@SCHEMA_MIGRATIONS()
def m0003_highlight_colour_names(db: sqlite_utils.Database) -> None:
    """One colour vocabulary: the CLI stored hex values (#ffe066), the GUI names (yellow)."""
    for (value,) in db.execute("SELECT DISTINCT color FROM highlights").fetchall():
        name = str(HighlightColour.coerce(value))
        if name != value:
            db.execute("UPDATE highlights SET color = ? WHERE color = ?", [name, value])


def migrate(db: sqlite_utils.Database, db_path: Path | None, backups_dir: Path | None) -> Path | None:
    """Apply pending migrations; copy the DB file first when it already holds data."""
    pending = SCHEMA_MIGRATIONS.pending(db)
    if not pending:
        _ensure_origin(db)
        return None
    backup = None
    has_data = db_path is not None and db_path.exists() and "papers" in db.table_names()
    if has_data and backups_dir is not None:
        backups_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        # The backup API copies committed pages from the WAL too, unlike a plain file copy.
        backup = write_backup(db.conn, backups_dir / f"{BEFORE_PREFIX}{pending[0].name}-{stamp}{MIGRATION_SUFFIX}")
    SCHEMA_MIGRATIONS.apply(db)
    _ensure_origin(db)
    return backup


def _ensure_origin(db: sqlite_utils.Database) -> None:
    """Every writable library has an origin (derived files name it: changes.origin)."""
    from .changes import ensure_origin, origin

    if not origin(db.conn):
        with db.conn:
            ensure_origin(db.conn)


@SCHEMA_MIGRATIONS()
def m0010_vault_state(db: sqlite_utils.Database) -> None:
    """Markdown vaults: each vault's membership query, and per paper what the last sync wrote."""
    db.executescript(
        """
        -- key: the id in the vault's .reader-vault file, so a moved vault keeps its sync state.
        CREATE TABLE vaults (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            root TEXT NOT NULL,
            query TEXT NOT NULL,
            last_sync_at TEXT
        );
        -- No foreign key to papers: a paper deleted in Reader must still be found here so its
        -- file can be moved to the vault's trash.
        CREATE TABLE vault_files (
            vault_id INTEGER NOT NULL REFERENCES vaults (id) ON DELETE CASCADE,
            paper_id TEXT NOT NULL,
            path TEXT NOT NULL,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            paper_seq INTEGER NOT NULL,
            reader_hash TEXT NOT NULL,
            title_hash TEXT NOT NULL,
            note_hash TEXT NOT NULL,
            tags TEXT NOT NULL,
            starred INTEGER NOT NULL,
            read INTEGER NOT NULL,
            owned_hash TEXT NOT NULL,
            conflict INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (vault_id, paper_id)
        );
        -- Covers what every vault sync reads of all papers (ids, change sequences, the flag
        -- filters of the membership query) without scanning the wide papers table.
        CREATE INDEX papers_vault_sync ON papers (starred, read, id, seq);
        """
    )


@SCHEMA_MIGRATIONS()
def m0011_clean_pdf_text(db: sqlite_utils.Database) -> None:
    """PDF-extraction damage ((cid:NNN), ligatures, line-end hyphens) cleaned in stored papers,
    and method guesses redone from "Name: ..." titles (implausible ones dropped).

    Abstracts stay as imported; their plain texts, titles and highlights (re-anchored) are
    rewritten, and the rows changed get a new change sequence so the index catches up."""
    from ..text import TEXT_VERSION
    from ..text.clean import clean_text
    from ..text.extract import plausible_method, title_method
    from ..text.reanchor import reanchor

    conn = db.conn
    seq = int(conn.execute("SELECT value FROM meta WHERE key = 'change_seq'").fetchone()[0]) + 1
    marks: dict[str, list[tuple[int, int, int, str]]] = {}
    for hid, pid, start, end, quote in conn.execute(
            'SELECT id, paper_id, start, "end", quote FROM highlights ORDER BY paper_id, id'):
        marks.setdefault(pid, []).append((hid, start, end, quote))
    changed = []
    for pid, raw, old_plain, title, derived, source, method in conn.execute(
            "SELECT id, abstract, abstract_text, title, derived_title, title_source, method FROM papers"
    ).fetchall():
        spans = marks.get(pid, [])
        plain, moved = reanchor(raw, old_plain, [(s, e, q) for _, s, e, q in spans])
        new_title = title if source == "edited" else clean_text(title)
        new_derived = clean_text(derived)
        # Method guesses: a "Name: ..." title names it; "ACM", "FFN" and the like are dropped.
        new_method = (title_method(new_title) if source != "derived" else None) or (
            method if plausible_method(method) else "")
        if (plain, new_title, new_derived, new_method) == (old_plain, title, derived, method):
            continue
        changed.append((plain, new_title, new_derived, new_method, seq, pid))
        conn.executemany('UPDATE highlights SET start = ?, "end" = ?, quote = ? WHERE id = ?',
                         [(a, b, q, h[0]) for h, (a, b, q) in zip(spans, moved, strict=True)])
    conn.executemany("UPDATE papers SET abstract_text = ?, title = ?, derived_title = ?, method = ?, "
                     "seq = ? WHERE id = ?", changed)
    if changed:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'change_seq'", [str(seq)])
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('text_version', ?)",
                 [str(TEXT_VERSION)])


@SCHEMA_MIGRATIONS()
def m0012_identity_collections_venues(db: sqlite_utils.Database) -> None:
    """Issue 18: papers may lack an abstract (""), carry identity keys (DOI, arXiv id, the
    abstract's hash, the folded title, title + first author + year) and a venue key; a paper
    is in every collection (imported file, the file's groups) listed in paper_collections.

    Collections that came from a journal field (older imports named the collection after
    the venue) become the file the paper came from; other collections are kept."""
    import json

    from ..identity import Keys, arxiv_key, doi_key, ident_key, title_key
    from ..models import paper_id_for
    from ..venues import venue_name
    from .venues import refold

    conn = db.conn
    for column in ("doi", "arxiv", "abstract_key", "title_key", "ident_key", "venue_key"):
        conn.execute(f"ALTER TABLE papers ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
    for statement in (
        "CREATE INDEX papers_doi ON papers (doi)",
        "CREATE INDEX papers_arxiv ON papers (arxiv)",
        "CREATE INDEX papers_abstract_key ON papers (abstract_key)",
        "CREATE INDEX papers_ident_key ON papers (ident_key)",
        "CREATE INDEX papers_venue_key ON papers (venue_key)",
        "CREATE TABLE paper_collections (paper_id TEXT NOT NULL REFERENCES papers (id) ON DELETE CASCADE, "
        "name TEXT NOT NULL, PRIMARY KEY (paper_id, name))",
        "CREATE INDEX paper_collections_name ON paper_collections (name)",
    ):
        conn.execute(statement)
    updates = []
    for pid, abstract, title, derived, source, venue, year, authors, links, collection, sources in conn.execute(
            "SELECT id, abstract, title, derived_title, title_source, venue, year, authors, links, "
            "collection, sources FROM papers").fetchall():
        real = title if source == "imported" else (derived if source == "edited" else "")
        tkey = title_key(real)
        link_list = json.loads(links)
        doi = next((k for k in map(doi_key, link_list) if k), "")
        arxiv = next((k for k in map(arxiv_key, [*link_list, doi]) if k), "")
        if collection and collection == venue:
            names = json.loads(sources)
            collection = names[0].rsplit(".", 1)[0] if names and names[0] else collection
        keys = Keys(paper_id_for(abstract) if abstract else "", tkey, doi, arxiv,
                    ident_key(tkey, json.loads(authors), year))
        updates.append((keys.doi, keys.arxiv, keys.abstract, keys.title, keys.ident,
                        venue_name(venue).key if venue else "", collection, pid))
    conn.executemany("UPDATE papers SET doi = ?, arxiv = ?, abstract_key = ?, title_key = ?, ident_key = ?, "
                     "venue_key = ?, collection = ? WHERE id = ?", updates)
    conn.execute("INSERT OR IGNORE INTO paper_collections (paper_id, name) "
                 "SELECT id, collection FROM papers WHERE collection != ''")
    refold(conn)


@SCHEMA_MIGRATIONS()
def m0013_citation_keys(db: sqlite_utils.Database) -> None:
    """Citation keys (unique, ignoring case) and the entry type (article, inproceedings, misc)
    for the BibTeX, CSL-JSON and RIS exports; existing papers get keys in the order they were
    added, so the same library always gets the same keys. Not searchable: no seq bump."""
    import json

    from ..text.citekeys import base_key, unique_key

    conn = db.conn
    conn.execute("ALTER TABLE papers ADD COLUMN citation_key TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE papers ADD COLUMN entry_type TEXT NOT NULL DEFAULT ''")
    taken: set[str] = set()
    keys = [
        (unique_key(base_key(json.loads(authors), year, title, method), taken), pid)
        for pid, authors, year, title, method in conn.execute(
            "SELECT id, authors, year, title, method FROM papers ORDER BY rowid").fetchall()
    ]
    conn.executemany("UPDATE papers SET citation_key = ? WHERE id = ?", keys)
    # Partial: a row written without a key (a raw insert) is not a clash; the store always sets one.
    conn.execute("CREATE UNIQUE INDEX papers_citation_key ON papers (citation_key COLLATE NOCASE) "
                 "WHERE citation_key != ''")


@SCHEMA_MIGRATIONS()
def m0014_skipped(db: sqlite_utils.Database) -> None:
    """"Not for me": a persistent triage decision (the learner's negatives, `is:skipped`).

    No paper is skipped yet, so the index needs no catch-up for the `skipped` flag itself; the
    index schema version moved with the documents' new `unskipped` flag (a rebuild)."""
    db.execute("ALTER TABLE papers ADD COLUMN skipped INTEGER NOT NULL DEFAULT 0")


@SCHEMA_MIGRATIONS()
def m0015_sources(db: sqlite_utils.Database) -> None:
    """Fetched papers (issue 28, reader/sources): the OpenReview forum id (an identity key, found
    again in the links of papers already held) and the venue's decision (oral, spotlight,
    poster...); and the followed feeds (`reader feed`: an arXiv category with an optional query,
    the collection its papers land in, when it was last updated and the newest submission seen).
    Not searchable: no seq bump."""
    import json

    from ..identity import links_openreview

    conn = db.conn
    conn.execute("ALTER TABLE papers ADD COLUMN openreview TEXT NOT NULL DEFAULT ''")
    conn.execute("ALTER TABLE papers ADD COLUMN status TEXT NOT NULL DEFAULT ''")
    conn.execute("CREATE INDEX papers_openreview ON papers (openreview)")
    found = [(key, pid) for pid, links in conn.execute(
        "SELECT id, links FROM papers WHERE links LIKE '%openreview.net%'").fetchall()
        if (key := links_openreview(json.loads(links)))]
    conn.executemany("UPDATE papers SET openreview = ? WHERE id = ?", found)
    conn.execute(
        "CREATE TABLE feeds ("
        " id INTEGER PRIMARY KEY,"
        " source TEXT NOT NULL,"
        " category TEXT NOT NULL,"
        " query TEXT NOT NULL DEFAULT '',"
        " collection TEXT NOT NULL,"
        " added_at TEXT NOT NULL,"
        " updated_at TEXT NOT NULL DEFAULT '',"  # the last update that finished ('' never)
        " newest TEXT NOT NULL DEFAULT '',"  # the newest submission date it has seen (UTC ISO)
        " UNIQUE (source, category, query))")


@SCHEMA_MIGRATIONS()
def m0017_group(db: sqlite_utils.Database) -> None:
    """Issue 29: a reading group through a shared folder. The library's membership and the keys
    its records give its papers (group_config, group_own), how far each member's files were read
    (group_files, group_members), the members' merged decisions (group_state: per member and
    paper key, each field with the member's own sequence number) and the local papers' keys
    that the other members' decisions meet (group_keys, derived, rebuilt from papers)."""
    db.executescript(
        """
        CREATE TABLE group_config (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            folder TEXT NOT NULL,
            name TEXT NOT NULL,
            share_notes INTEGER NOT NULL DEFAULT 0,
            tags TEXT NOT NULL DEFAULT 'group' CHECK (tags IN ('group', 'all')),
            own_seq INTEGER NOT NULL DEFAULT 0,
            gen INTEGER NOT NULL DEFAULT 1,
            exported INTEGER NOT NULL DEFAULT -1,
            keyed INTEGER NOT NULL DEFAULT -1,
            best_first_group INTEGER NOT NULL DEFAULT 0,
            joined_at TEXT NOT NULL,
            last_sync_at TEXT
        );
        -- The keys this library's records give each of its papers (fixed once written, so a
        -- paper's records stay on one key even if its DOI arrives later).
        CREATE TABLE group_own (paper_id TEXT PRIMARY KEY, pkey TEXT NOT NULL, keys TEXT NOT NULL);
        CREATE TABLE group_files (
            member TEXT NOT NULL,
            file TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            offset INTEGER NOT NULL,
            PRIMARY KEY (member, file)
        );
        CREATE TABLE group_members (
            name TEXT PRIMARY KEY,
            library TEXT NOT NULL DEFAULT '',
            gen INTEGER NOT NULL DEFAULT 0,
            seen_at TEXT,
            problem TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE group_state (
            member TEXT NOT NULL,
            pkey TEXT NOT NULL,
            keys TEXT NOT NULL,
            paper_id TEXT,
            star INTEGER NOT NULL DEFAULT 0, star_s INTEGER NOT NULL DEFAULT 0,
            skip INTEGER NOT NULL DEFAULT 0, skip_s INTEGER NOT NULL DEFAULT 0,
            read INTEGER NOT NULL DEFAULT 0, read_s INTEGER NOT NULL DEFAULT 0,
            tags TEXT NOT NULL DEFAULT '[]', tags_s INTEGER NOT NULL DEFAULT 0,
            note TEXT NOT NULL DEFAULT '', note_s INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (member, pkey)
        );
        CREATE INDEX group_state_paper ON group_state (paper_id, member);
        CREATE TABLE group_keys (key TEXT NOT NULL, paper_id TEXT NOT NULL, PRIMARY KEY (key, paper_id)) WITHOUT ROWID;
        CREATE INDEX group_keys_paper ON group_keys (paper_id);
        -- The latest division of the work each member published (its shares by paper key).
        CREATE TABLE group_divisions (
            member TEXT PRIMARY KEY,
            seq INTEGER NOT NULL,
            made_at TEXT NOT NULL,
            query TEXT NOT NULL,
            shares TEXT NOT NULL
        );
        INSERT OR IGNORE INTO meta (key, value) VALUES ('library_id', lower(hex(randomblob(16))));
        """
    )


@SCHEMA_MIGRATIONS()
def m0018_plain_text_once(db: sqlite_utils.Database) -> None:
    """Issue 31 (disk): an abstract's plain text is kept only where it differs from the
    abstract ('' stands for the abstract itself, ' ' for an empty plain text; papers.PLAIN_SQL
    reads it back), about a seventh of the database. What every reader sees is unchanged, so
    nothing is re-indexed; the freed pages are reused by later writes (the file itself shrinks
    only with a VACUUM, which this migration does not run: it would hold the write lock)."""
    db.execute(
        "UPDATE papers SET abstract_text = CASE WHEN abstract_text = abstract THEN '' ELSE ' ' END "
        "WHERE abstract != '' AND (abstract_text = abstract OR abstract_text = '')")


@SCHEMA_MIGRATIONS()
def m0019_vault_file_hash(db: sqlite_utils.Database) -> None:
    """Issue 30: the hash of the bytes a vault sync last wrote to each file, kept only while every
    version of the file was Reader's own ('' once the user edited it, and for files synced before
    this version). A paper that leaves the vault's query has its file moved to the vault's .trash
    when the file still hashes to this; an edited file is kept."""
    db.execute("ALTER TABLE vault_files ADD COLUMN file_hash TEXT NOT NULL DEFAULT ''")


@SCHEMA_MIGRATIONS()
def m0020_group_settings(db: sqlite_utils.Database) -> None:
    """Issue 29: the group's settings can change after joining (`reader group set`, or `join`
    again). Taking back notes or private tags sets `purge`: the next export writes this member's
    files again as a new generation without them (their text leaves the shared folder)."""
    db.execute("ALTER TABLE group_config ADD COLUMN purge INTEGER NOT NULL DEFAULT 0")


@SCHEMA_MIGRATIONS()
def m0021_group_state_key_index(db: sqlite_utils.Database) -> None:
    """Issue 29 (a full merge in under a second): group_state's key (member, pkey) becomes a unique
    index instead of the primary key, so that a first sync can load tens of thousands of records
    into the empty table with no index to keep up and then build both indexes by sorting (as it
    already did for the index on paper ids); half the cost of the load. Same columns, same rows."""
    db.executescript(
        """
        CREATE TABLE group_state_new (
            member TEXT NOT NULL,
            pkey TEXT NOT NULL,
            keys TEXT NOT NULL,
            paper_id TEXT,
            star INTEGER NOT NULL DEFAULT 0, star_s INTEGER NOT NULL DEFAULT 0,
            skip INTEGER NOT NULL DEFAULT 0, skip_s INTEGER NOT NULL DEFAULT 0,
            read INTEGER NOT NULL DEFAULT 0, read_s INTEGER NOT NULL DEFAULT 0,
            tags TEXT NOT NULL DEFAULT '[]', tags_s INTEGER NOT NULL DEFAULT 0,
            note TEXT NOT NULL DEFAULT '', note_s INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO group_state_new (member, pkey, keys, paper_id, star, star_s, skip, skip_s, read, read_s,
                                     tags, tags_s, note, note_s)
            SELECT member, pkey, keys, paper_id, star, star_s, skip, skip_s, read, read_s, tags, tags_s, note, note_s
            FROM group_state ORDER BY member, pkey;
        DROP TABLE group_state;
        ALTER TABLE group_state_new RENAME TO group_state;
        CREATE UNIQUE INDEX group_state_key ON group_state (member, pkey);
        CREATE INDEX group_state_paper ON group_state (paper_id, member);
        """
    )


@SCHEMA_MIGRATIONS()
def m0022_group_member_left(db: sqlite_utils.Database) -> None:
    """Issue 29: a member that left the group (its folder holds `left.json`) is marked with when it
    left (NULL while it takes part): it gets no share of a division, its decisions are kept. Run
    again (a migration whose record was lost), it adds nothing."""
    if "left_at" not in db["group_members"].columns_dict:
        db.execute("ALTER TABLE group_members ADD COLUMN left_at TEXT")


@SCHEMA_MIGRATIONS()
def m0023_venue_spellings_index(db: sqlite_utils.Database) -> None:
    """Issue 31: the venue key's index also holds the venue as imported, so the Venues list and a
    refold count the spellings from the index alone (at 100k papers 12 ms instead of 67 ms per
    count: the sidebar counts after every change). Queries on the key alone still use it."""
    db.executescript(
        """
        DROP INDEX IF EXISTS papers_venue_key;
        CREATE INDEX papers_venue_key ON papers (venue_key, venue);
        """
    )


@SCHEMA_MIGRATIONS()
def m0024_decided_papers_index(db: sqlite_utils.Database) -> None:
    """Issue 31: a partial index of the decided papers (starred, "not for me" or read). Triage reads
    them at every re-rank and undo, and the Starred list and its counts use it too: a few thousand
    entries instead of a scan of the papers table (57 ms at 100k papers, 1.4 ms from the index)."""
    db.execute("CREATE INDEX IF NOT EXISTS papers_decided ON papers (starred, skipped, id) "
               "WHERE starred = 1 OR skipped = 1 OR read = 1")
