"""Add by identifier (reader/sources/ids.py, crossref.py, openreview.py): what an id is, and
fetching a mixed list through the replay server (arXiv: real recordings; Crossref and
OpenReview: fixtures built from their published schemas, see fixtures.py)."""

from __future__ import annotations

import pytest

from reader.sources import Client, FetchError, Settings
from reader.sources.crossref import jats_text, work_record
from reader.sources.ids import classify, fetch_ids
from reader.sources.openreview import note_record, parse_forum_id, status_of

from .fixtures import (
    CROSSREF_BODY,
    CROSSREF_DOI,
    CROSSREF_WORK,
    OPENREVIEW_BODY,
    OPENREVIEW_ID,
    OPENREVIEW_NOTES,
)
from .replay import ARXIV_API, Fault, ReplayServer, closed_port, load_arxiv_recordings

FAST = Settings(tries=2, backoff=0.05, deadline=60, timeout=30, pace_scale=0)  # generous: no time-out under load


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("2401.01234v2", "arxiv", "2401.01234v2"),
    ("arXiv:hep-th/9901001", "arxiv", "hep-th/9901001"),
    ("https://arxiv.org/pdf/2401.01234.pdf", "arxiv", "2401.01234"),
    ("10.48550/arXiv.2401.01234", "arxiv", "2401.01234"),
    ("10.1145/3292500.3330701", "doi", "10.1145/3292500.3330701"),
    ("doi:10.1145/3292500.3330701", "doi", "10.1145/3292500.3330701"),
    ("https://doi.org/10.1038/NATURE14539", "doi", "10.1038/nature14539"),
    ("https://openreview.net/forum?id=ZS8jGW5Pli", "openreview", "ZS8jGW5Pli"),
    ("https://openreview.net/pdf?id=ZS8jGW5Pli", "openreview", "ZS8jGW5Pli"),
    ("openreview:rJ4km2R5t7", "openreview", "rJ4km2R5t7"),
    ("ZS8jGW5Pli", "openreview", "ZS8jGW5Pli"),
])
def test_classify(text, kind, value):
    ident = classify(text)
    assert ident is not None and (ident.kind, ident.value) == (kind, value)


@pytest.mark.parametrize("text", ["abc", "", "   ", "hello", "https://example.org/paper", "10.12/x"])
def test_not_an_id(text):
    assert classify(text) is None


def test_jats_abstract_is_stripped():
    text = jats_text(CROSSREF_WORK["message"]["abstract"])
    assert text.startswith("The dominant sequence transduction models")
    assert "<" not in text and "quality & more parallelizable, with BLEU 28.4." in text
    assert text.count("\n\n") == 1


def test_crossref_work_record():
    rec = work_record(CROSSREF_WORK["message"])
    assert rec.title == "Attention is all you need"
    assert rec.authors == ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"]
    assert (rec.year, rec.doi, rec.entry_type) == (2017, CROSSREF_DOI, "inproceedings")
    assert rec.venue.startswith("Proceedings of the 31st International Conference")
    assert rec.links == [f"https://doi.org/{CROSSREF_DOI}"]
    assert rec.problem() is None


def test_openreview_note_record():
    rec = note_record(OPENREVIEW_NOTES["notes"][0])
    assert rec.title == "Sparse Mixture of Experts at Scale: A Study of Routing"
    assert rec.abstract.endswith("Our analysis covers 12 model sizes.") and "\n\n" in rec.abstract
    assert (rec.venue, rec.year, rec.status, rec.openreview) == ("ICLR 2024", 2024, "spotlight", OPENREVIEW_ID)
    assert rec.links == [f"https://openreview.net/forum?id={OPENREVIEW_ID}",
                         "https://openreview.net/pdf/0123456789abcdef0123456789abcdef01234567.pdf"]
    assert status_of("ICLR 2024 oral") == "oral" and status_of("Submitted to ICLR 2024") is None
    assert parse_forum_id("https://openreview.net/forum?id=abc_DEF-12&noteId=x") == "abc_DEF-12"


@pytest.fixture()
def services(monkeypatch):
    with ReplayServer() as srv:
        if ARXIV_API.is_dir():
            load_arxiv_recordings(srv)
        srv.add(f"/works/{CROSSREF_DOI}", CROSSREF_BODY)
        srv.add(f"/notes?id={OPENREVIEW_ID}", OPENREVIEW_BODY)
        srv.add("/notes?id=NoSuchForum1", b'{"name":"NotFoundError","message":"Note not found"}', status=404)
        for name in ("ARXIV", "CROSSREF", "OPENREVIEW"):
            monkeypatch.setenv(f"READER_SOURCE_{name}_URL", srv.url)
        yield srv


@pytest.mark.skipif(not ARXIV_API.is_dir(), reason="corpora not present")
def test_fetch_a_mixed_list_in_order(services, tmp_path):
    # (the two arXiv ids in the order of the recorded two-id request)
    ids = ["0808.05394", CROSSREF_DOI, f"https://openreview.net/forum?id={OPENREVIEW_ID}",
           "arXiv:1707.08567", "10.9999/no.such.doi", "NoSuchForum1", "what is this"]
    with Client(tmp_path, settings=FAST) as client:
        got = fetch_ids(client, ids)
    assert [r.ident for r in got] == ids
    assert got[3].record.title.startswith("Proceedings of Workshop AEW10")
    assert got[1].record.title == "Attention is all you need"
    assert got[2].record.status == "spotlight"
    assert got[0].error == "0808.05394: arXiv has no paper with this id"
    assert got[4].error == "10.9999/no.such.doi: crossref: no work with DOI 10.9999/no.such.doi"
    assert got[5].error == "NoSuchForum1: openreview: no public paper with forum id NoSuchForum1"
    assert got[6].error == "what is this: not an arXiv id, DOI or OpenReview id"
    assert all((r.record is None) != (r.error is None) for r in got)
    arxiv_requests = [r for r in services.requests if r.path == "/api/query"]
    assert len(arxiv_requests) == 1  # both arXiv ids in one request


def test_an_unreachable_service_stops_the_whole_fetch(tmp_path, monkeypatch):
    monkeypatch.setenv("READER_SOURCE_CROSSREF_URL", f"http://127.0.0.1:{closed_port()}")
    with Client(tmp_path, settings=FAST) as client, pytest.raises(FetchError, match="connection refused"):
        fetch_ids(client, [CROSSREF_DOI])


def test_a_503_from_openreview_is_one_line(services, tmp_path):
    services.fault("/notes", *[Fault.status_code(503)] * 3)
    with Client(tmp_path, settings=FAST) as client, pytest.raises(FetchError) as err:
        fetch_ids(client, [OPENREVIEW_ID])
    assert str(err.value).startswith("openreview: 127.0.0.1:") and "503 Service Unavailable" in str(err.value)
