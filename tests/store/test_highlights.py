"""reader.store.highlights: spans stored by colour name, in text order."""

from __future__ import annotations

from reader.models import Highlight, HighlightColour
from reader.store import highlights as hl

from .conftest import IDS


def test_add_update_remove(conn):
    late = hl.add(conn, IDS[0], Highlight(start=10, end=12, quote="xx"))
    early = hl.add(conn, IDS[0], Highlight(start=0, end=3, quote="The", color=HighlightColour.PINK))
    assert [h.id for h in hl.highlights_for(conn, [IDS[0]])[IDS[0]]] == [early, late]
    assert hl.paper_of(conn, late) == IDS[0] and hl.paper_of(conn, 999) is None
    hl.set_colour(conn, late, HighlightColour.BLUE)
    hl.set_comment(conn, late, "why")
    h = hl.highlights_for(conn, [IDS[0]])[IDS[0]][1]
    assert (h.color, h.comment) == (HighlightColour.BLUE, "why")
    assert conn.execute("SELECT color FROM highlights WHERE id = ?", [late]).fetchone()[0] == "blue"
    hl.remove(conn, late)
    assert [h.id for h in hl.highlights_for(conn, [IDS[0]])[IDS[0]]] == [early]


def test_replace_all_keeps_given_ids(conn):
    hl.replace_all(conn, IDS[1], [Highlight(id=41, start=0, end=1, quote="T"), Highlight(start=2, end=3)])
    got = hl.highlights_for(conn, [IDS[1]])[IDS[1]]
    assert got[0].id == 41 and got[1].id not in (None, 41)


def test_comments_never_hold_control_characters(conn):
    """A highlight's comment is stored like a note: without NUL, escape or bell (issue 30)."""
    hid = hl.add(conn, IDS[0], Highlight(start=0, end=3, quote="The", comment="a\x00b\x1b[2Jc\x07"))
    assert hl.highlights_for(conn, [IDS[0]])[IDS[0]][0].comment == "ab[2Jc"
    hl.set_comment(conn, hid, "line\x00one\nline two\t!")
    assert hl.highlights_for(conn, [IDS[0]])[IDS[0]][0].comment == "lineone\nline two\t!"
    hl.replace_all(conn, IDS[0], [Highlight(id=hid, start=0, end=3, quote="The", comment="\x1bx")])
    assert hl.highlights_for(conn, [IDS[0]])[IDS[0]][0].comment == "x"
