"""Leaving a reading group (issue 29): the mark a member leaves in its folder, what the others make
of it (no share of the work, shown as left, its decisions kept), joining again under the name
(from the same library, or another once that one left), and a mark that is wrong."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import uuid

import pytest

from reader.group import Group, GroupError
from reader.group.views import sidebar_views
from reader.store import group as gs
from reader.store.group_filters import select, split_filters

from .helpers import cli as _cli


def _three(make_lib, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    libs = {n: make_lib(n) for n in ("ada", "bob", "eve")}
    groups = {n: Group(lib) for n, lib in libs.items()}
    for n, g in groups.items():
        g.join(shared, n)
    return shared, libs, groups


def _filter(lib, text):
    problems: list[str] = []
    return select(lib.read_connection(), split_filters(text)[1], problems)


def _shown(group):
    return {m["name"]: m for m in group.status().as_json()["members"]}


def _files(folder):
    return sorted(p.name for p in folder.iterdir())


def test_leaving_marks_the_folder_and_the_others_keep_the_stars_but_count_the_member_out(make_lib, tmp_path):
    shared, libs, groups = _three(make_lib, tmp_path)
    ids = libs["eve"].paper_ids()[:3]
    libs["eve"].set_starred(ids, True)
    for g in groups.values():
        assert g.sync().problems == []
    assert groups["bob"].members() == ["ada", "bob", "eve"]
    library = gs.library_id(libs["eve"].read_connection())
    left = groups["eve"].leave()
    assert left == (str(shared / "eve"), "")
    mark = json.loads((shared / "eve" / "left.json").read_bytes())
    assert (mark["name"], mark["library"], mark["reader-group"]) == ("eve", library, 1) and mark["left_at"]
    assert _files(shared / "eve") == ["left.json", "log-1.jsonl", "snapshot-1.jsonl"]  # the decisions stay
    gb = groups["bob"]
    report = gb.sync()
    assert report.problems == [] and report.changed
    assert gb.members() == ["ada", "bob"]  # what divide shares the work among
    assert _filter(libs["bob"], "starred-by:eve") == set(ids)  # the stars stay
    shown = _shown(gb)
    assert shown["eve"]["left"] and shown["eve"]["left_at"] == mark["left_at"] and shown["eve"]["starred"] == 3
    assert shown["eve"]["problem"] is None
    assert not shown["ada"]["left"] and shown["ada"]["left_at"] is None and not shown["bob"]["left"]
    assert not gb.sync().changed  # the mark read once: the next sync is a cheap one
    assert groups["ada"].sync().problems == [] and groups["ada"].members() == ["ada", "bob"]
    labels = [label for label, _n, _q in sidebar_views(libs["bob"].read_connection())]
    assert labels[-3:] == ["★ by ada", "★ by bob (you)", "★ by eve (left)"]  # the window's sidebar


def test_joining_again_from_the_same_library_takes_the_mark_away(make_lib, tmp_path):
    shared, libs, groups = _three(make_lib, tmp_path)
    for g in groups.values():
        g.sync()
    groups["eve"].leave()
    gb = groups["bob"]
    gb.sync()
    assert gb.members() == ["ada", "bob"]
    assert groups["eve"].join(shared, "eve")
    assert not (shared / "eve" / "left.json").exists()
    gb.sync()  # the mark's removal is enough: eve has written nothing since
    assert gb.members() == ["ada", "bob", "eve"] and not _shown(gb)["eve"]["left"]
    pid = libs["eve"].paper_ids()[5]
    libs["eve"].set_starred([pid], True)
    assert groups["eve"].sync().problems == []
    assert gb.sync().problems == []
    assert pid in _filter(libs["bob"], "starred-by:eve")


def test_another_library_may_take_a_name_that_left(make_lib, tmp_path):
    shared, libs, groups = _three(make_lib, tmp_path)
    ids = libs["eve"].paper_ids()[:4]
    libs["eve"].set_starred(ids[:2], True)
    for g in groups.values():
        g.sync()
    new = make_lib("eve-2")
    gn = Group(new)
    with pytest.raises(GroupError, match="taken"):
        gn.join(shared, "eve")  # eve takes part: the name is hers
    groups["eve"].leave()
    groups["bob"].sync()  # bob sees eve leave; ada has not synced since
    assert gn.join(shared, "eve")
    new.set_starred(ids[2:3], True)
    report = gn.sync()
    assert report.problems == []
    names = _files(shared / "eve")
    assert "snapshot-1.jsonl" not in names and "left.json" in names  # written anew; the mark names who left
    assert json.loads((shared / "eve" / "left.json").read_bytes())["library"] != gs.library_id(new.read_connection())
    for name in ("bob", "ada"):  # bob saw eve leave, ada sees the name change hands at once
        g = groups[name]
        assert g.sync().problems == [], name
        assert g.members() == ["ada", "bob", "eve"], name
        assert not _shown(g)["eve"]["left"], name
        assert _filter(libs[name], "starred-by:eve") == {ids[2]}, name  # the new library's, only
    gn.sync()
    groups["bob"].sync()
    assert gn.state() == groups["bob"].state()
    assert not gn.sync().changed and not groups["ada"].sync().changed  # the mark that stays is read once
    # The library that left can't come back under the name now: it is the new one's.
    with pytest.raises(GroupError, match="taken"):
        groups["eve"].join(shared, "eve")


def test_a_mark_path_that_is_no_regular_file_is_never_written_over(make_lib, tmp_path):
    shared, _libs, groups = _three(make_lib, tmp_path)
    for g in groups.values():
        g.sync()
    path = shared / "eve" / "left.json"
    gb, ge = groups["bob"], groups["eve"]
    for make, check in ((os.mkfifo, lambda p: p.is_fifo()),
                        (lambda p: p.symlink_to(p.parent / "log-1.jsonl"), lambda p: p.is_symlink()),
                        (lambda p: p.mkdir(), lambda p: p.is_dir())):
        make(path)
        # eve leaves all the same (told why, in one line); nothing written over the path
        left = ge.leave()
        assert ge.config() is None
        assert left.problem.startswith(f"could not mark eve as left in {shared / 'eve'}: not a regular file")
        assert "\n" not in left.problem and check(path)
        assert [p for p in gb.sync().problems if "left.json" in p] == [f"{path} is not a regular file: ignored"]
        assert gb.members() == ["ada", "bob", "eve"]  # not marked: still counted
        assert ge.join(shared, "eve")  # and eve may join again: the path is left alone
        assert check(path)
        path.rmdir() if path.is_dir() else path.unlink()


def test_a_mark_that_is_no_mark_gives_one_line_once(make_lib, tmp_path):
    shared, _libs, groups = _three(make_lib, tmp_path)
    for g in groups.values():
        g.sync()
    bad = shared / "eve" / "left.json"
    gb = groups["bob"]
    for content, says in ((b"{not json", "not JSON"), (b'{"reader-group":1,"name":"eve"}', "without its"),
                          (b'{"reader-group":9,"name":"eve","library":"x","left_at":"t"}', "newer Reader"),
                          (b'{"reader-group":1,"name":"bob","library":"x","left_at":"2026-01-02T03:04:05+00:00"}',
                           "written for 'bob'"),
                          (b'{"reader-group":1,"name":"eve","library":"x","left_at":"soon\\nmaybe"}', "is no time"),
                          (b"\xff\xfe" * 10, "not JSON"), (b"x" * 5000, "over 4 KB")):
        bad.write_bytes(content)
        report = gb.sync()
        lines = [p for p in report.problems if "left.json" in p]
        assert len(lines) == 1 and lines[0].startswith(f"{bad}: ") and says in lines[0], (content, report.problems)
        assert lines[0].endswith("ignored (eve counts as a member)")
        assert gb.members() == ["ada", "bob", "eve"] and not _shown(gb)["eve"]["left"]
        assert not [p for p in gb.sync().problems if "left.json" in p]  # said once
    # eve's own sync says so too (a file in its folder that it did not write)
    assert groups["eve"].sync().problems == [f"{bad}: over 4 KB: ignored (eve counts as a member)"]


def test_a_mark_not_written_when_the_library_cannot_leave(make_lib, tmp_path, monkeypatch):
    shared, libs, groups = _three(make_lib, tmp_path)
    groups["eve"].sync()

    def refused():
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(libs["eve"], "write_transaction", refused)
    with pytest.raises(sqlite3.OperationalError):
        groups["eve"].leave()
    assert groups["eve"].config() is not None
    assert not (shared / "eve" / "left.json").exists()  # still in the group: no mark left behind
    monkeypatch.undo()
    monkeypatch.setattr(libs["eve"].upkeep, "after_commit", lambda: None)
    assert groups["eve"].leave().problem == ""
    assert (shared / "eve" / "left.json").is_file()


# ------------------------------------------------------------------ through the CLI
def _data_dir(tmp_path, template, name):
    path = tmp_path / f"data-{name}"
    shutil.copytree(template, path)
    with contextlib.closing(sqlite3.connect(path / "library.sqlite3")) as conn, conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'library_id'", [uuid.uuid4().hex])
    return path


def test_divide_gives_a_member_that_left_nothing_and_show_says_it_left(tmp_path, seeded_template, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    dirs = {n: _data_dir(tmp_path, seeded_template, n) for n in ("ada", "bob", "eve")}
    for name, data in dirs.items():
        code, _out, err = _cli(capsys, data, "group", "join", str(shared), "--as", name)
        assert code == 0, err
    with contextlib.closing(sqlite3.connect(dirs["eve"] / "library.sqlite3")) as conn:
        starred = [r[0] for r in conn.execute("SELECT id FROM papers ORDER BY id LIMIT 2")]  # the same in each copy
    assert _cli(capsys, dirs["eve"], "star", *starred)[0] == 0
    assert _cli(capsys, dirs["eve"], "group", "sync")[0] == 0
    code, out, err = _cli(capsys, dirs["eve"], "group", "leave")
    assert code == 0 and err == "" and "left the group" in out
    assert (shared / "eve" / "left.json").is_file()
    code, out, err = _cli(capsys, dirs["bob"], "group", "divide", "--json")
    assert code == 0, err
    shares = json.loads(out)["shares"]
    assert sorted(shares) == ["ada", "bob"] and sum(map(len, shares.values())) > 0
    code, out, _ = _cli(capsys, dirs["bob"], "group", "show", "--json")
    members = {m["name"]: m for m in json.loads(out)["members"]}
    assert members["eve"]["left"] and members["eve"]["left_at"] and members["eve"]["starred"] == 2
    assert not members["ada"]["left"] and members["ada"]["problem"] is None
    _code, text, _ = _cli(capsys, dirs["bob"], "group", "show")
    assert [line for line in text.splitlines() if line.strip().startswith("eve:")][0].count("(left ") == 1
    code, out, _ = _cli(capsys, dirs["bob"], "search", "starred-by:eve", "--json")
    assert {item["id"] for item in json.loads(out)} == set(starred)


def test_leaving_first_writes_the_decisions_made_since_the_last_sync(make_lib, tmp_path):
    shared, libs, groups = _three(make_lib, tmp_path)
    for g in groups.values():
        assert g.sync().problems == []
    late = libs["eve"].paper_ids()[:2]
    libs["eve"].set_starred(late, True)  # after eve's last sync
    assert groups["eve"].leave().problem == ""
    assert groups["bob"].sync().problems == []
    assert set(_filter(libs["bob"], "starred-by:eve")) == set(late)
