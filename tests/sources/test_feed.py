"""Following arXiv (`reader feed`, reader/sources/feeds.py): a category page fully added in its
collection, later updates paging back to the last newest submission (minus the announcement
overlap) without duplicates, replacements updating the paper. Pages are the real recorded arXiv
API bodies (arxiv_api/extracted_bodies) served under the category query."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest

from reader.library import Library
from reader.models import Record
from reader.sources import Client, Settings
from reader.sources.arxiv import parse_feed, query_params
from reader.sources.feeds import fetch_new, parse_spec
from reader.store.feeds import collection_name

from .replay import ARXIV_API, ReplayServer
from .test_add import cli

pytestmark = pytest.mark.skipif(not ARXIV_API.is_dir(), reason="corpora not present")
BODIES = ARXIV_API / "extracted_bodies"
PAGE100 = BODIES / "arxivpy_q_testing_s0_m100_cfe7536492ca.xml"
FAST = Settings(tries=2, backoff=0.05, deadline=60, timeout=30, pace_scale=0)  # generous: no time-out under load


def _cat_path(category: str, start: int, query: str = "") -> str:
    search = f"cat:{category}" + (f" AND ({query})" if query else "")
    return "/api/query?" + urlencode(query_params(search=search, sort_by="submittedDate", start=start,
                                                  max_results=100))


def _newest_first(body: bytes) -> bytes:
    """The recorded page with its entries in submission order, newest first (as the category
    query sorts them); the entries themselves are the recorded bytes."""
    text = body.decode()
    head, _, rest = text.partition("<entry>")
    parts = ("<entry>" + rest).split("</entry>")
    tail = parts.pop()
    entries = [p + "</entry>" for p in parts]
    entries.sort(key=lambda e: re.search(r"<published>(.*?)</published>", e).group(1), reverse=True)
    return (head + "".join(entries) + tail).encode()


@pytest.fixture()
def server(monkeypatch):
    with ReplayServer() as srv:
        monkeypatch.setenv("READER_SOURCE_ARXIV_URL", srv.url)
        for name, value in (("READER_SOURCE_RETRIES", "2"), ("READER_SOURCE_BACKOFF", "0.05"),
                            ("READER_SOURCE_PACE_SCALE", "0")):
            monkeypatch.setenv(name, value)
        yield srv


def test_specs():
    assert parse_spec("arxiv:cs.LG") == ("arxiv", "cs.LG")
    assert parse_spec("arXiv:hep-th") == ("arxiv", "hep-th")
    for bad in ("cs.LG", "pmlr:v235", "arxiv:", "arxiv:cs LG"):
        with pytest.raises(Exception, match="arxiv:CATEGORY|not an arXiv category"):
            parse_spec(bad)
    assert collection_name("cs.LG") == "arXiv cs.LG"
    assert collection_name("cs.LG", "ti:diffusion") == "arXiv cs.LG: ti:diffusion"


def test_first_update_takes_one_page_later_ones_page_back_to_the_last_newest(server, tmp_path):
    body = _newest_first(PAGE100.read_bytes())
    entries = parse_feed(body, "x").entries
    server.add(_cat_path("cs.LG", 0), body)
    with Client(tmp_path, settings=FAST) as client:
        first = fetch_new(client, "cs.LG")
        assert (first.pages, len(first.records)) == (1, 100)
        assert first.newest == entries[0].published
        # A later update, whose last newest is the 10th entry's: the page holds older ones, so
        # it stops there, keeping those from 3 days before that newest on.
        newest = entries[9].published
        second = fetch_new(client, "cs.LG", newest=newest)
    from datetime import datetime, timedelta

    cutoff = datetime.fromisoformat(newest.replace("Z", "+00:00")) - timedelta(days=3)
    kept = [e for e in entries if datetime.fromisoformat(e.published.replace("Z", "+00:00")) >= cutoff]
    assert second.pages == 1 and len(second.records) == len(kept) < 100
    assert [r.arxiv for r in second.records] == [e.record.arxiv for e in kept]


def test_a_full_page_without_older_entries_asks_the_next(server, tmp_path):
    body = _newest_first(PAGE100.read_bytes())
    entries = parse_feed(body, "x").entries
    server.add(_cat_path("cs.LG", 0), body)
    page2 = _newest_first((BODIES / "arxivpy_q_testing_s0_m10_bc5a6c384fe9.xml").read_bytes())
    server.add(_cat_path("cs.LG", 100), page2)
    from datetime import datetime, timedelta

    oldest = datetime.fromisoformat(min(e.published for e in entries).replace("Z", "+00:00"))
    newest = (oldest + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")  # every entry of page 1 is kept
    with Client(tmp_path, settings=FAST) as client:
        got = fetch_new(client, "cs.LG", newest=newest)
    assert [r.path + "?" + r.query for r in server.requests][-1] == _cat_path("cs.LG", 100)
    assert got.pages == 2 and len(got.records) >= 100


def test_reader_feed_add_list_update(server, tmp_path):
    body = _newest_first(PAGE100.read_bytes())
    server.add(_cat_path("cs.LG", 0), body)
    lib_dir = tmp_path / "lib"
    code, out, err = cli(lib_dir, "feed", "add", "arxiv:cs.LG", "arxiv:stat.ML")
    assert code == 0, err
    assert out.splitlines() == ['following arxiv:cs.LG (papers land in "arXiv cs.LG")',
                                'following arxiv:stat.ML (papers land in "arXiv stat.ML")']
    code, out, _ = cli(lib_dir, "feed", "add", "arxiv:cs.LG")
    assert out.startswith("already following arxiv:cs.LG")
    code, out, err = cli(lib_dir, "feed", "add", "pmlr:v235")
    assert code == 2 and "arxiv:CATEGORY" in err
    code, out, _ = cli(lib_dir, "feed", "list", "--json")
    feeds = __import__("json").loads(out)
    assert [f["feed"] for f in feeds] == ["arxiv:cs.LG", "arxiv:stat.ML"] and feeds[0]["updated_at"] is None

    server.add(_cat_path("stat.ML", 0), b"<?xml version='1.0' encoding='UTF-8'?>"
               b"<feed xmlns='http://www.w3.org/2005/Atom' xmlns:opensearch='http://a9.com/-/spec/opensearch/1.1/'>"
               b"<opensearch:totalResults>0</opensearch:totalResults></feed>")
    code, out, err = cli(lib_dir, "feed", "update")
    assert code == 0, err
    assert out.splitlines()[0] == "arxiv:cs.LG: 100 new, 0 updated, 0 unchanged (1 page)"
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert lib.counts().total == 100
        ids = lib.paper_ids()
        assert all(p.collections == ["arXiv cs.LG"] for p in lib.papers(ids))
        (cs,) = [f for f in lib.feeds() if f.category == "cs.LG"]
        assert cs.updated_at and cs.newest == parse_feed(body, "x").entries[0].published
        lib.set_starred(ids[:3], True)
    # Again: the same page (nothing newer): every paper in the overlap is matched, none added.
    code, out, err = cli(lib_dir, "feed", "update")
    assert code == 0 and re.match(r"arxiv:cs.LG: 0 new, 0 updated, \d+ unchanged", out)
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert lib.counts().total == 100 and lib.counts().starred == 3


def test_a_replacement_updates_the_paper(server, tmp_path):
    body = _newest_first(PAGE100.read_bytes())
    server.add(_cat_path("cs.LG", 0), body)
    lib_dir = tmp_path / "lib"
    cli(lib_dir, "feed", "add", "arxiv:cs.LG")
    assert cli(lib_dir, "feed", "update")[0] == 0
    first = parse_feed(body, "x").entries[0]
    v = first.arxiv_id.version
    newer = body.replace(f"abs/{first.arxiv_id.id}{v}".encode(), f"abs/{first.arxiv_id.id}v9".encode()).replace(
        first.record.title.encode(), b"A Replaced Title")
    server.add(_cat_path("cs.LG", 0), newer)
    code, out, _ = cli(lib_dir, "feed", "update")
    assert code == 0 and ": 0 new, 1 updated," in out
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert lib.counts().total == 100
        (p,) = [p for p in lib.papers(lib.paper_ids()) if p.title == "A Replaced Title"]
        assert f"https://arxiv.org/abs/{first.arxiv_id.id}v9" in p.links


def test_the_new_view_lists_unread_feed_papers_best_first(server, tmp_path):
    from reader.models import ViewKind
    from reader.store.views import View

    body = _newest_first(PAGE100.read_bytes())
    server.add(_cat_path("cs.LG", 0), body)
    lib_dir = tmp_path / "lib"
    cli(lib_dir, "feed", "add", "arxiv:cs.LG")
    cli(lib_dir, "feed", "update")
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        lib.add_fetched([Record(abstract="Unrelated paper imported by hand, not from any followed feed at all.",
                                title="Not a feed paper")], collection="hand", origin="hand")
        papers = lib.papers(lib.paper_ids())
        feed_ids = [p.id for p in papers if p.collections == ["arXiv cs.LG"]]
        assert len(feed_ids) == 100
        software = [p.id for p in papers if "software" in (p.title + p.abstract).lower() and p.id in feed_ids]
        assert len(software) >= 10
        lib.set_starred(software[:4], True)
        lib.set_read(software[:4], True)  # read: out of New, but they teach it what the reader likes
        lib.set_skipped([i for i in feed_ids if i not in software][:3], True)
        new = lib.paper_ids(View(ViewKind.NEW))
        assert set(new) == set(feed_ids) - set(software[:4]) - set([i for i in feed_ids if i not in software][:3])
        assert len(new) == len(set(new)) == 93
        rest = set(software[4:])
        top = sum(1 for i in new[:20] if i in rest)
        bottom = sum(1 for i in new[-20:] if i in rest)
        assert top > bottom, (top, bottom)


def test_reader_feed_remove(server, tmp_path):
    lib_dir = tmp_path / "lib"
    cli(lib_dir, "feed", "add", "arxiv:cs.LG", "arxiv:math.ST")
    code, out, err = cli(lib_dir, "feed", "remove", "arxiv:hep-th")
    assert code == 1 and err == "reader: not following arxiv:hep-th (reader feed list)\n"
    code, out, _ = cli(lib_dir, "feed", "remove", "arxiv:cs.LG")
    assert code == 0 and out == 'stopped following arxiv:cs.LG (its papers stay in "arXiv cs.LG")\n'
    code, out, _ = cli(lib_dir, "feed", "list")
    assert out.startswith("arxiv:math.ST") and "cs.LG" not in out


def test_feed_update_with_the_network_off_says_so_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    from .replay import closed_port

    for name, value in (("READER_SOURCE_RETRIES", "2"), ("READER_SOURCE_BACKOFF", "0.05"),
                        ("READER_SOURCE_PACE_SCALE", "0"), ("READER_SOURCE_DEADLINE", "60")):
        monkeypatch.setenv(name, value)
    port = closed_port()
    monkeypatch.setenv("READER_SOURCE_ARXIV_URL", f"http://127.0.0.1:{port}")
    lib_dir = tmp_path / "lib"
    assert cli(lib_dir, "feed", "add", "arxiv:cs.LG", "arxiv:stat.ML")[0] == 0
    db = lib_dir / "library.sqlite3"
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        before = [(f.category, f.updated_at, f.newest) for f in lib.feeds()]
        data_version = lib.read_connection().execute("SELECT COUNT(*) FROM papers").fetchone()[0]
    dump = _dump(db)
    code, out, err = cli(lib_dir, "feed", "update")
    assert code != 0 and out == ""
    [line] = err.splitlines()
    assert line.startswith(f"reader: arxiv: 127.0.0.1:{port} did not answer (connection refused) after 2 tries: "
                           f"http://127.0.0.1:{port}/api/query?search_query=cat%3Acs.LG")
    assert "Traceback" not in err
    assert _dump(db) == dump  # nothing written
    with Library.open(lib_dir, seed_if_empty=False) as lib:
        assert [(f.category, f.updated_at, f.newest) for f in lib.feeds()] == before
        assert lib.read_connection().execute("SELECT COUNT(*) FROM papers").fetchone()[0] == data_version == 0


def _dump(db) -> list[str]:
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()
