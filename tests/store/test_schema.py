"""reader.store.schema: migrations run on a copy-protected database and fill derived data."""

from __future__ import annotations

import sqlite3

from reader.library import Library
from reader.models import HighlightColour, paper_id_for
from reader.store import SCHEMA_MIGRATIONS, open_connection, open_database
from reader.store.papers import PLAIN_SQL

PID = "00ff00ff00ff00ff"


def _old_library(root, stop_before: str) -> sqlite3.Connection:
    """A library folder whose database stops before the migration `stop_before`."""
    root.mkdir()
    conn = open_connection(root / "library.sqlite3")
    SCHEMA_MIGRATIONS.apply(open_database(conn), stop_before=stop_before)
    conn.execute(
        "INSERT INTO papers (id, title, title_source, derived_title, abstract, added_at, updated_at) "
        f"VALUES ('{PID}', 'Old', 'imported', 'Old', 'Accuracy rises from $<7$\\% to $\\approx 90$\\%.', "
        "'2025-01-01T00:00:00+00:00', '2025-01-01T00:00:00+00:00')"
    )
    return conn


def test_migration_copies_the_database_first_and_fills_plain_text(tmp_path):
    root = tmp_path / "old"
    _old_library(root, "m0002_abstract_text").close()
    with Library.open(root) as lib:
        backups = list((root / "backups").glob("library-before-m0002*.sqlite3.gz"))
        assert len(backups) == 1
        assert lib.counts().total == 1  # not seeded: the library was not new
        lib.sync_index()
        assert [h.id for h in lib.search("accuracy").hits] == [PID]
        text = lib._reader().execute("SELECT abstract_text FROM papers").fetchone()[0]
        assert text == "Accuracy rises from <7% to ≈ 90%."


def test_highlight_colours_migrate_to_canonical_names(tmp_path):
    root = tmp_path / "old"
    conn = _old_library(root, "m0003_highlight_colour_names")
    stored = ["#ffe066", "yellow", "#FFE08A", "Green", "#c6ddff", "#123456", "pink"]
    for i, colour in enumerate(stored):
        conn.execute(
            'INSERT INTO highlights (paper_id, start, "end", quote, color, created_at) VALUES (?, ?, ?, ?, ?, ?)',
            [PID, i, i + 1, "A", colour, "2025-01-01T00:00:00+00:00"],
        )
    conn.close()
    with Library.open(root) as lib:
        assert list((root / "backups").glob("library-before-m0003*.sqlite3.gz"))
        raw = [r[0] for r in lib._reader().execute("SELECT color FROM highlights ORDER BY start")]
        assert raw == ["yellow", "yellow", "yellow", "green", "blue", "yellow", "pink"]
        paper = lib.paper(PID)
        assert paper is not None
        assert [h.color for h in paper.highlights][:5] == [HighlightColour.YELLOW] * 3 + [
            HighlightColour.GREEN, HighlightColour.BLUE]


def test_pdf_damage_is_cleaned_in_an_old_library_and_highlights_move(tmp_path):
    root = tmp_path / "old"
    conn = _old_library(root, "m0011_clean_pdf_text")
    raw = "A classi(cid:12)cation rule for piri(cid:173) form cortex learns e\ufb03ciently."
    old_plain = raw  # what the uncleaned renderer stored (no markup in it)
    conn.execute("UPDATE papers SET abstract = ?, abstract_text = ?, title = ?, derived_title = ?, "
                 "method = 'FFN', seq = 1", [raw, old_plain, "Classi(cid:12)cation of ﬂows", "Classi(cid:12)cation"])
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'change_seq'")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'text_version'")
    for quote in ("classi(cid:12)cation rule", "cortex", "e\ufb03ciently"):
        start = old_plain.index(quote)
        conn.execute('INSERT INTO highlights (paper_id, start, "end", quote, color, created_at) '
                     "VALUES (?, ?, ?, ?, 'yellow', '2025-01-01')", [PID, start, start + len(quote), quote])
    conn.close()
    with Library.open(root) as lib:
        assert list((root / "backups").glob("library-before-m0011*.sqlite3.gz"))
        paper = lib.paper(PID)
        assert paper is not None
        plain = "A classification rule for piriform cortex learns efficiently."
        assert lib._reader().execute("SELECT abstract_text FROM papers").fetchone()[0] == plain
        assert paper.abstract == raw  # the source stays as imported
        assert paper.title == "Classification of flows"
        assert paper.method == ""  # an old guess that is a common abbreviation is dropped
        assert [h.quote for h in paper.highlights] == ["classification rule", "cortex", "efficiently"]
        assert all(plain[h.start:h.end] == h.quote for h in paper.highlights)
        seq = lib._reader().execute("SELECT seq FROM papers").fetchone()[0]
        assert seq == 2  # a new change sequence: the index catches up with the cleaned text
        lib.sync_index()
        assert [h.id for h in lib.search("classification").hits] == [PID]


def test_m0012_moves_journal_collections_to_the_file_and_keys_the_papers(tmp_path):
    root = tmp_path / "old"
    conn = _old_library(root, "m0012_identity_collections_venues")
    conn.execute("UPDATE papers SET venue = 'CHI ''15: Proceedings of the 33rd Annual ACM Conference', "
                 "collection = 'CHI ''15: Proceedings of the 33rd Annual ACM Conference', "
                 "sources = '[\"mylib.bib\"]', links = '[\"https://doi.org/10.1145/X.1\"]', "
                 "authors = '[\"Ada Lovelace\"]', year = 2015")
    other = "1111222233334444"
    conn.execute("INSERT INTO papers (id, title, title_source, derived_title, abstract, collection, added_at, "
                 f"updated_at) VALUES ('{other}', 'Seed', 'derived', 'Seed', 'An abstract of a seed paper.', "
                 "'ICML 2025 Papers', '2025-01-01', '2025-01-01')")
    conn.close()
    with Library.open(root) as lib:
        assert lib.paper(PID).collection == "mylib"  # came from the journal field: now its file
        assert lib.paper(other).collection == "ICML 2025 Papers"  # the user's collection: kept
        assert sorted(lib.collections()) == [("ICML 2025 Papers", 1), ("mylib", 1)]
        assert [(v.name, v.count) for v in lib.venues()] == [("CHI", 1)]
        row = lib._reader().execute(
            "SELECT doi, title_key, ident_key, abstract_key FROM papers WHERE id = ?", [PID]).fetchone()
        assert tuple(row) == ("10.1145/x.1", "old", "old|lovelace|2015", paper_id_for(lib.paper(PID).abstract))


def test_m0018_keeps_a_plain_text_only_where_it_differs_and_every_reader_sees_the_same(tmp_path):
    root = tmp_path / "old"
    conn = _old_library(root, "m0018_plain_text_once")
    marked = conn.execute("SELECT abstract FROM papers").fetchone()[0]
    plain = "Accuracy rises from <7% to ≈ 90%."
    same, empty = "1111222233334444", "5555666677778888"
    conn.execute("UPDATE papers SET abstract_text = ?", [plain])
    for pid, abstract, text in ((same, "Frogs jump far.", "Frogs jump far."), (empty, "$$", "")):
        conn.execute("INSERT INTO papers (id, title, title_source, derived_title, abstract, abstract_text, "
                     "added_at, updated_at, seq) VALUES (?, 'Seed', 'imported', 'Seed', ?, ?, '2025-01-01', "
                     "'2025-01-01', 1)", [pid, abstract, text])
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'change_seq'")
    from reader.text import TEXT_VERSION
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('text_version', ?)", [str(TEXT_VERSION)])
    conn.close()
    with Library.open(root) as lib:
        assert list((root / "backups").glob("library-before-m0018*.sqlite3.gz"))
        got = {r[0]: (r[1], r[2], r[3]) for r in lib._reader().execute(
            f"SELECT id, abstract, abstract_text, {PLAIN_SQL} FROM papers")}
        assert got == {PID: (marked, plain, plain), same: ("Frogs jump far.", "", "Frogs jump far."),
                       empty: ("$$", " ", "")}
        assert lib._reader().execute("SELECT max(seq) FROM papers").fetchone()[0] == 1  # nothing to re-index
        lib.sync_index()
        assert [h.id for h in lib.search("frogs").hits] == [same]
        assert [h.id for h in lib.search("accuracy").hits] == [PID]
