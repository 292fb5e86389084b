"""The day's maintenance keeps fetched responses and parsed records under a size cap, least
recently used first, and touches nothing but those regular files."""

from __future__ import annotations

import os

from reader.paths import LibraryPaths
from reader.sources.cache import ResponseCache
from reader.sources.response import Response
from reader.store.health import prune_fetched, run_detached
from tests.store.test_daily import _library


def _file(path, size, age):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    t = 1_700_000_000 - age
    os.utime(path, (t, t))
    return path


def test_the_least_recently_used_go_first_until_under_the_cap(tmp_path, monkeypatch):
    paths = LibraryPaths(tmp_path)
    src = paths.sources_dir
    old = _file(src / "cache" / "arxiv" / "aa" / "old.resp", 400_000, 3000)
    mid = _file(src / "parsed" / "pmlr" / "bb" / "mid.json", 400_000, 2000)
    new = _file(src / "cache" / "pmlr" / "cc" / "new.resp", 400_000, 1000)
    pace = _file(src / "pace" / "arxiv", 10, 5000)  # not a cached file: never pruned
    part = _file(src / "cache" / "arxiv" / "aa" / ".part-xyz.resp", 400_000, 9000)  # a writer's
    outside = _file(tmp_path / "elsewhere" / "keep.resp", 900_000, 9000)
    (src / "cache" / "linked").symlink_to(outside.parent)  # a linked folder is never entered
    os.mkfifo(src / "cache" / "arxiv" / "aa" / "fifo.resp")
    monkeypatch.setenv("READER_SOURCES_CACHE_MB", str(900_000 / 1024 / 1024))
    removed, freed = prune_fetched(paths)
    assert (removed, freed) == (1, 400_000)
    assert not old.exists() and mid.exists() and new.exists()
    assert pace.exists() and part.exists() and outside.exists()
    assert (src / "cache" / "arxiv" / "aa" / "fifo.resp").exists()


def test_a_cache_hit_makes_a_file_recently_used(tmp_path, monkeypatch):
    cache = ResponseCache(LibraryPaths(tmp_path).sources_dir / "cache")
    cache.put("arxiv", "/a", Response(body=b"a" * 300_000, url="http://x/a", status=200, fetched_at="t"))
    cache.put("arxiv", "/b", Response(body=b"b" * 300_000, url="http://x/b", status=200, fetched_at="t"))
    for key, age in (("/a", 2000), ("/b", 1000)):
        t = 1_700_000_000 - age
        os.utime(cache.path("arxiv", key), (t, t))
    assert cache.get("arxiv", "/a") is not None  # /a read now: /b is the least recently used
    monkeypatch.setenv("READER_SOURCES_CACHE_MB", str(400_000 / 1024 / 1024))
    assert prune_fetched(LibraryPaths(tmp_path))[0] == 1
    assert cache.get("arxiv", "/a") is not None and cache.get("arxiv", "/b") is None


def test_a_bad_cap_keeps_the_default_and_the_days_run_prunes(tmp_path, monkeypatch):
    root = tmp_path / "lib"
    _library(root)
    big = _file(LibraryPaths(root).sources_dir / "cache" / "cvf" / "dd" / "big.resp", 2_000_000, 100)
    monkeypatch.setenv("READER_SOURCES_CACHE_MB", "lots")
    assert prune_fetched(LibraryPaths(root)) == (0, 0) and big.exists()
    monkeypatch.setenv("READER_SOURCES_CACHE_MB", "1")
    assert run_detached(root) == 0
    assert not big.exists()
