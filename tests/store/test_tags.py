"""reader.store.tags: names are case-insensitive; links, renames, merges and clean-up."""

from __future__ import annotations

from reader.store import tags

from .conftest import IDS


def test_clean_tags_trims_and_dedupes_case_insensitively():
    assert tags.clean_tags(["  RL ", "#rl", "theory,", "", "Deep   learning"]) == ["RL", "theory", "Deep learning"]


def test_add_remove_and_counts(conn):
    tags.add(conn, [IDS[0], IDS[1]], "RL")
    tags.add(conn, [IDS[1]], "rl")  # the same tag
    assert tags.name_counts(conn) == [("RL", 2)]
    assert tags.tags_for(conn, IDS) == {IDS[0]: ["RL"], IDS[1]: ["RL"]}
    tags.remove(conn, [IDS[0]], "rl")
    tags.remove(conn, [IDS[0]], "never existed")
    assert tags.name_counts(conn) == [("RL", 1)]
    tags.remove(conn, [IDS[1]], "RL")
    assert tags.tag_id(conn, "RL", create=False) is not None  # kept until drop_unused
    tags.drop_unused(conn)
    assert tags.tag_id(conn, "RL", create=False) is None


def test_rename_merge_delete(conn):
    tags.add(conn, [IDS[0]], "a")
    tags.add(conn, [IDS[0], IDS[1]], "b")
    a, b = tags.tag_id(conn, "a", create=False), tags.tag_id(conn, "b", create=False)
    assert a is not None and b is not None
    tags.merge(conn, a, into=b)
    assert tags.name_counts(conn) == [("b", 2)]
    tags.rename(conn, b, "c")
    assert sorted(tags.papers_with(conn, b)) == [IDS[0], IDS[1]]
    tags.delete(conn, b)
    assert tags.tags_for(conn, IDS) == {}


def test_set_tags_replaces(conn):
    tags.set_tags(conn, IDS[2], ["x", "y"])
    tags.set_tags(conn, IDS[2], ["y", "z"])
    assert tags.tags_for(conn, [IDS[2]]) == {IDS[2]: ["y", "z"]}


def test_tags_never_hold_control_characters():
    """`reader tag ID $'\\a' $'t\\x1bx'` stored a tag of one bell and one with an escape in it
    (issue 30's campaign): a tag is one line of printable text, whatever the entry point."""
    assert tags.clean_tags(["\x07", "t\x1bx", "ta\x00g", "a\x7fb\x0bc", "\x1b[31m"]) == ["tx", "tag", "abc", "[31m"]


def test_a_tag_of_control_characters_alone_is_no_tag(conn):
    for name in tags.clean_tags(["\x07", "ok\x1b"]):
        tags.add(conn, [IDS[0]], name)
    assert tags.tags_for(conn, [IDS[0]])[IDS[0]] == ["ok"]
