"""The note merge helpers the GUI uses when a note is typed on while a sync changes it."""

from __future__ import annotations

from reader.vault.merge import conflict_note, has_conflict, retype_reader_side


def test_retype_reader_side_replaces_only_the_reader_text():
    note = conflict_note("mine", "theirs", "2026-01-01 10:00 UTC", "2026-01-01 10:01 UTC")
    out = retype_reader_side(note, "mine", "mine, typed on")
    assert out == conflict_note("mine, typed on", "theirs", "2026-01-01 10:00 UTC", "2026-01-01 10:01 UTC")
    assert has_conflict(out)


def test_retype_reader_side_refuses_other_notes():
    note = conflict_note("mine", "theirs", "a", "b")
    assert retype_reader_side(note, "something else", "new") is None
    assert retype_reader_side("a plain note", "a plain note", "new") is None
