"""`add_venue`: a venue fetched whole through the client, then stored in one transaction.

PMLR is the REAL AISTATS 2018 volume (../shared/corpora/bibtex/pmlr_v84_aistats2018.bib) served
by the local replay server at PMLR's own path. The OpenReview and CVF bodies are built from the
services' published shapes around real corpus papers (venue_fixtures.py; no real recording of
either exists here). Never the network."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reader.library import Library, View
from reader.models import ViewKind
from reader.sources import FetchCancelled, venue_add
from reader.sources.venue_fetch import VenueCancelled

from .replay import ReplayServer, closed_port
from .venue_fixtures import (
    CORPORA,
    PAPERS,
    corpus_papers,
    cvf_site,
    openreview_pages,
    pmlr_bibliography,
)

ROOT = Path(__file__).resolve().parents[2]
V84 = CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"
BIB_PATH = "/v84/assets/bib/bibliography.bib"


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    for name, value in (("RETRIES", "2"), ("BACKOFF", "0.05"), ("DEADLINE", "60"), ("TIMEOUT", "30"),
                        ("PACE_SCALE", "0")):
        monkeypatch.setenv(f"READER_SOURCE_{name}", value)


@pytest.fixture()
def server(monkeypatch):
    with ReplayServer() as srv:
        for name in ("PMLR", "ACL", "CVF", "OPENREVIEW"):
            monkeypatch.setenv(f"READER_SOURCE_{name}_URL", srv.url)
        yield srv


@pytest.fixture()
def library(tmp_path):
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    yield lib
    lib.close()


def _v84() -> bytes:
    if not V84.exists():
        pytest.skip("bibtex corpus not available")
    return V84.read_bytes()


def _collection(lib, label):
    return lib.paper_ids(View(ViewKind.COLLECTION, label))


def test_aistats_2018_whole_again_offline_and_refreshed(server, library, monkeypatch):
    body = _v84()
    server.add(BIB_PATH, body)
    first = venue_add.add_venue(library, "aistats", 2018)
    assert (first.new, first.updated, first.unchanged) == (216, 0, 0)
    ids = _collection(library, "AISTATS 2018")
    assert len(ids) == 216 and library.counts().total == 216
    paper = library.paper(ids[0])
    assert paper.venue == "AISTATS" and paper.year == 2018 and paper.abstract
    assert any(link.startswith("https://proceedings.mlr.press/v84/") for link in paper.links)
    library.set_starred([ids[0]], True)
    library.add_tags([ids[1]], ["to-read"])
    library.set_note(ids[2], "my note")

    again = venue_add.add_venue(library, "aistats", 2018)
    assert (again.new, again.fetched.from_cache) == (0, 1) and library.counts().total == 216
    assert library.paper(ids[0]).starred

    server.stop()  # the network gone: served from the cache, no error
    monkeypatch.setenv("READER_SOURCE_PMLR_URL", f"http://127.0.0.1:{closed_port()}")
    offline = venue_add.add_venue(library, "aistats", 2018)
    assert offline.new == 0 and offline.fetched.from_cache == 1

    # The volume changed (a corrected abstract, an author added): --refresh updates the paper,
    # keeping the user's star, tag, note, highlight and citation key.
    paper = library.paper(ids[0])
    library.add_highlight(ids[0], 0, 10)
    key = paper.citation_key
    first_sentence = paper.abstract.split(". ")[0]
    changed = body.replace(first_sentence.encode(), b"CORRECTED: " + first_sentence.encode(), 1)
    assert changed != body
    with ReplayServer() as fresh:
        fresh.add(BIB_PATH, changed)
        monkeypatch.setenv("READER_SOURCE_PMLR_URL", fresh.url)
        refreshed = venue_add.add_venue(library, "aistats", 2018, refresh=True)
        assert len(fresh.requests) == 1
    assert (refreshed.new, refreshed.updated) == (0, 1) and library.counts().total == 216
    now = library.paper(ids[0])
    assert now.abstract.startswith("CORRECTED: ") and now.starred and now.citation_key == key
    assert [h.quote for h in now.highlights] == [paper.abstract[:10]]
    assert "to-read" in library.paper(ids[1]).tags and library.paper(ids[2]).note == "my note"


def test_openreview_status_and_links_are_stored(server, library):
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    papers = list(corpus_papers("colm2025:", 5))
    vid = "ICLR.cc/2025/Conference"
    server.add(f"/notes?content.venueid={vid}&offset=0&limit=1000",
               openreview_pages(papers, vid, "ICLR 2025")[0])
    added = venue_add.add_venue(library, "iclr", 2025)
    assert added.new == 5
    stored = [library.paper(pid) for pid in _collection(library, "ICLR 2025")]
    assert sorted(p.status for p in stored) == ["oral", "poster", "poster", "poster", "spotlight"]
    assert all(p.links[0].startswith("https://openreview.net/forum?id=") for p in stored)


def test_a_venue_from_two_sources_is_one_set_of_papers(server, library):
    """ICML 2024 from PMLR, then from OpenReview: the same papers (identity), statuses added."""
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    papers = [p for p in corpus_papers("icml2019:", 40) if "{" not in p["title"] + p["abstract"]][:8]
    server.add("/v235/assets/bib/bibliography.bib",
               pmlr_bibliography(papers, 235, "Proceedings of the 41st International Conference on Machine Learning", 2024))
    vid = "ICML.cc/2024/Conference"
    server.add(f"/notes?content.venueid={vid}&offset=0&limit=1000", openreview_pages(papers, vid, "ICML 2024")[0])
    first = venue_add.add_venue(library, "icml", 2024)
    pid = _collection(library, "ICML 2024")[0]
    library.set_starred([pid], True)
    second = venue_add.add_venue(library, "icml", 2024, source="openreview")
    assert (first.fetched.source, second.fetched.source) == ("pmlr", "openreview")
    assert first.new == len(papers) and second.new == 0 and library.counts().total == len(papers)
    assert library.paper(pid).starred and library.paper(pid).status in {"oral", "spotlight", "poster"}


def test_cancel_stores_nothing(server, library):
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    site = cvf_site(list(corpus_papers("wacv2024:", 5)), "WACV2024")
    for path, body in site.items():
        server.add(path, body)
    with pytest.raises((VenueCancelled, FetchCancelled)):  # between requests, or while one waits
        venue_add.add_venue(library, "wacv", 2024, cancelled=lambda: len(server.requests) >= 3)
    assert library.counts().total == 0


_CHILD = """
import sys
from pathlib import Path
from reader.library import Library
from reader.sources import FetchCancelled, venue_add
lib = Library.open(Path(sys.argv[1]), seed_if_empty=False)
venue_add.add_venue(lib, "wacv", 2024)
"""


def test_kill_9_mid_fetch_leaves_nothing_stored_and_a_rerun_finishes(server, tmp_path):
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    papers = list(corpus_papers("wacv2024:", 10))
    site = cvf_site(papers, "WACV2024")
    for path, body in site.items():
        server.add(path, body)
    pages = [p for p in site if p.startswith("/content/")]
    from .replay import Fault

    server.fault(pages[5], Fault.slow(30))
    folder = tmp_path / "lib"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(folder)], cwd=tmp_path,
                             env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        deadline = time.monotonic() + 60
        while not any(r.path == pages[5] for r in server.requests) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(r.path == pages[5] for r in server.requests)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    lib = Library.open(folder, seed_if_empty=False)
    try:
        assert lib.counts().total == 0  # nothing in the library
        asked = len(server.requests)
        added = venue_add.add_venue(lib, "wacv", 2024)
        assert [r.path for r in server.requests[asked:]] == pages[5:]  # resumed from the cache
        assert added.new == 10 and lib.counts().total == 10  # no gaps
        assert venue_add.add_venue(lib, "wacv", 2024).new == 0 and lib.counts().total == 10  # no duplicates
    finally:
        lib.close()
