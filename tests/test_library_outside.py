"""Library.check_outside: another process's commits (a real `reader` CLI) are seen, with their ids."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from reader.events import OUTSIDE, Change, Changes
from reader.library import View


def _reader(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, READER_DATA_DIR=str(data_dir))
    done = subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def test_idle_and_own_writes_are_not_outside(lib):
    assert lib.check_outside() is None
    lib.set_starred([lib.paper_ids()[0]], True)
    lib.save_search("s", "attention")
    assert lib.check_outside() is None


def test_a_cli_star_is_reported_once_with_its_ids_and_reaches_the_index(lib):
    a, b, c = lib.paper_ids()[:3]
    heard: list[Changes] = []
    lib.changes.subscribe(heard.append)
    _reader(lib.paths.root, "star", a, b)
    found = lib.check_outside()
    assert found == Changes(frozenset({a, b}), frozenset({Change.OUTSIDE}), OUTSIDE)
    assert heard == [found, Changes.of(Change.INDEX, origin=OUTSIDE)]
    assert lib.check_outside() is None  # reported once
    assert set(lib.paper_ids(View("starred"))) == {a, b}
    assert set(lib.search("is:starred", limit=None).ids) == {a, b}  # the index caught up
    assert c not in found.ids


def test_outside_and_local_writes_interleaved(lib):
    a, b = lib.paper_ids()[:2]
    _reader(lib.paths.root, "delete", a)
    lib.set_read([b], True)  # this process writes after the other one, before looking
    found = lib.check_outside()
    assert found is not None and found.ids == {a}
    assert lib.paper(a) is None


def test_a_cli_import_names_the_new_papers(lib, tmp_path):
    path = tmp_path / "new.json"
    path.write_text(json.dumps([
        {"title": "Outside one", "abstract": "An abstract written by another process, first of two."},
        {"title": "Outside two", "abstract": "An abstract written by another process, second of two."},
    ]))
    before = set(lib.paper_ids())
    _reader(lib.paths.root, "import", str(path))
    found = lib.check_outside()
    assert found is not None
    new = set(lib.paper_ids()) - before
    assert len(new) == 2 and found.ids == new
    assert set(lib.search("outside process", limit=None).ids) >= new


def test_a_busy_local_writer_defers_the_check(lib):
    a = lib.paper_ids()[0]
    _reader(lib.paths.root, "star", a)
    results: list[Changes | None] = []
    with lib._store_lock:  # a local transaction in progress
        t = threading.Thread(target=lambda: results.append(lib.check_outside()))
        t.start()
        t.join()
    assert results == [None]
    found = lib.check_outside()
    assert found is not None and found.ids == {a}


def test_the_index_follows_once_the_other_process_has_indexed(lib, monkeypatch):
    a = lib.paper_ids()[0]
    heard: list[Changes] = []
    lib.changes.subscribe(heard.append)
    _reader(lib.paths.root, "star", a)
    real = lib.upkeep.after_outside
    monkeypatch.setattr(lib.upkeep, "after_outside", lambda **_: None)  # its index commit not seen yet
    found = lib.check_outside()
    assert found is not None and heard == [found]  # the store's change, at once
    assert a not in lib.search("is:starred", limit=None).ids
    monkeypatch.setattr(lib.upkeep, "after_outside", real)
    assert lib.check_outside() is None  # nothing new in the store ...
    assert heard[1:] == [Changes.of(Change.INDEX, origin=OUTSIDE)]  # ... but the index caught up
    assert a in lib.search("is:starred", limit=None).ids
    assert lib.check_outside() is None and len(heard) == 2


def test_an_index_the_other_process_wrote_is_adopted_without_indexing_again(lib, monkeypatch):
    a = lib.paper_ids()[0]
    indexed: list[int] = []
    real = lib.upkeep._catch_up

    def spy(conn, *args, **kwargs):
        indexed.append(1)
        return real(conn, *args, **kwargs)

    monkeypatch.setattr(lib.upkeep, "_catch_up", spy)
    _reader(lib.paths.root, "star", a)  # the CLI indexes its own write
    assert lib.check_outside() is not None
    assert indexed == [] and a in lib.search("is:starred", limit=None).ids


def test_unindexed_outside_writes_are_indexed_here_after_the_grace(lib, monkeypatch):
    from reader import index_upkeep
    from reader.library import core as library_core

    a = lib.paper_ids()[0]
    _reader(lib.paths.root, "star", a)
    monkeypatch.setattr(index_upkeep, "disk_stamp", lambda _dir: None)  # as if it never indexed
    assert lib.check_outside() is not None
    assert a not in lib.search("is:starred", limit=None).ids  # within the grace: waiting for it
    monkeypatch.setattr(library_core, "OUTSIDE_INDEX_GRACE", 0.0)
    lib.check_outside()
    assert a in lib.search("is:starred", limit=None).ids
