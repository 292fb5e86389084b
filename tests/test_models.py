"""reader.models: the Paper/Highlight vocabulary and the canonical highlight colours."""

from __future__ import annotations

from reader.models import ExportKind, Highlight, HighlightColour, Paper, TitleSource, ViewKind
from reader.text import abstract_html


def test_colour_names_and_known_hex_values_parse():
    assert HighlightColour.parse("Yellow") is HighlightColour.YELLOW
    assert HighlightColour.parse(" #FFE066 ") is HighlightColour.YELLOW  # the old CLI default
    assert HighlightColour.parse("#ffe08a") is HighlightColour.YELLOW  # the old renderer default
    assert HighlightColour.parse(HighlightColour.PURPLE.hex) is HighlightColour.PURPLE
    assert HighlightColour.parse("#123456") is None and HighlightColour.parse("red") is None
    assert HighlightColour.coerce("#123456") is HighlightColour.YELLOW
    assert HighlightColour.coerce(None) is HighlightColour.YELLOW


def test_each_colour_has_its_own_hex_and_renders_as_itself():
    hexes = [c.hex for c in HighlightColour]
    assert len(set(hexes)) == len(hexes)
    for colour in HighlightColour:
        out = abstract_html("some words here", highlights=[(0, 4, colour)])
        assert f'style="background-color:{colour.hex}">some</span>' in out


def test_string_enums_compare_with_their_stored_values():
    assert TitleSource.EDITED == "edited" and ViewKind.TAG == "tag" and ExportKind.PER_PAPER == "per_paper"
    assert str(HighlightColour.BLUE) == "blue"


def test_paper_dict_round_trip_keeps_the_backup_shape():
    d = {
        "id": "0123456789abcdef", "title": "T", "title_source": "edited", "derived_title": "D",
        "abstract": "An abstract.", "venue": "ICML", "year": 2025, "authors": ["A"], "links": ["u"],
        "code_links": [], "method": "M", "collection": "C", "sources": ["f.txt"],
        "added_at": "2025-01-01T00:00:00+00:00", "updated_at": "2025-01-02T00:00:00+00:00",
        "read": True, "starred": False, "tags": ["x"], "note": "n", "note_updated_at": None,
        "highlights": [{"id": 3, "start": 0, "end": 2, "quote": "An", "color": "green", "comment": ""}],
        "citation_key": "a2025t", "entry_type": "inproceedings",
    }
    p = Paper.from_dict(d)
    assert p.title_source is TitleSource.EDITED and p.highlights[0].color is HighlightColour.GREEN
    assert p.to_dict() == d
    assert list(p.to_dict()) == list(d)  # key order kept for the JSON output
    assert "id" not in p.to_dict(highlight_ids=False)["highlights"][0]


def test_from_dict_fills_defaults_and_maps_old_colours():
    p = Paper.from_dict({"id": "1", "title": None, "abstract": "x",
                         "highlights": [{"start": 0, "end": 1, "color": "#ffe066"}]})
    assert (p.title, p.title_source, p.venue, p.tags, p.note) == ("", TitleSource.IMPORTED, "", [], "")
    assert p.highlights == [Highlight(start=0, end=1, color=HighlightColour.YELLOW)]


