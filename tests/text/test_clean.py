"""reader.text.clean: PDF-extraction damage undone, with offsets that map old positions to new."""

from __future__ import annotations

import pytest

from reader.text import abstract_html, abstract_plain
from reader.text.clean import OffsetMap, apply_edits, clean_edits, clean_text
from reader.text.reanchor import reanchor, reanchor_quoted


@pytest.mark.parametrize(("dirty", "clean"), [
    ("a classi(cid:12)cation problem", "a classification problem"),
    ("the e(cid:11)ective (cid:15)-tube", "the effective ε-tube"),
    ("very di(cid:14)cult, in(cid:3)uenced", "very difficult, influenced"),
    ("insuf(cid:2)cient data, O(n (cid:2) d)", "insufficient data, O(n × d)"),
    ("block (cid:96)1/(cid:96)2 norms", "block ℓ1/ℓ2 norms"),
    ("piri(cid:173) form cortex", "piriform cortex"),
    ("a (cid:6) b", "a b"),
    ("ﬁnd the eﬃcient ﬂow", "find the efficient flow"),
    ("conjunc\xad tion and ef\xadfect", "conjunction and effect"),
    ("8 Ã\x97 8 windows â\x80\x93 fast", "8 × 8 windows – fast"),
    ("bell\x07 rings", "bell rings"),
    ("learn- ing algo- rithms", "learning algorithms"),
    ("ef(cid:2)- cient, clas- siﬁcation", "efficient, classification"),
    ("high- dimensional self- supervised", "high-dimensional self-supervised"),
    ("the state-of- the-art", "the state-of-the-art"),
])
def test_damage_is_cleaned(dirty, clean):
    assert clean_text(dirty) == clean


@pytest.mark.parametrize("text", [
    "pre- and post-training", "first- or second-order", "intra- as well as inter-class",
    "GPU- CPU transfers", "x - y", "a well-known result", "Café résumé naïve Zürich",
    "(cid) and cid:12 are words",
])
def test_text_that_is_not_damage_is_kept(text):
    assert clean_text(text) == text
    assert clean_edits(text) == []


def test_offsets_map_through_the_edits():
    old = "We classi(cid:12)cation learn- ing here"
    edits = clean_edits(old)
    new = apply_edits(old, edits)
    move = OffsetMap(edits)
    assert new == "We classification learning here"
    for word in ("We", "learn", "here"):
        a = old.index(word)
        assert new[move(a):move(a + len(word), end=True)] == word
    a, b = old.index("classi"), old.index("cation") + len("cation")
    assert new[move(a):move(b, end=True)] == "classification"
    # a span ending inside a replaced glyph covers the whole replacement
    assert new[move(a):move(old.index("(cid") + 3, end=True)] == "classifi"


def test_plain_text_and_html_agree_and_math_is_left_alone():
    raw = "The *classi(cid:12)cation* of $x- y$ with learn- ing."
    assert abstract_plain(raw) == "The classification of x- y with learning."
    assert "<i>classification</i>" in abstract_html(raw)


def test_reanchor_moves_highlights_made_on_the_uncleaned_text():
    raw = "Piri(cid:173) form cortex learns e(cid:11)ective codes by learn- ing fast."
    old = "Piri(cid:173) form cortex learns e(cid:11)ective codes by learn- ing fast."
    spans = [(old.index("cortex"), old.index("cortex") + 6, "cortex"),
             (old.index("e(cid"), old.index("codes") + 5, "e(cid:11)ective codes"),
             (old.index("learn-"), old.index(" fast"), "learn- ing")]
    plain, moved = reanchor(raw, old, spans)
    assert plain == "Piriform cortex learns effective codes by learning fast."
    assert [q for _, _, q in moved] == ["cortex", "effective codes", "learning"]
    assert all(plain[a:b] == q for a, b, q in moved)


def test_reanchor_quoted_finds_a_quote_made_by_another_version():
    raw = "Some (cid:12)ne words about ﬁne tuning."
    plain = abstract_plain(raw)
    moved = reanchor_quoted(raw, [(0, 4, "Some"), (40, 44, "ﬁne")])
    assert moved[0] == (0, 4, "Some")
    a, b, q = moved[1]
    assert q == "fine" and plain[a:b] == "fine"
