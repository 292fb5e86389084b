"""Big imports index their new papers in worker processes while the store writes them."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from reader import index_upkeep, ingest
from reader.library import Library
from reader.library import io as library_io
from reader.search import SearchIndex
from reader.store import changes

WORDS = ("sparse attention mode connectivity graph policy gradient robot dense retrieval neural "
         "network kernel loss landscape transformer layer quantized model diffusion prior").split()
QUERIES = ["sparse attention", '"neural network"', "graph*", "atention~", "title:kernel",
           "method:graphnet", "-policy loss", "is:unread robot", "landscape diffusion prior"]


def _abstract(i: int) -> str:
    ws = [WORDS[(i * 7 + j * (i % 5 + 1)) % len(WORDS)] for j in range(30)]
    method = " We call it GraphNet." if i % 9 == 0 else ""
    return f"Paper {i} studies " + " ".join(ws) + f". It reaches {i} points.{method}"


def _jsonl(path: Path, start: int, n: int, **extra) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(start, start + n):
            f.write(json.dumps({"abstract": _abstract(i), **extra}) + "\n")
    return path


@pytest.fixture
def parallel(monkeypatch):
    """Small files take the parallel path, in several jobs."""
    monkeypatch.setattr(ingest, "PARALLEL_MIN", 10)
    monkeypatch.setattr(ingest, "_JOB", 7)


def _hits(lib: Library, q: str) -> list[tuple[str, float]]:
    return sorted((h.id, round(h.score, 4)) for h in lib.search(q, limit=None).hits)


def _indexed_by_import(lib: Library) -> bool:
    return lib.index.stamp == changes.current_seq(lib._reader()) and not lib.index_needs_sync()


def _stored(lib: Library) -> list[dict]:
    out = []
    for p in lib.papers(lib.paper_ids(sort="title")):
        d = p.to_dict()
        d.pop("added_at"), d.pop("updated_at")
        out.append(d)
    return out


def test_big_import_is_indexed_like_a_rebuild(tmp_path, parallel, monkeypatch) -> None:
    src = _jsonl(tmp_path / "papers.jsonl", 0, 60, venue="ICML", year=2021, authors="Ann Lee")
    monkeypatch.setattr(SearchIndex, "rebuild_procs", 1)  # one segment: scores must match exactly
    monkeypatch.setattr(library_io, "_IMPORT_PROGRESS_EVERY", 0)
    calls: list[tuple[int, int, str]] = []
    with Library.open(tmp_path / "a", seed_if_empty=False) as a:
        [s] = a.import_files([src], index=False, progress=lambda *c: calls.append(c))
        assert (s.new, s.duplicates, s.error) == (60, 0, None)
        assert _indexed_by_import(a) and a.index.doc_count == 60
        assert any(c[2].startswith("Importing") and c[0] == 60 for c in calls)
        monkeypatch.setattr(ingest, "PARALLEL_MIN", 10**9)  # the reference: store, then rebuild
        with Library.open(tmp_path / "b", seed_if_empty=False) as b:
            [s2] = b.import_files([src], index=False)
            assert s2.new == 60 and not _indexed_by_import(b)
            b.sync_index()
            assert _stored(a) == _stored(b)
            for q in QUERIES:
                assert _hits(a, q) == _hits(b, q), q
            assert _hits(a, "sparse attention") and _hits(a, "method:graphnet")


def test_big_import_in_two_workers_finds_the_same_papers(tmp_path, parallel, monkeypatch) -> None:
    src = _jsonl(tmp_path / "papers.jsonl", 0, 80)
    monkeypatch.setattr(SearchIndex, "rebuild_procs", 2)
    with Library.open(tmp_path / "a", seed_if_empty=False) as a:
        [s] = a.import_files([src], index=False)
        assert s.new == 80 and _indexed_by_import(a)
        assert 1 <= len(a.index._ix._segments()) <= 2  # one per worker that got work
        with Library.open(tmp_path / "b", seed_if_empty=False) as b:
            b.index.rebuild_procs = 1
            monkeypatch.setattr(ingest, "PARALLEL_MIN", 10**9)
            b.import_files([src])
            for q in QUERIES:
                assert {i for i, _ in _hits(a, q)} == {i for i, _ in _hits(b, q)}, q
    assert not multiprocessing.active_children()


def test_big_import_adds_to_an_index_that_is_up_to_date(tmp_path, parallel) -> None:
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([_jsonl(tmp_path / "one.jsonl", 0, 5)])  # small: stored, then indexed
        pid = lib.paper_ids()[0]
        lib.add_tags([pid], ["mine"])
        assert not lib.index_needs_sync()
        [s] = lib.import_files([_jsonl(tmp_path / "two.jsonl", 100, 40)], index=False)
        assert s.new == 40 and _indexed_by_import(lib)
        assert lib.index.doc_count == 45
        assert {h.id for h in lib.search("tag:mine").hits} == {pid}
        assert len(lib.search("points", limit=None).hits) == 45


def test_big_import_into_a_stale_index_stores_and_leaves_the_index_to_catch_up(tmp_path, parallel) -> None:
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([_jsonl(tmp_path / "one.jsonl", 0, 5)], index=False)  # index behind
        [s] = lib.import_files([_jsonl(tmp_path / "two.jsonl", 100, 40)], index=False)
        assert s.new == 40 and lib.index_needs_sync() and lib.index.doc_count == 0
        lib.sync_index()
        assert len(lib.search("points", limit=None).hits) == 45


def test_cancelled_big_import_leaves_store_and_index_unchanged(tmp_path, parallel) -> None:
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([_jsonl(tmp_path / "one.jsonl", 0, 5)])
        files = sorted(f.name for f in lib.paths.index_dir.iterdir())
        stamp = lib.index.stamp
        polls: list[int] = []

        def cancelled() -> bool:  # polled before the file, then after each stored job
            polls.append(1)
            return len(polls) > 2

        [s] = lib.import_files([_jsonl(tmp_path / "two.jsonl", 100, 40)], index=False,
                               cancelled=cancelled)
        assert s.error and "cancelled" in s.error and s.new == 0
        assert lib.counts().total == 5 and lib.index.stamp == stamp and lib.index.doc_count == 5
        assert sorted(f.name for f in lib.paths.index_dir.iterdir()) == files  # no half segments
        assert not lib.index_needs_sync()
        [again] = lib.import_files([tmp_path / "two.jsonl"], index=False)  # the lock was released
        assert again.new == 40 and _indexed_by_import(lib)
    assert not multiprocessing.active_children()


def test_failed_store_write_drops_the_workers_segments(tmp_path, parallel, monkeypatch) -> None:
    from reader.store import papers

    def full(conn, rows):
        raise sqlite3.OperationalError("database or disk is full")

    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([_jsonl(tmp_path / "one.jsonl", 0, 5)])
        files = sorted(f.name for f in lib.paths.index_dir.iterdir())
        monkeypatch.setattr(papers, "insert_rows", full)
        [s] = lib.import_files([_jsonl(tmp_path / "two.jsonl", 100, 40)], index=False)
        assert s.error and "full" in s.error
        assert lib.counts().total == 5 and lib.index.doc_count == 5 and not lib.index_needs_sync()
        assert sorted(f.name for f in lib.paths.index_dir.iterdir()) == files
    assert not multiprocessing.active_children()


def test_backup_files_take_the_usual_path(tmp_path, parallel) -> None:
    papers = [{"abstract": _abstract(i), "title": f"Paper {i}", "tags": ["b"]} for i in range(20)]
    path = tmp_path / "backup.json"
    path.write_text(json.dumps({"format": "reader-backup", "version": 1, "papers": papers}), "utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        [s] = lib.import_files([path], index=False)
        assert s.new == 20 and lib.index_needs_sync()
        lib.sync_index()
        assert len(lib.search("tag:b", limit=None).hits) == 20


@pytest.mark.fast_path_only
def test_bulk_writer_caps_frequencies_at_255(tmp_path) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    docs = [{"id": "a", "title": "", "abstract": "frog " * 300 + "pond", "tags": []},
            {"id": "b", "title": "", "abstract": "frog pond frog", "tags": []}]
    index.rebuild(docs, stamp=1)
    with index._read_lock:
        reader = index._s().reader()
        m = reader.postings("abstract", "frog")
        weights = {}
        while m.is_active():
            weights[m.id()] = m.weight()
            m.next()
    assert sorted(weights.values()) == [2.0, 255.0]
    index.close()


def test_write_between_store_and_index_commit_is_caught_up(tmp_path, parallel, monkeypatch) -> None:
    from reader.index_upkeep import BulkIndex

    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([_jsonl(tmp_path / "one.jsonl", 0, 5)])
        pid = lib.paper_ids()[0]
        commit = BulkIndex.commit

        def late(self) -> None:  # another action commits while the import's index is busy
            lib.set_starred([pid], True)
            commit(self)

        monkeypatch.setattr(BulkIndex, "commit", late)
        [s] = lib.import_files([_jsonl(tmp_path / "two.jsonl", 100, 40)], index=False)
        assert s.new == 40 and not lib.index_needs_sync()
        assert {h.id for h in lib.search("is:starred").hits} == {pid}


def test_big_file_of_duplicates_into_an_empty_library(tmp_path, parallel, monkeypatch) -> None:
    # Into an empty library the workers start before the ids are known and get the records
    # as their ids are computed: each paper is stored and indexed once.
    src = tmp_path / "dups.jsonl"
    with src.open("w", encoding="utf-8") as f:
        for i in range(40):
            f.write(json.dumps({"abstract": _abstract(i % 5)}) + "\n")
    started: list[object] = []
    real = index_upkeep.IndexUpkeep.start_bulk

    def spy(self, *a, **k):
        found = real(self, *a, **k)
        started.append(found)
        return found

    monkeypatch.setattr(index_upkeep.IndexUpkeep, "start_bulk", spy)
    with Library.open(tmp_path / "a", seed_if_empty=False) as a:
        [s] = a.import_files([src], index=False)
        assert (s.new, s.duplicates, s.error) == (5, 35, None)
        assert len(started) == 1 and started[0] is not None
        assert _indexed_by_import(a) and a.index.doc_count == 5
        assert len(_hits(a, "paper")) == 5
        assert not list((a.index.index_dir).glob("*.tmp"))


def test_big_import_into_an_empty_library_makes_the_store_indexes_after_the_rows(tmp_path, parallel,
                                                                               monkeypatch) -> None:
    """Issue 31 (import CPU): the rows of a big file into an empty library go in before the
    papers' secondary indexes are made (one sort each, not a B-tree insert per row and
    index); the library ends with the same indexes, sound, as one built row by row."""
    from reader.store import papers

    def defs(conn) -> list[tuple[str, str]]:
        return [tuple(r) for r in conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")]

    seen: list[int] = []
    real = papers.insert_rows

    def spy(conn, rows):
        seen.append(sum(1 for _, sql in defs(conn) if "ON papers" in sql))
        real(conn, rows)

    monkeypatch.setattr(papers, "insert_rows", spy)
    with Library.open(tmp_path / "ref", seed_if_empty=False) as ref:
        wanted = defs(ref._reader())
    with Library.open(tmp_path / "a", seed_if_empty=False) as a:
        [s] = a.import_files([_jsonl(tmp_path / "one.jsonl", 0, 30, venue="ICML", year=2021)], index=False)
        assert s.new == 30 and seen and set(seen) == {0}
        conn = a._reader()
        assert defs(conn) == wanted
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        seen.clear()  # a library with papers: its indexes stay through the import
        [s] = a.import_files([_jsonl(tmp_path / "two.jsonl", 100, 30)], index=False)
        assert s.new == 30 and seen and 0 not in seen and defs(a._reader()) == wanted
        assert len(a.search("paper", limit=None).hits) == 60


def _children_gone(seconds: float = 20.0) -> bool:
    import time

    end = time.monotonic() + seconds
    while multiprocessing.active_children():
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def test_workers_write_their_segments_while_the_store_finishes(tmp_path, parallel, monkeypatch) -> None:
    """Issue 31 (import wall time): once every job is dealt the workers are told so and write
    their segments while the store finishes (its indexes, duplicates, log and commit), instead
    of waiting for the commit to tell them; the index then holds every paper, as before."""
    monkeypatch.setattr(SearchIndex, "rebuild_procs", 2)
    finish = ingest._finish
    gone: list[bool] = []

    def spy(*a, **k):
        gone.append(_children_gone())  # the workers finished before the store did
        return finish(*a, **k)

    monkeypatch.setattr(ingest, "_finish", spy)
    with Library.open(tmp_path / "a", seed_if_empty=False) as a:
        [s] = a.import_files([_jsonl(tmp_path / "papers.jsonl", 0, 80)], index=False)
        assert gone == [True]
        assert s.new == 80 and _indexed_by_import(a) and a.index.doc_count == 80
        assert len(_hits(a, "paper")) == 80


def test_cancel_after_the_last_job_drops_the_finished_segments(tmp_path, parallel, monkeypatch) -> None:
    """Cancel pressed once the workers have written their segments: none of them is kept."""
    monkeypatch.setattr(library_io, "_IMPORT_PROGRESS_EVERY", 0)
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        lib.import_files([_jsonl(tmp_path / "one.jsonl", 0, 5)])
        files = sorted(f.name for f in lib.paths.index_dir.iterdir())
        stored = [0]

        def cancelled() -> bool:  # true once every row is stored and the workers are done
            return stored[0] >= 40 and _children_gone()

        def progress(done: int, total: int, what: str) -> None:
            if what.startswith("Importing"):
                stored[0] = done

        [s] = lib.import_files([_jsonl(tmp_path / "two.jsonl", 100, 40)], index=False,
                               cancelled=cancelled, progress=progress)
        assert stored[0] == 40 and s.error and "cancelled" in s.error and s.new == 0
        assert lib.counts().total == 5 and lib.index.doc_count == 5
        assert sorted(f.name for f in lib.paths.index_dir.iterdir()) == files
        assert not lib.index_needs_sync()
    assert not multiprocessing.active_children()


@pytest.mark.fast_path_only
def test_index_workers_start_while_a_big_file_is_parsed(tmp_path, parallel, monkeypatch) -> None:
    """Issue 31 (import wall time): a big file's index workers are spawned before it is parsed
    (their start-up overlaps the parse) and the import adopts them; a file that turns out to
    need none ends them. Nothing is left running either way."""
    import reader.importers as importers

    monkeypatch.setattr(library_io, "STANDBY_BYTES", 0)
    monkeypatch.setattr(SearchIndex, "rebuild_procs", 2)
    real = importers.parse_file
    during: list[int] = []

    def spy(path):
        during.append(len(multiprocessing.active_children()))
        return real(path)

    monkeypatch.setattr(importers, "parse_file", spy)
    spawned: list[int] = []
    from reader.search.segments import parallel as par

    start = par.Standby.__init__

    def counting(self, *a, **k):
        start(self, *a, **k)
        spawned.append(len(self.started))

    monkeypatch.setattr(par.Standby, "__init__", counting)
    with Library.open(tmp_path / "a", seed_if_empty=False) as a:
        [s] = a.import_files([_jsonl(tmp_path / "big.jsonl", 0, 60)], index=False)
        assert during == [2] and spawned == [2]  # only the standby's: the import started none
        assert s.new == 60 and _indexed_by_import(a) and a.index.doc_count == 60
        assert not multiprocessing.active_children()
        [s] = a.import_files([_jsonl(tmp_path / "few.jsonl", 100, 3)], index=False)  # too few
        assert during == [2, 2] and s.new == 3 and not multiprocessing.active_children()
        a.sync_index()
        assert a.index.doc_count == 63
