"""The group's settings after joining (issue 29): `reader group set` and `reader group join` again
with the same folder and name change what is shared; taking notes or private tags back rewrites
one's files without them at the next sync (their text leaves the shared folder) and the other
members then no longer show them; sharing again brings them back."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from reader.group import Group, GroupError
from reader.group import folder as fs
from reader.store import group as gs

from .helpers import cli as _cli


def _written(folder: Path) -> str:
    return "".join(f.read_text(encoding="utf-8") for f in sorted(folder.glob("*.jsonl")))


def _notes(group: Group, pid: str) -> dict[str, str]:
    return {m.member: m.note for m in group.marks([pid]).get(pid, [])}


def _tags(group: Group, pid: str) -> dict[str, list[str]]:
    return {m.member: m.tags for m in group.marks([pid]).get(pid, [])}


def _pair(make_lib, tmp_path: Path):
    shared = tmp_path / "shared"
    shared.mkdir()
    a, b = make_lib("a"), make_lib("b")
    ga, gb = Group(a), Group(b)
    assert ga.join(shared, "ada", share_notes=True) is True
    gb.join(shared, "bob")
    return shared, a, b, ga, gb


def test_taking_notes_back_removes_them_from_ones_files_and_the_others_views(make_lib, tmp_path):
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    pid, other = a.paper_ids()[:2]
    a.set_starred([pid], True)
    a.set_note(pid, "secret plan for the journal club")
    a.set_note(other, "second thoughts")
    ga.sync()
    gb.sync()
    assert _notes(gb, pid)["ada"] == "secret plan for the journal club"
    assert "secret plan" in _written(shared / "ada")

    assert ga.set_options(share_notes=False) == ["notes no longer shared"]
    report = ga.sync()
    assert report.problems == [] and report.written == 2
    written = _written(shared / "ada")
    assert "secret plan" not in written and "second thoughts" not in written  # not only outdated: gone
    assert sorted(p.name for p in (shared / "ada").iterdir()) == ["log-2.jsonl", "snapshot-2.jsonl"]
    gb.sync()
    assert _notes(gb, pid) == {"ada": ""} and _notes(gb, other) == {}
    assert b.paper_ids() and pid in _filter_starred(gb, b)  # the star stays shared
    assert not ga.sync().changed and not gb.sync().changed

    ga.set_options(share_notes=True)  # shared again: written again, shown again
    ga.sync()
    gb.sync()
    assert _notes(gb, pid)["ada"] == "secret plan for the journal club"
    assert ga.state() == gb.state()


def _filter_starred(group: Group, lib) -> set[str]:
    return {pid for pid, marks in group.marks(lib.paper_ids()).items() if any(m.star for m in marks)}


def test_sharing_only_group_tags_takes_the_private_ones_out_of_ones_files(make_lib, tmp_path):
    shared, a, _b, ga, gb = _pair(make_lib, tmp_path)
    pid = a.paper_ids()[0]
    a.add_tags([pid], ["private-word", "group/discuss"])
    ga.sync()
    gb.sync()
    assert _tags(gb, pid)["ada"] == ["group/discuss", "private-word"]
    ga.set_options(tags="group")
    ga.sync()
    assert "private-word" not in _written(shared / "ada") and "group/discuss" in _written(shared / "ada")
    gb.sync()
    assert _tags(gb, pid)["ada"] == ["group/discuss"]
    ga.set_options(tags="all")  # widening shares them again, without a rewrite
    ga.sync()
    gb.sync()
    assert _tags(gb, pid)["ada"] == ["group/discuss", "private-word"]
    assert ga.state() == gb.state()


def test_a_rewrite_that_cannot_be_written_is_kept_for_the_next_sync(make_lib, tmp_path, monkeypatch):
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    pid = a.paper_ids()[0]
    a.set_note(pid, "not for everyone")
    ga.sync()
    gb.sync()
    assert _notes(gb, pid) == {"ada": "not for everyone"}
    ga.set_options(share_notes=False)

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(fs, "write_atomic", full)
        report = ga.sync()
    assert any("the disk is full" in p for p in report.problems)
    cfg = ga.config()
    assert cfg is not None and cfg["purge"] == 1 and not cfg["share_notes"]
    assert "not for everyone" in _written(shared / "ada")  # nothing written yet
    assert ga.sync().problems == []
    cfg = ga.config()
    assert cfg is not None and cfg["purge"] == 0
    assert "not for everyone" not in _written(shared / "ada")
    gb.sync()
    assert _notes(gb, pid) == {}  # the note taken back; ada made no other decision on it
    assert gs.state(b.read_connection()) and all(r["note"] == "" for r in gs.state(b.read_connection()))


def test_join_again_changes_the_settings_given_and_refuses_another_folder_or_name(make_lib, tmp_path):
    shared, _a, _b, ga, _gb = _pair(make_lib, tmp_path)
    assert ga.join(shared, "ada", tags="group") is False  # the same group: only --tags changes
    cfg = ga.config()
    assert cfg is not None and (cfg["tags"], cfg["share_notes"], cfg["purge"]) == ("group", 1, 1)
    assert ga.join(shared / ".." / "shared", "ada") is False  # nothing given: nothing changes
    assert ga.config()["tags"] == "group"
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    for folder, name in ((elsewhere, "ada"), (shared, "ada2")):
        try:
            ga.join(folder, name)
        except GroupError as exc:
            assert "already in the group" in str(exc) and "reader group set" in str(exc)
        else:
            raise AssertionError("joined twice")


def test_the_cli_sets_what_is_shared_after_joining(make_lib, tmp_path, capsys):
    shared = tmp_path / "shared"
    shared.mkdir()
    lib = make_lib("cli")
    pid = lib.paper_ids()[0]
    lib.set_note(pid, "my private reading")
    root = lib.paths.root
    lib.close()
    code, out, err = _cli(capsys, root, "group", "join", str(shared), "--as", "ada", "--share-notes")
    assert code == 0, err
    assert "my private reading" in _written(shared / "ada")
    code, out, err = _cli(capsys, root, "group", "join", str(shared), "--as", "ada", "--no-share-notes")
    assert code == 0, err
    assert "already in" in out and "settings changed" in out and "notes not shared" in out
    assert "my private reading" not in _written(shared / "ada")  # the sync that followed rewrote the files
    code, out, err = _cli(capsys, root, "group", "set", "--share-notes", "--tags", "group", "--best-first-group")
    assert code == 0, err
    assert "notes shared" in out and "only tags named group/… shared" in out and "best first learns" in out
    assert "my private reading" in _written(shared / "ada")
    code, out, _err = _cli(capsys, root, "group", "show", "--json")
    shown = json.loads(out)
    assert (shown["share_notes"], shown["tags"], shown["best_first_group"]) == (True, "group", True)
    code, out, _err = _cli(capsys, root, "group", "set")
    assert code == 0 and out.startswith("nothing changed: notes shared · tags: group")
    code, out, err = _cli(capsys, root, "group", "join", str(shared), "--as", "eve")
    assert code != 0 and "already in the group" in err and "reader group set" in err
    with pytest.raises(SystemExit):
        _cli(capsys, root, "group", "set", "--tags", "none")
    assert "--tags" in capsys.readouterr().err
