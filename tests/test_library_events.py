"""Library publishes a Changes after each committed write: the ids, the kinds, the origin."""

from __future__ import annotations

import json
import threading

import pytest

from reader.errors import ReaderError
from reader.events import Change, Changes
from reader.library import View


@pytest.fixture()
def heard(lib):
    got: list[Changes] = []
    stop = lib.changes.subscribe(got.append)
    yield got
    stop()


def _one(heard: list[Changes]) -> Changes:
    assert len(heard) == 1, heard
    return heard.pop()


def test_each_write_publishes_its_ids_and_kind(lib, heard):
    a, b = lib.paper_ids()[:2]
    lib.set_starred([a, b], True)
    assert _one(heard) == Changes.of(Change.STAR, [a, b])
    lib.set_read([a], True)
    assert _one(heard) == Changes.of(Change.READ, [a])
    lib.add_tags([a], ["x"])
    assert _one(heard) == Changes.of(Change.TAG, [a])
    lib.remove_tags([a], ["x"])
    assert _one(heard) == Changes.of(Change.TAG, [a])
    lib.set_title(a, "A new title")
    assert _one(heard) == Changes.of(Change.TITLE, [a])
    lib.set_note(a, "a note")
    assert _one(heard) == Changes.of(Change.NOTE, [a])
    hid = lib.add_highlight(a, 0, 5)
    assert _one(heard) == Changes.of(Change.HIGHLIGHT, [a])
    lib.update_highlight(hid, comment="why")
    assert _one(heard) == Changes.of(Change.HIGHLIGHT, [a])
    lib.remove_highlight(hid)
    assert _one(heard) == Changes.of(Change.HIGHLIGHT, [a])


def test_tag_rename_and_delete_name_the_tagged_papers(lib, heard):
    a, b, c = lib.paper_ids()[:3]
    lib.add_tags([a, b], ["old"])
    heard.clear()
    lib.rename_tag("old", "new")
    assert _one(heard) == Changes.of(Change.TAG, [a, b])
    lib.delete_tag("new")
    assert _one(heard) == Changes.of(Change.TAG, [a, b])
    assert c not in lib.paper_ids(View("tag", "new"))


def test_delete_and_restore(lib, heard):
    a = lib.paper_ids()[0]
    snap = lib.snapshot([a])
    lib.delete_papers([a])
    assert _one(heard) == Changes.of(Change.DELETE, [a])
    lib.restore(snap)
    got = _one(heard)
    assert got.ids == {a} and Change.DELETE in got.kinds and Change.STAR in got.kinds


def test_saved_searches_publish_without_ids(lib, heard):
    sid = lib.save_search("s", "attention")
    assert _one(heard) == Changes.of(Change.SEARCHES)
    lib.rename_saved_search(sid, "t")
    assert _one(heard) == Changes.of(Change.SEARCHES)
    lib.delete_saved_search(sid)
    assert _one(heard) == Changes.of(Change.SEARCHES)


def test_import_names_the_new_papers_then_the_index(lib, heard, tmp_path):
    path = tmp_path / "two.json"
    path.write_text(json.dumps([
        {"title": "Paper one", "abstract": "We study the first thing in great depth and detail here."},
        {"title": "Paper two", "abstract": "We study the second thing in great depth and detail here."},
    ]))
    summary = lib.import_files([path])[0]
    assert summary.new == 2, summary.describe()
    imported, indexed = heard
    assert imported == Changes.of(Change.IMPORT, summary.new_ids)
    assert indexed.kinds == {Change.INDEX}
    heard.clear()
    lib.import_files([path])  # nothing new, but the import log changed: ids unknown
    assert heard[0] == Changes.of(Change.IMPORT)


def test_a_failed_or_refused_write_publishes_nothing(lib, heard):
    with pytest.raises(ReaderError):
        lib.set_starred(["ffffffffffffffff"], True)
    with pytest.raises(ReaderError):
        lib.add_tags([lib.paper_ids()[0]], [" "])
    lib.set_note(lib.paper_ids()[0], "")  # unchanged (empty) note: no transaction at all
    assert heard == []


def test_a_failing_subscriber_never_fails_the_write(lib, heard):
    def broken(_c: Changes) -> None:
        raise RuntimeError("subscriber bug")

    lib.changes.subscribe(broken)
    a = lib.paper_ids()[0]
    lib.set_starred([a], True)  # does not raise
    assert lib.paper(a).starred
    assert _one(heard).ids == {a}


def test_subscribers_see_the_write_in_the_store_and_the_index(lib):
    a = lib.paper_ids()[0]
    seen: list[tuple[bool, bool]] = []
    lib.changes.subscribe(lambda c: seen.append(
        (lib.paper(a).starred, a in lib.search("is:starred", limit=None).ids)))
    lib.set_starred([a], True)
    assert seen == [(True, True)]


def test_initiated_by_tags_writes_on_this_thread_only(lib, heard):
    a = lib.paper_ids()[0]
    with lib.initiated_by("triage"):
        lib.set_starred([a], True)
        t = threading.Thread(target=lambda: lib.set_read([a], True))
        t.start()
        t.join()
    lib.set_starred([a], False)
    assert [c.origin for c in heard] == ["triage", "local", "local"]


def test_callbacks_run_on_the_writing_thread(lib):
    names: list[str] = []
    lib.changes.subscribe(lambda _c: names.append(threading.current_thread().name))
    t = threading.Thread(target=lambda: lib.set_read([lib.paper_ids()[0]], True), name="writer")
    t.start()
    t.join()
    assert names == ["writer"]
