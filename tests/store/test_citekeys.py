"""Citation keys in the library: backfilled by m0013, taken from imported entries, edited
(checked, unique ignoring case, undone by a restore) and kept across exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.errors import ReaderError
from reader.events import Change
from reader.library import Library
from reader.store import SCHEMA_MIGRATIONS, open_connection, open_database

BIB = """@inproceedings{Vaswani:2017,
  title = {Attention is all you need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  booktitle = {NeurIPS}, year = {2017},
  abstract = {The dominant sequence transduction models are based on complex recurrent networks.},
}
@article{nokey2019,
  title = {Deep residual learning},
  author = {He, Kaiming},
  journal = {Journal of Things}, year = {2019}, doi = {10.1000/xyz},
  abstract = {Deeper neural networks are more difficult to train; we present a residual framework.},
}
"""


def _old_library(root: Path) -> None:
    root.mkdir()
    conn = open_connection(root / "library.sqlite3")
    SCHEMA_MIGRATIONS.apply(open_database(conn), stop_before="m0013_citation_keys")
    for i, (title, authors) in enumerate([("Deep nets", ["Ann Smith"]), ("Deep nets again", ["Ann Smith"]),
                                          ("Sparse attention for all", [])]):
        conn.execute(
            "INSERT INTO papers (id, title, title_source, derived_title, abstract, year, authors, added_at, "
            "updated_at) VALUES (?, ?, 'imported', ?, ?, 2020, ?, '2025-01-01', '2025-01-01')",
            [f"{i:016x}", title, title, f"Abstract number {i} about deep sparse things.", json.dumps(authors)])
    conn.close()


def test_migration_backfills_unique_keys_in_the_order_added(tmp_path: Path) -> None:
    _old_library(tmp_path / "old")
    with Library.open(tmp_path / "old", seed_if_empty=False) as lib:
        keys = [p.citation_key for p in lib.papers(lib.paper_ids(descending=False))]
    assert keys == ["smith2020deep", "smith2020deepa", "sparse2020attention"]


def test_imported_keys_are_kept_and_missing_ones_made(tmp_path: Path) -> None:
    src = tmp_path / "refs.bib"
    src.write_text(BIB, encoding="utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([src], index=False)
        by_title = {p.title: p for p in lib.papers(lib.paper_ids())}
    assert by_title["Attention is all you need"].citation_key == "Vaswani:2017"
    assert by_title["Attention is all you need"].entry_type == "inproceedings"
    assert by_title["Deep residual learning"].citation_key == "nokey2019"
    assert by_title["Deep residual learning"].entry_type == "article"


def test_an_imported_key_already_taken_gets_a_suffix(tmp_path: Path) -> None:
    src = tmp_path / "refs.bib"
    src.write_text(BIB, encoding="utf-8")
    other = tmp_path / "other.bib"
    # Other papers with the same keys: other titles and DOI (the same title, first author and
    # year, or DOI, would be the same paper: a duplicate, issue 18).
    other.write_text(BIB.replace("The dominant", "Another").replace("Deeper", "Other")
                     .replace("all you need", "not all you need").replace("residual learning", "residual nets")
                     .replace("10.1000/xyz", "10.1000/abc"), encoding="utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([src, other], index=False)
        keys = sorted(p.citation_key for p in lib.papers(lib.paper_ids()))
    assert keys == ["Vaswani:2017", "Vaswani:2017a", "nokey2019", "nokey2019a"]


def test_editing_a_key_checks_it_publishes_and_restores(tmp_path: Path) -> None:
    with Library.open(tmp_path / "lib") as lib:
        first, second = lib.paper_ids()[:2]
        seen: list = []
        lib.changes.subscribe(seen.append)
        before = lib.snapshot([first])
        assert lib.set_citation_key(first, " mine2025 ") == "mine2025"
        assert lib.paper(first).citation_key == "mine2025"
        assert seen and Change.CITEKEY in seen[-1].kinds and first in seen[-1].ids
        with pytest.raises(ReaderError, match="already used"):
            lib.set_citation_key(second, "MINE2025")
        with pytest.raises(ReaderError, match="contains ' '"):
            lib.set_citation_key(second, "a b")
        lib.restore(before)  # what undo does
        assert lib.paper(first).citation_key == before[0].citation_key
        made = lib.set_citation_key(first, "")
        assert made == before[0].citation_key  # made again from the paper


def test_a_restored_paper_whose_key_was_taken_gets_a_new_one(tmp_path: Path) -> None:
    with Library.open(tmp_path / "lib") as lib:
        first, second = lib.paper_ids()[:2]
        gone = lib.snapshot([first])
        lib.delete_papers([first])
        lib.set_citation_key(second, gone[0].citation_key)
        lib.restore(gone)
        keys = [p.citation_key for p in lib.papers([first, second])]
    assert keys[1] == gone[0].citation_key and keys[0] == gone[0].citation_key + "a"


def test_an_export_is_one_read_of_the_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A paper deleted while an export runs (between its batches) is still in the file."""
    import reader.exporters.bibtex as bibtex
    import reader.library.io as library_io
    from reader.models import ExportKind

    monkeypatch.setattr(library_io, "_EXPORT_BATCH", 10)
    write = bibtex.entry
    with Library.open(tmp_path / "lib") as lib:
        ids = lib.paper_ids(descending=False)
        deleted: list[str] = []

        def entry_then_delete(paper, **kw):
            if not deleted:
                deleted.append(ids[-1])
                lib.delete_papers([ids[-1]])  # committed by the writer mid-export
            return write(paper, **kw)

        monkeypatch.setattr(bibtex, "entry", entry_then_delete)
        assert lib.export_citations(tmp_path / "a.bib", None, ExportKind.BIBTEX) == len(ids)
        assert lib.counts().total == len(ids) - 1


def test_finding_a_keys_owner_searches_the_unique_index(tmp_path: Path) -> None:
    """Each undo's restore asks who holds the paper's key: a search of the partial unique index,
    not a scan of the papers table (61 ms at 100k papers, on the writer, at every Ctrl+Z)."""
    from reader.store import citekeys

    src = tmp_path / "refs.bib"
    src.write_text(BIB, encoding="utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([src], index=False)
        conn = lib.read_connection()
        statements: list[str] = []
        conn.set_trace_callback(statements.append)
        try:
            assert citekeys.owner(conn, "VASWANI:2017") is not None
            assert citekeys.owner(conn, "nobody1999") is None
            assert citekeys.owner(conn, "") is None
        finally:
            conn.set_trace_callback(None)
        assert len(statements) == 2
        for sql in statements:
            plan = " ".join(str(r[-1]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
            assert "USING INDEX papers_citation_key" in plan and "SCAN" not in plan, plan
