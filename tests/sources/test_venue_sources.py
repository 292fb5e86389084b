"""Venues fetched through the real client (reader.sources.http) from the local replay server.

PMLR is the REAL AISTATS 2018 volume file (../shared/corpora/bibtex/pmlr_v84_aistats2018.bib)
and ACL the REAL ACL Anthology 2024.insights XML (../shared/corpora/sources/acl), each served at
the service's own path. No real OpenReview API v2 or CVF recording exists here
(sources/README.txt): their bodies are built from the services' published shapes around real
corpus papers (venue_fixtures.py). Never the network."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reader import __version__
from reader.errors import ReaderError
from reader.sources import FetchError, catalogue, venue_add
from reader.sources.venue_fetch import NotServed

from .replay import Fault, ReplayServer, closed_port
from .venue_fixtures import CORPORA, PAPERS, corpus_papers, cvf_site

ROOT = Path(__file__).resolve().parents[2]
V84 = CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"
INSIGHTS = CORPORA / "sources" / "acl" / "acl-anthology_data_xml_2024.insights.xml"


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


def need(path):
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    return path


def test_aistats_2018_whole_then_offline_from_the_cache(server, tmp_path, monkeypatch):
    server.add("/v84/assets/bib/bibliography.bib", need(V84).read_bytes())
    got = venue_add.fetch(tmp_path, "aistats", 2018)
    assert (got.source, len(got.records), got.requests, got.from_cache) == ("pmlr", 216, 1, 0)
    assert all(r.abstract for r in got.records)
    assert server.requests[0].user_agent.startswith(f"Reader/{__version__}")
    server.stop()
    monkeypatch.setenv("READER_SOURCE_PMLR_URL", f"http://127.0.0.1:{closed_port()}")
    again = venue_add.fetch(tmp_path, "aistats", 2018)
    assert (len(again.records), again.from_cache) == (216, 1)
    assert [r.title for r in again.records] == [r.title for r in got.records]


def test_a_real_acl_collection_through_the_client(server, tmp_path, monkeypatch):
    server.add("/data/xml/2024.insights.xml", need(INSIGHTS).read_bytes())
    monkeypatch.setitem(catalogue.ACL, "insights", ("{year}.insights", "", frozenset({2024})))
    monkeypatch.setitem(catalogue.VENUES, "insights", catalogue.KnownVenue("insights", "Insights", "Insights from Negative Results in NLP"))
    got = venue_add.fetch(tmp_path, "insights", 2024)
    assert (got.source, got.label, len(got.records)) == ("acl", "Insights 2024", 19)
    assert server.requests[0].path == "/data/xml/2024.insights.xml"


def test_openreview_403_for_guests_is_one_line_naming_the_url(server, tmp_path):
    server.fault("/notes", Fault.status_code(403, body=b'{"name": "ForbiddenError"}'))
    with pytest.raises(NotServed) as info:
        venue_add.fetch(tmp_path, "iclr", 2027)
    assert str(info.value) == (
        f"iclr 2027: not available yet; tried openreview {server.url}/notes?content.venueid="
        "ICLR.cc%2F2027%2FConference&offset=0&limit=1000 (403 Forbidden)")


def test_503_and_refused_are_one_line_and_stop_at_once(server, tmp_path, monkeypatch):
    server.fault("/v84/assets/bib/bibliography.bib", *[Fault.status_code(503)] * 5)
    with pytest.raises(FetchError) as info:
        venue_add.fetch(tmp_path, "aistats", 2018)
    assert "\n" not in str(info.value) and "503" in str(info.value)
    assert "/v84/assets/bib/bibliography.bib" in str(info.value)
    monkeypatch.setenv("READER_SOURCE_PMLR_URL", f"http://127.0.0.1:{closed_port()}")
    start = time.monotonic()
    with pytest.raises(ReaderError) as refused:
        venue_add.fetch(tmp_path, "icml", 2024)
    assert time.monotonic() - start < 30 and "\n" not in str(refused.value)
    assert "/v235/assets/bib/bibliography.bib" in str(refused.value)


def test_a_cut_body_is_retried(server, tmp_path):
    server.add("/v84/assets/bib/bibliography.bib", need(V84).read_bytes())
    server.fault("/v84/assets/bib/bibliography.bib", Fault.cut(0.4))
    got = venue_add.fetch(tmp_path, "aistats", 2018)
    assert len(got.records) == 216 and len(server.requests) == 2


_CHILD = """
import sys
from pathlib import Path
from reader.sources import venue_add
venue_add.fetch(Path(sys.argv[1]), "wacv", 2024, progress=lambda d, t, w: print(d, flush=True))
"""


def test_kill_9_mid_fetch_resumes_from_the_cache(server, tmp_path):
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    papers = list(corpus_papers("wacv2024:", 12))
    site = cvf_site(papers, "WACV2024")
    for path, body in site.items():
        server.add(path, body)
    pages = [p for p in site if p.startswith("/content/")]
    server.fault(pages[6], Fault.slow(30))  # the child is killed while it waits for page 7
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path)], env=env, cwd=tmp_path,
                             stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not any(r.path == pages[6] for r in server.requests) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(r.path == pages[6] for r in server.requests)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    asked_before = len(server.requests)  # the listing and pages 1-7
    assert asked_before == 8
    got = venue_add.fetch(tmp_path, "wacv", 2024)
    resumed = [r.path for r in server.requests[asked_before:]]
    assert resumed == pages[6:]  # only what was not cached yet
    assert [r.title for r in got.records] == [p["title"] for p in papers]
    assert all(r.abstract for r in got.records) and got.from_cache == 7
