"""The store side of fetched papers: m0015_sources (openreview/status columns filled from the
links papers already had, the feeds table) and identity by OpenReview forum id."""

from __future__ import annotations

import json

from reader.identity import Keys, Matcher, openreview_key
from reader.library import Library
from reader.models import Record
from reader.store import SCHEMA_MIGRATIONS, open_connection, open_database

PID = "00ff00ff00ff00ff"


def test_m0015_finds_openreview_ids_in_the_links_papers_had(tmp_path):
    root = tmp_path / "old"
    root.mkdir()
    conn = open_connection(root / "library.sqlite3")
    SCHEMA_MIGRATIONS.apply(open_database(conn), stop_before="m0015_sources")
    conn.execute(
        "INSERT INTO papers (id, title, title_source, derived_title, abstract, added_at, updated_at, links) "
        "VALUES (?, 'Old', 'imported', 'Old', 'An abstract long enough to keep as one.', "
        "'2025-01-01T00:00:00+00:00', '2025-01-01T00:00:00+00:00', ?)",
        [PID, json.dumps(["https://example.org/x", "https://openreview.net/forum?id=Zx9_ab-CD1"])])
    conn.close()
    with Library.open(root) as lib:
        row = lib.read_connection().execute("SELECT openreview, status FROM papers").fetchone()
        assert tuple(row) == ("Zx9_ab-CD1", "")
        assert lib.feeds() == []
        # A fetched record naming that forum is the same paper, whatever its title.
        res = lib.add_fetched([Record(abstract="", title="Another title entirely", openreview="Zx9_ab-CD1",
                                      links=["https://openreview.net/forum?id=Zx9_ab-CD1"], status="poster")],
                              collection="ICLR 2025", origin="openreview")
        assert res.ids == [PID] and lib.counts().total == 1
        assert lib.paper(PID).status == "poster"


def test_openreview_keys():
    assert openreview_key("https://openreview.net/forum?id=rJ4km2R5t7") == "rJ4km2R5t7"
    assert openreview_key("https://openreview.net/forum?noteId=x&id=rJ4km2R5t7") == "rJ4km2R5t7"
    assert openreview_key("https://openreview.net/pdf?id=rJ4km2R5t7") == "rJ4km2R5t7"
    assert openreview_key("rJ4km2R5t7") == "" and openreview_key("rJ4km2R5t7", bare=True) == "rJ4km2R5t7"
    a = Keys.of(Record(abstract="x" * 40, title="A title", links=["https://openreview.net/forum?id=Abc12345"]))
    b = Keys.of(Record(abstract="y" * 40, title="A title, revised", openreview="Abc12345"))
    assert a.openreview == b.openreview == "Abc12345"
    m = Matcher()
    m.add("p1", a)
    assert m.find(b) == "p1"
    # A title-only paper's id does not change for papers without one (ids made before stay).
    plain = Record(abstract="", title="Only a title", authors=["A B"], year=2020)
    assert Keys.of(plain).bases(plain) == Keys(abstract="", title="only a title", doi="", arxiv="",
                                               ident="only a title|b|2020").bases(plain)


def test_re_adding_fetched_papers_computes_each_records_keys_once(tmp_path, monkeypatch):
    """The offline re-add of a venue: every record is a known paper; its identity keys are worked
    out once (matching before, updating, matching after share them), not three times."""
    records = [Record(abstract=f"Abstract number {n} of a fetched venue, long enough to be one.",
                      title=f"Paper {n}", authors=["A Author"], year=2025, venue="ICLR 2025",
                      openreview=f"Forum{n:04d}", links=[f"https://openreview.net/forum?id=Forum{n:04d}"])
               for n in range(20)]
    with Library.open(tmp_path / "lib") as lib:
        first = lib.add_fetched(records, collection="ICLR 2025", origin="openreview:ICLR.cc/2025/Conference")
        assert first.new == 20
        calls = []
        real = Keys.of.__func__  # type: ignore[attr-defined]
        monkeypatch.setattr(Keys, "of", classmethod(lambda cls, rec: calls.append(rec) or real(cls, rec)))
        again = lib.add_fetched(records, collection="ICLR 2025", origin="openreview:ICLR.cc/2025/Conference")
        assert (again.new, again.unchanged) == (0, 20) and again.ids == first.ids
        assert len(calls) == 20
