"""reader.ingest: parsed files become finished rows; backups merge into papers already held."""

from __future__ import annotations

import json

from reader.library import Library
from reader.models import HighlightColour, TitleSource

ABSTRACT = "We study frogs jumping over very long distances in the wild, and measure everything."


def _backup(path, **paper):
    data = {"format": "reader-backup", "version": 1, "papers": [{"abstract": ABSTRACT, **paper}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_old_backup_colours_come_in_as_names(tmp_path):
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        hl = {"start": 0, "end": 2, "quote": "We", "color": "#ffe066", "comment": ""}
        [s] = lib.import_files([_backup(tmp_path / "b.json", title="Frogs", highlights=[hl])], index=False)
        assert s.error is None and s.new == 1
        p = lib.paper(s.new_ids[0])
        assert p is not None and (p.title, p.title_source) == ("Frogs", TitleSource.IMPORTED)
        assert p.highlights[0].color is HighlightColour.YELLOW  # an old backup's hex colour


def test_backup_of_a_held_paper_merges(tmp_path):
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        [s] = lib.import_files([_backup(tmp_path / "a.json", title="Frogs", tags=["mine"], starred=True)],
                               index=False)
        pid = s.new_ids[0]
        lib.add_highlight(pid, 0, 2, "green")
        other = _backup(tmp_path / "b.json", title="Frogs edited", title_source="edited", tags=["theirs"],
                        read=True, note="their note", highlights=[{"start": 3, "end": 8, "quote": "study", "color": "pink", "comment": ""}])
        [s2] = lib.import_files([other], index=False)
        assert (s2.new, s2.duplicates) == (0, 1)
        p = lib.paper(pid)
        assert p is not None
        assert (p.title, p.title_source, p.starred, p.read, p.note) == (
            "Frogs edited", TitleSource.EDITED, True, True, "their note")
        assert p.tags == ["mine", "theirs"]
        assert [h.color for h in p.highlights] == [HighlightColour.GREEN, HighlightColour.PINK]


def test_pdf_damage_is_cleaned_at_import_and_old_backup_highlights_move(tmp_path):
    dirty = "We study classi(cid:12)cation of frogs jumping e\ufb03ciently over long dis- tances, and more."
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        src = tmp_path / "p.jsonl"
        src.write_text(json.dumps({"title": "Classi(cid:12)cation of ﬂying frogs", "abstract": dirty}) + "\n",
                       encoding="utf-8")
        [s] = lib.import_files([src], index=False)
        p = lib.paper(s.new_ids[0])
        assert p is not None and p.title == "Classification of flying frogs"
        assert p.abstract == dirty  # the source as imported; its plain text is the clean one
        plain = lib._reader().execute("SELECT abstract_text FROM papers").fetchone()[0]
        assert plain == "We study classification of frogs jumping efficiently over long distances, and more."
        # a backup exported before cleaning: offsets into the uncleaned text, quotes to match
        quote = "long dis- tances"
        hl = {"start": dirty.index(quote), "end": dirty.index(quote) + len(quote), "quote": quote,
              "color": "yellow", "comment": ""}
        [b] = lib.import_files([_backup(tmp_path / "b.json", abstract=dirty.replace("frogs", "toads"),
                                        title="Toads", highlights=[hl])], index=False)
        toad = lib.paper(b.new_ids[0])
        assert toad is not None and [h.quote for h in toad.highlights] == ["long distances"]
        toad_plain = plain.replace("frogs", "toads")
        assert toad_plain[toad.highlights[0].start:toad.highlights[0].end] == "long distances"


def test_an_import_keeps_a_plain_text_only_where_it_differs_from_the_abstract(tmp_path):
    """Issue 31 (disk): a markup-free abstract is not stored twice; search and the paper see
    the same texts as before."""
    marked = "Accuracy rises from $<7$\\% to $\\approx 90$\\% when frogs jump over long distances."
    src = tmp_path / "p.jsonl"
    src.write_text("".join(json.dumps(rec) + "\n" for rec in (
        {"title": "Plain frogs", "abstract": ABSTRACT}, {"title": "Marked frogs", "abstract": marked})),
        encoding="utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        [s] = lib.import_files([src])
        assert s.new == 2
        raw = dict(lib._reader().execute("SELECT title, abstract_text FROM papers").fetchall())
        assert raw == {"Plain frogs": "", "Marked frogs": "Accuracy rises from <7% to ≈ 90% when frogs "
                                                           "jump over long distances."}
        lib.sync_index()
        assert len(lib.search("frogs").hits) == 2
        assert [lib.paper(h.id).title for h in lib.search("measure everything").hits] == ["Plain frogs"]
