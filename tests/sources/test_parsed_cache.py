"""The parsed-records cache (reader/sources/parsed.py): a PMLR volume re-added from the response
cache is not parsed again; a damaged, foreign or non-regular file is never used; a changed body
or other arguments never find an old parse."""

from __future__ import annotations

import os

import pytest

from reader.library import Library
from reader.models import Record
from reader.sources import pmlr, venue_add
from reader.sources.parsed import ParsedCache, digest

from .replay import ReplayServer
from .venue_fixtures import CORPORA

V84 = CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"
BIB_PATH = "/v84/assets/bib/bibliography.bib"


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    for name, value in (("RETRIES", "2"), ("BACKOFF", "0.05"), ("DEADLINE", "60"), ("TIMEOUT", "30"),
                        ("PACE_SCALE", "0")):
        monkeypatch.setenv(f"READER_SOURCE_{name}", value)


@pytest.fixture()
def parses(monkeypatch):
    """Counts the PMLR parses (the real parser runs)."""
    calls: list[str] = []
    real = pmlr.parse_volume

    def counted(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(pmlr, "parse_volume", counted)
    return calls


def _files(root):
    return sorted(p for p in (root / "sources" / "parsed").rglob("*") if p.is_file())


def test_a_volume_re_added_is_not_parsed_again_and_bad_files_are_not_used(tmp_path, monkeypatch, parses):
    if not V84.exists():
        pytest.skip("bibtex corpus not available")
    with ReplayServer() as srv, Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        monkeypatch.setenv("READER_SOURCE_PMLR_URL", srv.url)
        srv.add(BIB_PATH, V84.read_bytes())
        first = venue_add.add_venue(lib, "aistats", 2018)
        assert first.new == 216 and len(parses) == 1
        [kept] = _files(tmp_path / "lib")
        again = venue_add.add_venue(lib, "aistats", 2018)
        assert (again.new, again.unchanged, again.fetched.from_cache) == (0, 216, 1)
        assert len(parses) == 1  # read from the parsed cache: the same records, not parsed again
        assert again.fetched.records == first.fetched.records
        assert again.fetched.problems == first.fetched.problems

        # A damaged file (one byte of its payload changed) is not used: parsed anew, rewritten.
        data = bytearray(kept.read_bytes())
        data[-5] ^= 0x01
        kept.write_bytes(bytes(data))
        damaged = venue_add.add_venue(lib, "aistats", 2018)
        assert len(parses) == 2 and damaged.unchanged == 216
        assert damaged.fetched.records == first.fetched.records
        venue_add.add_venue(lib, "aistats", 2018)
        assert len(parses) == 2  # the rewritten file is good

        # Not a regular file at its place: never read, never written over.
        kept.unlink()
        os.mkfifo(kept)
        fifo = venue_add.add_venue(lib, "aistats", 2018)
        assert len(parses) == 3 and fifo.unchanged == 216 and not kept.is_file()
        kept.unlink()

        # A changed volume is another body: parsed, its own file.
        srv.add(BIB_PATH, V84.read_bytes().replace(b"Abstract", b"Abstract ", 1) + b"\n")
        venue_add.add_venue(lib, "aistats", 2018, refresh=True)
        assert len(parses) == 4 and len(_files(tmp_path / "lib")) == 1


def test_the_key_names_the_body_and_the_arguments_and_a_foreign_file_is_ignored(tmp_path):
    cache = ParsedCache(tmp_path / "parsed")
    body = b"@inproceedings{a, title={A}}"
    key = digest("pmlr", body, ("https://x/v1", "1", "ICML", 2024))
    assert key != digest("pmlr", body + b" ", ("https://x/v1", "1", "ICML", 2024))
    assert key != digest("pmlr", body, ("https://x/v1", "1", "ICML", 2025))
    assert key != digest("acl", body, ("https://x/v1", "1", "ICML", 2024))
    rec = Record(abstract="An abstract long enough to be kept here.", title="A", authors=["B C"], year=2024)
    cache.put("pmlr", key, [rec], ["https://x/v1: line 3: no title"])
    assert cache.get("pmlr", key) == ([rec], ["https://x/v1: line 3: no title"])
    other = digest("pmlr", b"other", ())
    cache.path("pmlr", other).parent.mkdir(parents=True, exist_ok=True)
    cache.path("pmlr", other).write_bytes(cache.path("pmlr", key).read_bytes())  # another key's file
    assert cache.get("pmlr", other) is None
    assert cache.parse("pmlr", b"other", (), lambda: ([], ["parsed"])) == ([], ["parsed"])
    assert cache.get("pmlr", other) == ([], ["parsed"])
