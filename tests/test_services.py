"""The Library service on the bundled seeds: import, edits, search, backup round trip, bad input."""

from __future__ import annotations

import json
import re

import pytest

from reader.errors import ReaderError
from reader.library import Library, View
from reader.models import HighlightColour
from reader.text import abstract_plain


def _find(lib, needle: str) -> str:
    for pid in lib.paper_ids():
        if needle in lib.paper(pid).abstract:
            return pid
    raise AssertionError(needle)


def test_seeds_give_56_papers_and_reimport_adds_nothing(lib):
    assert lib.counts().total == 56
    again = lib.import_seeds()
    assert sum(s.new for s in again) == 0
    assert sum(s.duplicates for s in again) == 57
    assert lib.counts().total == 56
    assert lib.collections() == [("ICML 2025 Papers", 56)]


def test_the_duplicated_seed_lists_both_sources(lib):
    multi = [p for p in lib.papers(lib.paper_ids()) if len(p.sources) > 1]
    assert len(multi) == 1


def test_every_seed_paper_has_a_readable_title(lib):
    for p in lib.papers(lib.paper_ids()):
        t = p.title
        assert 10 <= len(t) <= 100, t
        assert p.title_source == "derived"
        assert "$" not in t and "\\" not in t and "**" not in t, t


def test_methods_found(lib):
    methods = {p.method for p in lib.papers(lib.paper_ids())}
    for name in ("SpargeAttn", "AsymRnR", "MODA", "Orthus"):
        assert name in methods


def test_seed_venue_and_year(lib):
    p = lib.paper(lib.paper_ids()[0])
    assert (p.venue, p.year) == ("ICML", 2025)


def test_star_tag_note_reach_the_search_at_once(lib):
    pid = _find(lib, "mode connectivity")
    lib.set_starred([pid], True)
    assert [h.id for h in lib.search("is:starred").hits] == [pid]
    lib.add_tags([pid], ["symmetry"])
    assert [h.id for h in lib.search("tag:symmetry").hits] == [pid]
    lib.set_note(pid, "Compare with **linear** mode connectivity results.")
    assert [h.id for h in lib.search("note:linear").hits] == [pid]
    lib.set_starred([pid], False)
    assert lib.search("is:starred").hits == []


def test_search_acceptance_on_seeds(lib):
    sparge = _find(lib, "SpargeAttn")
    assert lib.search("sparse attention").hits[0].id == sparge
    assert sparge in [h.id for h in lib.search("atention~").hits]
    phrase = lib.search('"mode connectivity"').hits
    assert phrase and all("mode connectivity" in lib.paper(h.id).abstract for h in phrase)
    bad = lib.search("title:(")
    assert bad.problem


def test_search_within_a_view(lib):
    pid = _find(lib, "SpargeAttn")
    lib.set_starred([pid], True)
    hits = lib.search("attention", view=View("starred")).hits
    assert [h.id for h in hits] == [pid]


def test_views_and_counts(lib):
    ids = lib.paper_ids()
    lib.set_read(ids[:5], True)
    lib.set_starred(ids[:2], True)
    lib.set_note(ids[0], "a note")
    c = lib.counts()
    assert (c.total, c.read, c.unread, c.starred, c.with_notes) == (56, 5, 51, 2, 1)
    assert set(lib.paper_ids(View("starred"))) == set(ids[:2])
    assert len(lib.paper_ids(View("unread"))) == 51
    assert lib.paper_ids(View("notes")) == [ids[0]]
    titles = [lib.rows([i])[i].title.casefold() for i in lib.paper_ids(sort="title", descending=False)]
    assert titles == sorted(titles)


def test_title_edit_and_revert(lib):
    pid = lib.paper_ids()[0]
    derived = lib.paper(pid).title
    lib.set_title(pid, "My   own title")
    p = lib.paper(pid)
    assert (p.title, p.title_source) == ("My own title", "edited")
    assert [h.id for h in lib.search('title:"own title"').hits] == [pid]
    lib.set_title(pid, "")
    p = lib.paper(pid)
    assert (p.title, p.title_source) == (derived, "derived")


def test_tags_rename_merge_delete(lib):
    a, b = lib.paper_ids()[:2]
    lib.add_tags([a], ["RL", "theory"])
    lib.add_tags([b], ["rl"])  # same tag, other case
    assert lib.tags() == [("RL", 2), ("theory", 1)]
    lib.rename_tag("theory", "RL")  # merge
    assert lib.tags() == [("RL", 2)]
    lib.rename_tag("RL", "reinforcement learning")
    assert [h.id for h in lib.search('tag:"reinforcement learning"').hits] != []
    lib.delete_tag("reinforcement learning")
    assert lib.tags() == []
    assert lib.search("tag:rl").hits == []


def test_highlights_quote_the_plain_text(lib):
    pid = _find(lib, "mode connectivity")
    plain = abstract_plain(lib.paper(pid).abstract)
    start = plain.index("mode connectivity")
    hid = lib.add_highlight(pid, start, start + 17, "#ffe066", "zebrafinch idea")
    h = lib.paper(pid).highlights[0]
    assert (h.id, h.quote, h.comment) == (hid, "mode connectivity", "zebrafinch idea")
    assert [x.id for x in lib.search("zebrafinch").hits] == [pid]
    with pytest.raises(ReaderError):
        lib.add_highlight(pid, 5, 10_000, "#fff")
    lib.remove_highlight(hid)
    assert lib.paper(pid).highlights == []


def test_delete_and_restore_snapshot(lib):
    pid = lib.paper_ids()[0]
    lib.add_tags([pid], ["keep"])
    lib.set_note(pid, "my note")
    before = lib.snapshot([pid])
    lib.delete_papers([pid])
    assert lib.paper(pid) is None and lib.counts().total == 55
    assert lib.tags() == []
    lib.restore(before)
    p = lib.paper(pid)
    assert p.tags == ["keep"] and p.note == "my note"
    assert pid in [h.id for h in lib.search("tag:keep").hits]


def test_resolve_id_prefix(lib):
    pid = lib.paper_ids()[0]
    assert lib.resolve_id(pid[:8]) == pid
    with pytest.raises(ReaderError):
        lib.resolve_id("zz")
    with pytest.raises(ReaderError):
        lib.resolve_id("")


def test_json_backup_round_trip(lib, tmp_path):
    ids = lib.paper_ids()
    lib.set_starred(ids[:3], True)
    lib.set_read(ids[2:6], True)
    lib.add_tags(ids[:4], ["to read", "ml"])
    lib.set_note(ids[1], "# Heading\nsome *note* with $x^2$")
    plain = abstract_plain(lib.paper(ids[0]).abstract)
    lib.add_highlight(ids[0], 0, 10, HighlightColour.BLUE, "first words")
    lib.set_title(ids[3], "Edited title")
    lib.save_search("attention", "attention OR transformer")
    backup = tmp_path / "backup.json"
    lib.export_json(backup)

    fresh = Library.open(tmp_path / "fresh", seed_if_empty=False)
    try:
        [summary] = fresh.import_files([backup])
        assert summary.format == "backup" and summary.new == 56 and summary.error is None

        def state(library):
            out = {}
            for p in library.papers(library.paper_ids()):
                out[p.id] = (
                    p.title, p.title_source, p.starred, p.read, sorted(p.tags), p.note,
                    [(h.start, h.end, h.quote, h.color, h.comment) for h in p.highlights],
                )
            return out

        assert state(fresh) == state(lib)
        assert fresh.paper(ids[0]).highlights[0].quote == plain[:10]
        assert [s["name"] for s in fresh.saved_searches()] == ["attention"]
        assert [h.id for h in fresh.search("is:starred").hits]
    finally:
        fresh.close()


def test_rejected_files_leave_the_library_unchanged(lib, tmp_path):
    before = json.dumps(lib.backup_data()["papers"], sort_keys=True)
    bad = {
        "empty.txt": b"",
        "binary.txt": bytes(range(256)) * 4,
        "latin1.txt": "ICML 2025 Papers\n\nCaf\xe9 abstracts are great and long enough to count here.\n".encode("latin-1"),
        "truncated.json": b'[{"title": "x", "abstract": "a long enough abstract for sure, yes"',
        "noabstract.csv": b"title,authors\nA,B\n",
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    summaries = lib.import_files([tmp_path / n for n in bad] + [tmp_path / "missing.txt"])
    for s in summaries:
        assert s.error and s.path.split("/")[-1] in s.error, s
    assert "line" in next(s for s in summaries if "truncated" in s.path).error
    assert json.dumps(lib.backup_data()["papers"], sort_keys=True) == before


def test_partly_bad_file_imports_the_good_records(lib, tmp_path):
    path = tmp_path / "mixed.jsonl"
    good = {"title": "A good paper", "abstract": "We study something important at length here. " * 3,
            "authors": ["Ada Lovelace"], "year": 2020, "venue": "NeurIPS"}
    path.write_text(json.dumps(good) + "\n{not json}\n" + json.dumps({"year": 2020}) + "\n",
                    encoding="utf-8")
    [s] = lib.import_files([path])
    assert s.new == 1 and len(s.skipped) == 2
    assert {p.line for p in s.skipped} == {2, 3}
    assert str(s.skipped[1]) == "line 3: no title and no abstract"
    pid = [h.id for h in lib.search('title:"good paper"').hits][0]
    p = lib.paper(pid)
    assert (p.title_source, p.venue, p.year, p.authors) == ("imported", "NeurIPS", 2020, ["Ada Lovelace"])
    assert lib.imports_log()[-1]["skipped"] == 2


def test_stale_or_missing_index_is_rebuilt(tmp_path):
    import shutil

    with Library.open(tmp_path / "lib") as lib:
        lib.sync_index()
        pid = lib.paper_ids()[0]
    shutil.rmtree(tmp_path / "lib" / "index")
    with Library.open(tmp_path / "lib") as lib:
        assert lib.index_needs_sync()
        lib.sync_index()
        assert lib.search("attention").total > 0
        lib.set_starred([pid], True)
    # a corrupt index is reset and rebuilt
    for f in (tmp_path / "lib" / "index").iterdir():
        if f.is_file():
            f.write_bytes(b"garbage")
    with Library.open(tmp_path / "lib") as lib:
        lib.sync_index()
        assert [h.id for h in lib.search("is:starred").hits] == [pid]


def test_markdown_reading_list_has_star_tag_note(lib, tmp_path):
    import markdown

    pid = _find(lib, "SpargeAttn")
    lib.set_starred([pid], True)
    lib.add_tags([pid], ["attention"])
    lib.set_note(pid, "Try it on our model.")
    out = lib.export_reading_list(tmp_path / "list.md", lib.paper_ids(View("starred")), title="Starred",
                                  with_abstracts=True)
    text = out.read_text(encoding="utf-8")
    assert "★" in text and "attention" in text and "Try it on our model." in text
    assert "SpargeAttn" in text
    html = markdown.markdown(text)
    assert "<h1>" in html and "Try it on our model." in html
    assert not re.search(r"\$\s*<em>", html)


def test_idle_maintenance_merges_the_small_segments(lib):
    ids = lib.paper_ids()[:12]
    for pid in ids:
        lib.set_starred([pid], True)
    assert lib.maintain_index() is True
    assert {h.id for h in lib.search("is:starred").hits} == set(ids)
    assert lib.maintain_index() is False  # nothing left to merge


def test_saving_an_unchanged_note_writes_nothing(lib):
    pid = lib.paper_ids()[0]
    lib.set_note(pid, "same text")
    seq = lib._reader().execute("SELECT value FROM meta WHERE key = 'change_seq'").fetchone()[0]
    lib.set_note(pid, "same text")  # autosave fires again with nothing new
    assert lib._reader().execute("SELECT value FROM meta WHERE key = 'change_seq'").fetchone()[0] == seq


def test_multi_file_import_goes_on_past_bad_files_and_bugs(lib, tmp_path, monkeypatch):
    from reader import ingest

    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"title": "One good paper", "abstract": "An abstract long enough to be stored. " * 3})
                    + "\n", encoding="utf-8")
    later = tmp_path / "later.jsonl"
    later.write_text(json.dumps({"title": "A later paper", "abstract": "Another abstract that is long enough. " * 3})
                     + "\n", encoding="utf-8")
    boom = tmp_path / "boom.jsonl"
    boom.write_text(json.dumps({"title": "Boom", "abstract": "This one trips a bug in the store, on purpose. " * 3})
                    + "\n", encoding="utf-8")
    real = ingest.store_parsed

    def flaky(*args, **kwargs):
        if str(args[1].path).endswith("boom.jsonl"):
            raise RuntimeError("simulated bug")
        return real(*args, **kwargs)

    monkeypatch.setattr(ingest, "store_parsed", flaky)
    empty = tmp_path / "empty"  # a folder with no paper file in it
    empty.mkdir()
    summaries = lib.import_files([good, tmp_path / "missing.txt", empty, boom, later])
    assert [s.new for s in summaries] == [1, 0, 0, 0, 1]
    assert [bool(s.error) for s in summaries] == [False, True, True, True, False]
    assert "internal error (RuntimeError)" in summaries[3].error and "nothing" in summaries[3].error
    assert "Boom" not in json.dumps(lib.backup_data()["papers"])
