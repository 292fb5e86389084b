"""arXiv ids and the API's Atom feeds (reader/sources/arxiv.py), on the real recordings of
../shared/corpora/sources/arxiv_api/ (2025+ format) and ../shared/corpora/arxiv_atom/ (the old
one), served by the local replay server."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from reader.errors import ReaderError
from reader.sources import Client, Settings
from reader.sources.arxiv import ArxivId, category_page, lookup, parse_feed, parse_id, query_params

from .replay import ARXIV_API, CORPORA, ReplayServer, arxiv_recordings, load_arxiv_recordings

pytestmark = pytest.mark.skipif(not ARXIV_API.is_dir(), reason="corpora not present")
FAST = Settings(tries=2, backoff=0.05, deadline=60, timeout=30, pace_scale=0)  # generous: no time-out under load
BODIES = ARXIV_API / "extracted_bodies"


@pytest.mark.parametrize(("text", "want"), [
    ("2401.01234", ("2401.01234", "")),
    ("2401.01234v2", ("2401.01234", "v2")),
    ("arXiv:2401.01234v3", ("2401.01234", "v3")),
    ("arxiv: 1707.08567", ("1707.08567", "")),
    ("0808.0539", ("0808.0539", "")),
    ("hep-th/9901001", ("hep-th/9901001", "")),
    ("math.GT/0309136v1", ("math.gt/0309136", "v1")),
    ("quant-ph/0201082v1", ("quant-ph/0201082", "v1")),
    ("https://arxiv.org/abs/2401.01234v2", ("2401.01234", "v2")),
    ("http://arxiv.org/abs/hep-th/9901001", ("hep-th/9901001", "")),
    ("https://arxiv.org/pdf/2401.01234v2.pdf", ("2401.01234", "v2")),
    ("https://arxiv.org/pdf/2401.01234", ("2401.01234", "")),
    ("arxiv.org/abs/2401.01234?context=cs", ("2401.01234", "")),
    ("https://export.arxiv.org/abs/2401.01234", ("2401.01234", "")),
    ("10.48550/arXiv.2401.01234", ("2401.01234", "")),
    ("https://doi.org/10.48550/arXiv.2401.01234", ("2401.01234", "")),
])
def test_ids(text, want):
    assert parse_id(text) == ArxivId(*want)


@pytest.mark.parametrize("text", ["abc", "2401.123", "10.1000/xyz", "https://example.org/abs/2401.01234",
                                  "24010.1234", "hep-th/990100", ""])
def test_not_ids(text):
    assert parse_id(text) is None


def _xml_entries(path):
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2005/Atom}"
    return [(" ".join(e.findtext(f"{ns}title").split()), e.findtext(f"{ns}summary"))
            for e in root.iter(f"{ns}entry")]


@pytest.mark.parametrize("path", sorted(BODIES.glob("*.xml")), ids=lambda p: p.stem[8:40])
def test_every_recorded_feed_gives_its_exact_titles_and_abstracts(path):
    feed = parse_feed(path.read_bytes(), str(path))
    expected = _xml_entries(path)
    if "id_abc" in path.name:
        assert feed.entries == [] and feed.error == "incorrect id format for abc"
        return
    assert [e.record.title for e in feed.entries] == [t for t, _ in expected]
    for entry, (_, summary) in zip(feed.entries, expected, strict=True):
        assert entry.record.abstract == " ".join(summary.split()) or "\n\n" in entry.record.abstract
        assert entry.record.problem() is None
        assert entry.record.links[0] == f"https://arxiv.org/abs/{entry.arxiv_id.versioned}"
        assert re.match(r"^\d{4}-\d\d-\d\dT", entry.published)
    m = re.search(r"_m(\d+)_", path.name)
    if path.name.startswith("arxivpy_q_"):
        assert len(feed.entries) == int(m.group(1)) and feed.total and feed.total > 1000


def test_the_old_feed_format_reads_too():
    path = CORPORA / "arxiv_atom"
    files = sorted(p for p in path.iterdir() if p.suffix in (".xml", ".atom"))
    assert files
    feed = parse_feed(files[0].read_bytes(), str(files[0]))
    assert len(feed.entries) == 10
    assert all(e.record.title and e.record.abstract and e.record.authors for e in feed.entries)


def test_one_entry_in_full():
    feed = parse_feed((BODIES / "arxivpy_id_1707.08567_s0_m100_6a1afebfc6a3.xml").read_bytes(), "x")
    (entry,) = feed.entries
    rec = entry.record
    assert rec.title == "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications"
    assert rec.abstract.startswith('The 10th Asia-Europe workshop in "Concepts in Information Theory')
    assert rec.abstract.endswith("to pay a tribute to a well respected and special scientist.")
    assert rec.authors[0] == "Kees A. Schouhamer Immink" and rec.authors[-1] == "Hirosuke Yamamoto"
    assert len(rec.authors) == 34 and "Dirk Wübben" in rec.authors
    assert (rec.year, rec.venue, rec.arxiv, rec.entry_type) == (2017, "arXiv", "1707.08567v1", "misc")
    assert rec.links == ["https://arxiv.org/abs/1707.08567v1", "https://arxiv.org/pdf/1707.08567v1"]
    assert entry.published == "2017-07-27T08:18:33Z"


def test_not_a_feed_is_one_line():
    with pytest.raises(ReaderError, match=r"^arxiv: the answer is not an Atom feed .*: http://x$"):
        parse_feed(b"<html><body>busy</body></html>", "http://x")
    with pytest.raises(ReaderError, match="not an Atom feed"):
        parse_feed(b"not xml at all", "http://x")


def test_query_is_the_arxiv_clients_own():
    from urllib.parse import urlencode

    recorded = {p for p, _, _ in arxiv_recordings()}
    q = urlencode(query_params(ids=["0808.05394", "1707.08567"]))
    assert f"/api/query?{q}" in recorded
    q = urlencode(query_params(ids=["quant-ph/0201082v1"]))
    assert f"/api/query?{q}" in recorded


@pytest.fixture()
def arxiv_server(monkeypatch):
    with ReplayServer() as srv:
        load_arxiv_recordings(srv)
        monkeypatch.setenv("READER_SOURCE_ARXIV_URL", srv.url)
        yield srv


def test_lookup_batches_ids_and_names_the_unknown(arxiv_server, tmp_path):
    with Client(tmp_path, settings=FAST) as client:
        got = lookup(client, [ArxivId("0808.05394"), ArxivId("1707.08567")])
    assert list(got.found) == ["1707.08567"]
    assert got.unknown == {"0808.05394": "arXiv has no paper with this id"}
    assert len(arxiv_server.requests) == 1  # one request for both


def test_lookup_old_style_with_version(arxiv_server, tmp_path):
    with Client(tmp_path, settings=FAST) as client:
        got = lookup(client, [parse_id("quant-ph/0201082v1")])
    (entry,) = got.found.values()
    assert entry.arxiv_id == ArxivId("quant-ph/0201082", "v1")
    assert got.unknown == {}


def test_lookup_error_feed_names_the_reason(arxiv_server, tmp_path):
    with Client(tmp_path, settings=FAST) as client:
        got = lookup(client, [ArxivId("abc")])
    assert got.unknown == {"abc": "incorrect id format for abc"}


def test_category_page_asks_newest_first(arxiv_server, tmp_path):
    body = (BODIES / "arxivpy_q_testing_s0_m10_bc5a6c384fe9.xml").read_bytes()
    arxiv_server.add("/api/query?search_query=cat:cs.LG&id_list=&sortBy=submittedDate&sortOrder=descending"
                     "&start=0&max_results=100", body)
    with Client(tmp_path, settings=FAST) as client:
        feed = category_page(client, "cs.LG")
    assert len(feed.entries) == 10
    assert arxiv_server.requests[-1].query.startswith("search_query=cat%3Acs.LG&id_list=&sortBy=submittedDate")


def test_a_batch_refused_is_asked_one_by_one_and_a_404_names_the_id(arxiv_server, tmp_path):
    """The recordings hold 1707.08567 and quant-ph/0201082v1 alone, not together: the batch of
    both gets 404 from the replay server (as from a mirror that refuses it); each is then asked
    alone. An id whose own request gets 404 is unknown, named with the answer, the rest found."""
    with Client(tmp_path, settings=FAST) as client:
        got = lookup(client, [ArxivId("1707.08567"), ArxivId("quant-ph/0201082", "v1"), ArxivId("2401.00001")])
    assert list(got.found) == ["1707.08567", "quant-ph/0201082v1"]
    assert list(got.unknown) == ["2401.00001"]
    assert got.unknown["2401.00001"].startswith(f"127.0.0.1:{arxiv_server.port} answered 404 Not Found: http://")
    assert len(arxiv_server.requests) == 4
