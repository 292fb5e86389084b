"""Document parsing details: ids, front matter layouts, scalars that must read back exactly."""

from __future__ import annotations

import yaml
from hypothesis import given
from hypothesis import strategies as st

from reader.vault import properties
from reader.vault.document import DamagedFile, parse

BODY = "<!-- reader:paper -->\n<!-- /reader:paper -->\n<!-- reader:highlights -->\n<!-- /reader:highlights -->\n" \
       "<!-- reader:note -->\n\nmy note\n\n<!-- /reader:note -->\n"


def test_an_all_digit_id_written_unquoted_keeps_its_digits():
    vf = parse("---\nid: 0123456789012345\n---\n" + BODY)
    assert vf is not None and vf.id == "0123456789012345"


def test_front_matter_segments_cover_every_layout():
    text = ("---\n# a comment\ntitle: \"x: y\"\ntags:\n- a\n- b\n\naliases: [p, q]  # trailing\n"
            "note: |\n  line one\n  line two\nid: abcdefabcdefabcd\n---\n" + BODY)
    vf = parse(text)
    assert vf is not None and vf.parts(None).note == "my note"
    edits = properties.rewrite(vf.fm, {"tags": ["c"], "starred": True})
    out = text
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    assert "tags:\n  - c\n\naliases: [p, q]  # trailing\n" in out
    assert out.endswith("id: abcdefabcdefabcd\nstarred: true\n---\n" + BODY)
    assert yaml.safe_load(out.split("---\n")[1]) == {
        "title": "x: y", "tags": ["c"], "aliases": ["p", "q"], "note": "line one\nline two\n",
        "id": "abcdefabcdefabcd", "starred": True}


def test_repeated_keys_are_damage_not_a_guess():
    try:
        parse("---\nid: abcdefabcdefabcd\ntags: [a]\ntags: [b]\n---\n" + BODY)
    except DamagedFile as exc:
        assert exc.paper_id == "abcdefabcdefabcd"
    else:
        raise AssertionError("a file with a repeated key was accepted")


@given(st.text(max_size=60))
def test_every_string_scalar_reads_back_exactly(text):
    assert yaml.safe_load(properties.entry("k", text)) == {"k": text}
    assert yaml.safe_load(properties.entry("k", [text, text])) == {"k": [text, text]}
