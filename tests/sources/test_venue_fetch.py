"""fetch_venue over a fake client: source order, paging, fallbacks, one-line refusals, cancel.

The bodies are the real PMLR volume (../shared/corpora/bibtex) and OpenReview/CVF bodies built
from the services' published shapes around real corpus papers (see venue_fixtures.py: no real
OpenReview v2 or CVF recording exists here)."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

from reader.errors import ReaderError, UsageError
from reader.sources import venue_fetch
from reader.sources.venue_fetch import NotServed, VenueCancelled, fetch_venue

from .venue_fixtures import CORPORA, PAPERS, corpus_papers, cvf_site, openreview_pages


@dataclass
class Reply:
    body: bytes
    url: str
    status: int = 200
    from_cache: bool = False


class FakeService:
    """path?query -> body; anything else answers `missing` (404)."""

    def __init__(self, pages: dict[tuple[str, str], bytes], missing: int = 404) -> None:
        self.pages, self.missing, self.asked = pages, missing, []

    def __call__(self, source, path, params):
        key = path + ("?" + urlencode(params) if params else "")
        self.asked.append((source, key))
        body = self.pages.get((source, key))
        return Reply(body or b"", f"http://{source}.test{key}", 200 if body is not None else self.missing)


def _papers(prefix, n):
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    return list(corpus_papers(prefix, n))


def test_pmlr_first_when_it_has_the_volume():
    bib = CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"
    if not bib.exists():
        pytest.skip("bibtex corpus not available")
    service = FakeService({("pmlr", "/v84/assets/bib/bibliography.bib"): bib.read_bytes()})
    got = fetch_venue("AISTATS", 2018, get=service)
    assert (got.source, got.label, len(got.records), got.requests) == ("pmlr", "AISTATS 2018", 216, 1)


def test_openreview_pages_until_a_short_page(monkeypatch):
    monkeypatch.setattr(venue_fetch.openreview_venue, "PAGE", 10)
    papers = _papers("colm2024:", 25)
    vid = "ICLR.cc/2025/Conference"
    pages = openreview_pages(papers, vid, "ICLR 2025", limit=10)
    service = FakeService({("openreview", "/notes?" + urlencode(
        {"content.venueid": vid, "offset": str(o), "limit": "10"})): body for o, body in pages.items()})
    seen = []
    got = fetch_venue("iclr", 2025, get=service, progress=lambda d, t, w: seen.append((d, t)))
    assert [r.title for r in got.records] == [p["title"] for p in papers]
    assert got.requests == 3 and got.records[0].status == "oral"
    assert seen[-1] == (25, 25)


def test_openreview_full_last_page_asks_once_more_and_an_empty_venue_is_not_served(monkeypatch):
    monkeypatch.setattr(venue_fetch.openreview_venue, "PAGE", 10)
    papers = _papers("colm2024:", 10)
    vid = "ICLR.cc/2027/Conference"
    pages = openreview_pages(papers, vid, "ICLR 2027", limit=10)
    service = FakeService({("openreview", "/notes?" + urlencode(
        {"content.venueid": vid, "offset": str(o), "limit": "10"})): body for o, body in pages.items()})
    assert len(fetch_venue("iclr", 2027, get=service).records) == 10 and len(service.asked) == 2
    empty = FakeService({("openreview", "/notes?" + urlencode(
        {"content.venueid": "NeurIPS.cc/2026/Conference", "offset": "0", "limit": "10"})): b'{"notes": [], "count": 0}'})
    with pytest.raises(NotServed, match=r"^neurips 2026: not available yet; tried openreview "
                                        r"http://openreview\.test/notes\?content\.venueid=NeurIPS\.cc%2F2026.* "
                                        r"\(no accepted papers listed\)$"):
        fetch_venue("neurips", 2026, get=empty)


def test_openreview_ignoring_offset_is_an_error_not_a_loop(monkeypatch):
    monkeypatch.setattr(venue_fetch.openreview_venue, "PAGE", 10)
    body = openreview_pages(_papers("colm2024:", 10), "X", "ICLR 2025", limit=10)[0]

    def same_page(source, path, params):
        return Reply(body, "http://o/notes")
    with pytest.raises(ReaderError, match="repeats the previous page"):
        fetch_venue("iclr", 2025, get=same_page)


def test_cvf_listing_then_every_page():
    papers = _papers("wacv2024:", 6)
    site = cvf_site(papers, "WACV2024")
    service = FakeService({("cvf", k.replace("?day=all", "?day=all")): v for k, v in site.items()})
    got = fetch_venue("wacv", 2024, get=service)
    assert got.requests == 7 and len(got.records) == 6
    assert [r.abstract for r in got.records] == [" ".join(p["abstract"].split()) for p in papers]
    assert {r.venue for r in got.records} == {"WACV"}


def test_icml_2026_falls_through_to_openreview_403_in_one_line():
    service = FakeService({}, missing=403)
    with pytest.raises(NotServed) as info:
        fetch_venue("icml", 2026, get=service)
    message = str(info.value)
    assert "\n" not in message
    assert message == ("icml 2026: not available yet; tried openreview http://openreview.test/notes?"
                       "content.venueid=ICML.cc%2F2026%2FConference&offset=0&limit=1000 (403 Forbidden)")


def test_a_404_volume_falls_back_to_the_next_source():
    service = FakeService({})  # PMLR 404, OpenReview 404
    with pytest.raises(NotServed, match=r"tried pmlr http://pmlr\.test/v267/assets/bib/bibliography\.bib "
                                        r"\(404 Not Found\); openreview http://openreview\.test/notes"):
        fetch_venue("icml", 2025, get=service)


def test_source_choice_and_unknowns():
    with pytest.raises(UsageError, match="source 'cvf' does not serve it"):
        fetch_venue("icml", 2025, get=FakeService({}), source="cvf")
    with pytest.raises(UsageError, match="unknown venue"):
        fetch_venue("nope", 2025, get=FakeService({}))
    with pytest.raises(NotServed, match="^aistats 2027: no source serves it"):
        fetch_venue("aistats", 2027, get=FakeService({}))


def test_server_errors_stop_at_once():
    class Down(ReaderError):
        status = 503

    def down(source, path, params):
        raise Down(f"{source}: did not answer (503 Service Unavailable) after 4 tries: {path}")
    with pytest.raises(Down):
        fetch_venue("icml", 2025, get=down)


def test_cancel_between_requests():
    papers = _papers("wacv2024:", 4)
    site = cvf_site(papers, "WACV2024")
    service = FakeService({("cvf", k): v for k, v in site.items()})
    with pytest.raises(VenueCancelled):
        fetch_venue("wacv", 2024, get=service, cancelled=lambda: len(service.asked) >= 2)
    assert len(service.asked) == 2


def test_a_cached_source_is_tried_first():
    """ICML 2025 came from OpenReview once (say PMLR was chosen away): offline, the cached
    OpenReview pages serve it without asking PMLR."""
    papers = _papers("colm2024:", 3)
    vid = "ICML.cc/2025/Conference"
    pages = openreview_pages(papers, vid, "ICML 2025")
    key = "/notes?" + urlencode({"content.venueid": vid, "offset": "0", "limit": "1000"})
    service = FakeService({("openreview", key): pages[0]})

    def cached(source, path, params):
        return source == "openreview" and path + "?" + urlencode(params or {}) == key
    got = fetch_venue("icml", 2025, get=service, cached=cached)
    assert got.source == "openreview" and [s for s, _ in service.asked] == ["openreview"]
