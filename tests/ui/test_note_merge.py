"""Merging a note being typed with one changed under the editor (a vault sync, another process)."""

from __future__ import annotations

from datetime import UTC, datetime

from reader.ui.paper.note_merge import (
    MERGE_OUTSIDE,
    MERGE_VAULT,
    NoteMerges,
    merge_outside,
    retype_typed_side,
)

WHEN = datetime(2026, 1, 1, tzinfo=UTC)


class Store:
    def __init__(self, note: str) -> None:
        self.note = note

    def write(self, note: str) -> None:
        self.note = note


def test_appends_on_either_side_are_joined() -> None:
    assert merge_outside("base", "base\nfrom a script", "base and typed", WHEN) == "base\nfrom a script and typed"
    assert merge_outside("base", "other text", "base, typed", WHEN) == "other text, typed"
    assert merge_outside("base", "base + theirs", "edited", WHEN) == "edited + theirs"


def test_edits_on_both_sides_keep_both_texts_and_typing_on_replaces_only_the_typed_part() -> None:
    both = merge_outside("base", "theirs", "mine", WHEN)
    assert "mine" in both and "theirs" in both and both.startswith("⚠️ **Note changed elsewhere**")
    again = retype_typed_side(both, "mine", "mine, edited")
    assert again is not None and "mine, edited" in again and "theirs" in again
    assert merge_outside("mine", both, "mine, edited", WHEN) == again


def test_a_recorded_outside_change_is_merged_on_the_next_save_then_forgotten() -> None:
    merges, store = NoteMerges(), Store("theirs")
    merges.changed_under_editor("p1", "base", "theirs", MERGE_OUTSIDE)
    stored = merges.store("p1", "mine", store.note, store.write)
    assert stored == store.note and "mine" in stored and "theirs" in stored
    assert merges.pending("p1")
    merges.settle(unsaved=[])  # the editor shows the stored note: nothing typed is pending
    assert not merges.pending("p1")
    assert merges.store("p1", "plain", store.note, store.write) == "plain" == store.note


def test_a_change_the_window_has_not_seen_yet_is_caught_by_the_base() -> None:
    merges, store = NoteMerges(), Store("base\ntheirs")
    assert merges.store("p1", "base mine", store.note, store.write, base="base") == "base\ntheirs mine"
    # Typed from what is stored: stored as typed.
    fresh = NoteMerges()
    assert fresh.store("p1", "typed", store.note, store.write, base=store.note) == "typed" == store.note


def test_queued_saves_of_one_note_use_the_earlier_save_as_their_base() -> None:
    merges, store = NoteMerges(), Store("a")
    first = merges.base_for("p1", "a", "ab")
    second = merges.base_for("p1", "a", "abc")  # typed on before the first save came back
    assert (first, second) == ("a", "ab")
    merges.store("p1", "ab", store.note, store.write, base=first)
    merges.store("p1", "abc", store.note, store.write, base=second)
    assert store.note == "abc"  # not "abbc": our own first save is no outside change
    merges.sent_done("p1", "ab")
    merges.sent_done("p1", "abc")
    assert merges.base_for("p1", "abc", "abcd") == "abc"


def test_vault_records_keep_the_vault_conflict_format() -> None:
    merges, store = NoteMerges(), Store("vault text")
    merges.changed_under_editor("p1", "base", "vault text", MERGE_VAULT)
    stored = merges.store("p1", "typed", store.note, store.write)
    assert "In the vault" in stored and "typed" in stored and "vault text" in stored
    # Nothing new typed since the editor's base: the editor takes the vault's text, nothing written.
    merges2, store2 = NoteMerges(), Store("vault text")
    merges2.changed_under_editor("p1", "base", "vault text", MERGE_VAULT)
    assert merges2.store("p1", "base", store2.note, store2.write) == "vault text" == store2.note
