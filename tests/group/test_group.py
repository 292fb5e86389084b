"""reader.group: joining, syncing through a shared folder, and every way the folder can be wrong."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from reader.group import Group, GroupError
from reader.group import engine as group_engine
from reader.group import folder as fs
from reader.group.divide import split_even
from reader.store import group as gs
from reader.store.group_filters import select, split_filters


class Crash(BaseException):
    pass


def _pair(make_lib, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    a, b = make_lib("a"), make_lib("b")
    ga, gb = Group(a), Group(b)
    ga.join(shared, "ada")
    gb.join(shared, "bob")
    return shared, a, b, ga, gb


def _filter(lib, text):
    problems: list[str] = []
    _rest, filters = split_filters(text)
    return select(lib.read_connection(), filters, problems), problems


def test_decisions_travel_and_undo_is_a_newer_record(make_lib, tmp_path):
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    ids = a.paper_ids()[:4]
    a.set_starred(ids[:2], True)
    a.set_skipped(ids[2:3], True)
    b.set_starred(ids[:1], True)
    b.set_skipped(ids[1:2], True)
    for g in (ga, gb, ga):
        assert g.sync().problems == []
    assert _filter(a, "starred-by:bob")[0] == {ids[0]}
    assert _filter(b, "starred-by:ada")[0] == set(ids[:2])
    assert _filter(b, "group:agree")[0] == {ids[0]}
    assert _filter(b, "group:split")[0] == {ids[1]}
    assert ids[3] in _filter(b, "group:undecided")[0] and ids[0] not in _filter(b, "group:undecided")[0]
    assert _filter(b, "skipped-by:ada -starred-by:bob")[0] == {ids[2]}
    a.set_skipped(ids[2:3], False)  # un-skip
    ga.sync()
    gb.sync()
    assert _filter(b, "skipped-by:ada")[0] == set()
    assert ga.state() == gb.state()


def test_unknown_names_and_views_are_reported(make_lib, tmp_path):
    _shared, a, _b, ga, gb = _pair(make_lib, tmp_path)
    ga.sync()
    gb.sync()
    found, problems = _filter(a, "starred-by:zed group:nope")
    assert found == set()
    assert any('No member named "zed"' in p for p in problems)
    assert any("Unknown group view" in p for p in problems)
    rest, filters = split_filters('transformer -starred-by:"bob" year:2020')
    assert rest == "transformer year:2020" and filters[0].negated and filters[0].value == "bob"


def test_a_kill_after_writing_but_before_the_commit_then_an_undo(make_lib, tmp_path):
    """The records reached the folder but the store rolled back; the user then unstars: the
    unstar must win everywhere (its sequence number is above the one the folder holds)."""
    _shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    pid = a.paper_ids()[0]
    a.set_starred([pid], True)

    def crash(step: str) -> None:
        if step == "before-commit":
            raise Crash(step)

    with pytest.raises(Crash):
        Group(a, checkpoint=crash).sync()
    gb.sync()  # bob reads ada's star from the folder
    assert _filter(b, "starred-by:ada")[0] == {pid}
    a.set_starred([pid], False)
    ga.sync()
    gb.sync()
    assert _filter(b, "starred-by:ada")[0] == set()
    assert _filter(a, "starred-by:ada")[0] == set()
    assert ga.state() == gb.state()


def test_a_decision_on_a_paper_the_other_lacks_is_kept_and_shown_when_it_arrives(make_lib, tmp_path):
    _shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    pid = a.paper_ids()[0]
    snapshot = b.papers([pid])
    b.delete_papers([pid])
    a.set_starred([pid], True)
    ga.sync()
    gb.sync()
    assert _filter(b, "starred-by:ada")[0] == set()
    assert gs.counts(b.read_connection())["ada"]["starred"] == 1  # kept, not yet met
    b.restore(snapshot)  # the paper arrives (imported again, or an undo)
    gb.sync()
    assert _filter(b, "starred-by:ada")[0] == {pid}


def test_a_record_cut_short_is_read_when_it_is_complete(make_lib, tmp_path):
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    ga.sync()
    ids = a.paper_ids()[:2]
    a.set_starred(ids, True)
    log = shared / "ada" / "log-1.jsonl"
    before = log.read_bytes()
    ga.sync()
    whole = log.read_bytes()
    assert len(whole) > len(before)
    log.write_bytes(whole[:len(whole) - 7])  # the sync tool is still copying it
    report = gb.sync()
    assert report.problems == []
    assert len(_filter(b, "starred-by:ada")[0]) == 1  # the first record only
    log.write_bytes(whole)
    gb.sync()
    assert _filter(b, "starred-by:ada")[0] == set(ids)


def test_newer_version_malformed_and_huge_lines_give_one_message_each(make_lib, tmp_path):
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    pid = b.paper_ids()[0]
    eve = shared / "eve"
    eve.mkdir()
    (eve / "log-1.jsonl").write_text(json.dumps({"reader-group": 9, "name": "eve", "library": "x", "gen": 1}) + "\n")
    cy = shared / "cy"
    cy.mkdir()
    key = gs.key_rows_of(b.read_connection(), [pid])[0]
    from reader.group.keys import paper_keys

    k = paper_keys(key["doi"], key["arxiv"], key["links"], key["title_key"], key["year"], key["abstract_key"])
    (cy / "log-1.jsonl").write_bytes(
        b'{"reader-group":1,"name":"cy","library":"c1","gen":1}\n'
        b'{"k":"oops"}\n'
        b'not json at all\n'
        + b'{"k":["' + b"x" * (fs.MAX_LINE + 10) + b'"]}\n'
        + json.dumps({"k": k, "star": [3, 1]}).encode() + b"\n")
    report = gb.sync()
    text = "\n".join(report.problems)
    assert "newer Reader" in text and "eve" in text
    assert "at byte" in text and "skipped" in text
    assert f"over {fs.MAX_LINE // 1024} KB" in text
    assert _filter(b, "starred-by:cy")[0] == {pid}  # the good line after the bad ones
    assert "eve" not in {r["member"] for r in gs.state(b.read_connection())}
    assert not [p for p in gb.sync().problems if "cy" in p]


def test_a_non_regular_file_is_ignored_and_never_blocks(make_lib, tmp_path):
    shared, _a, _b, _ga, gb = _pair(make_lib, tmp_path)
    os.mkfifo(shared / "bob" / "log-7.jsonl")
    report = gb.sync()
    assert any("not a regular file" in p for p in report.problems)


def test_a_deleted_member_folder_keeps_their_decisions_and_ones_own_is_written_again(make_lib, tmp_path):
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    ids = a.paper_ids()[:2]
    a.set_starred(ids, True)
    ga.sync()
    gb.sync()
    shutil.rmtree(shared / "ada")
    report = gb.sync()
    assert any("ada" in p and "gone" in p for p in report.problems)
    assert _filter(b, "starred-by:ada")[0] == set(ids)
    ga.sync()  # ada's own folder comes back, as a new generation
    assert sorted(p.name for p in (shared / "ada").iterdir()) == ["log-2.jsonl", "snapshot-2.jsonl"]
    gb.sync()
    assert ga.state() == gb.state()


def test_a_read_only_or_full_folder_loses_nothing(make_lib, tmp_path, monkeypatch):
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    ga.sync()
    pid = a.paper_ids()[0]
    a.set_starred([pid], True)

    def full(*_args, **_kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(fs, "append", full)
    report = ga.sync()
    assert any("the disk is full" in p and "kept in this library" in p for p in report.problems)
    monkeypatch.undo()
    monkeypatch.setattr(a.upkeep, "after_commit", lambda: None)
    report = ga.sync()
    assert report.problems == [] and report.written == 1
    gb.sync()
    assert _filter(b, "starred-by:ada")[0] == {pid}


def test_a_name_is_one_librarys(make_lib, tmp_path):
    shared, a, _b, ga, _gb = _pair(make_lib, tmp_path)
    ga.sync()
    c = make_lib("c")
    with pytest.raises(GroupError, match="taken"):
        Group(c).join(shared, "ada")
    # A copy of ada's library (same name, written from another library): detected, not merged.
    (shared / "ada" / "log-1.jsonl").write_bytes(
        b'{"reader-group":1,"name":"ada","library":"another","gen":1}\n')
    report = ga.sync()
    assert any("two libraries" in p for p in report.problems)


def test_compaction_keeps_files_small_and_readers_follow_generations(make_lib, tmp_path, monkeypatch):
    monkeypatch.setattr(group_engine, "COMPACT_AT", 300)
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    ids = a.paper_ids()[:12]
    for i, pid in enumerate(ids):
        a.set_starred([pid], True)
        if i % 3 == 0:
            gb.sync()
        ga.sync()
    names = sorted(p.name for p in (shared / "ada").iterdir())
    assert len(names) == 2 and names[0].startswith("log-") and not names[0].startswith("log-1.")
    gb.sync()
    assert _filter(b, "starred-by:ada")[0] == set(ids)
    assert ga.state() == gb.state()


def test_a_cheap_sync_when_nothing_changed(make_lib, tmp_path):
    _shared, _a, _b, ga, gb = _pair(make_lib, tmp_path)
    ga.sync()
    gb.sync()
    ga.sync()
    report = ga.sync()
    assert not report.changed and report.read == 0


def test_split_even_keeps_topics_whole_when_they_fit():
    ids = [f"p{i}" for i in range(10)]
    topic = {p: (0 if i < 4 else 1 if i < 7 else 2, i, 0) for i, p in enumerate(ids)}
    shares = split_even(ids, topic, ["bob", "ada", "cy"])
    sizes = sorted(len(v) for v in shares.values())
    assert sizes == [3, 3, 4]
    assert shares["ada"] == ["p0", "p1", "p2", "p3"]  # the biggest topic, whole
    assert sorted(p for v in shares.values() for p in v) == sorted(ids)


def test_join_refuses_bad_names_and_folders(make_lib, tmp_path):
    lib = make_lib("x")
    g = Group(lib)
    with pytest.raises(GroupError, match="can't be a member name"):
        g.join(tmp_path, "../evil")
    with pytest.raises(GroupError, match="not a folder"):
        g.join(tmp_path / "nope", "ada")
    with pytest.raises(GroupError, match="no reading group"):
        g.sync()


def test_reading_refuses_to_follow_a_symlink(tmp_path):
    real = tmp_path / "real.jsonl"
    real.write_text("x\n")
    (tmp_path / "link.jsonl").symlink_to(real)
    with pytest.raises(OSError):
        fs.read_lines(Path(tmp_path / "link.jsonl"), 0)


def test_triage_offers_ones_share_first_and_may_learn_from_the_others_stars(make_lib, tmp_path):
    from reader.triage import source
    from reader.triage.best import BestFirst
    from reader.triage.queue import LISTED

    _shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    ids = a.paper_ids()
    b.set_starred(ids[:1], True)
    ga.sync()
    gb.sync()
    ga.sync()
    todo = ids[1:21]
    topic = {p: (i % 4, i, 0) for i, p in enumerate(todo)}
    ga.publish_division("", split_even(todo, topic, ga.members()))
    gb.sync()
    mine = set(gb.share())
    assert len(mine) == 10
    ordered = source.order_ids(b, todo, LISTED)
    assert set(ordered[:10]) == mine and ordered[10:] == [p for p in todo if p not in mine]
    best = BestFirst(a)
    assert ids[0] not in best.decisions().starred
    ga.set_options(best_first_group=True)
    assert ids[0] in best.decisions().starred  # bob's star teaches ada's best first


def test_the_fast_record_path_folds_as_the_thorough_one_or_leaves_the_line_to_it():
    from reader.group.format import BadLine, parse_record
    from reader.group.meeting import fold, fold_fast

    k = '"a1b2c3d4e5f60718","ffffffffffffffff"'
    lines = [
        '{"k":[' + k + '],"star":[3,1],"read":[4,1]}',
        '{"k":[' + k + '],"skip":[5,1],"tags":[6,["group/b","group/a","group/b"]]}',
        '{"k":[' + k + '],"star":[2,0],"x":[1,2]}',  # older: loses; an unknown field is ignored
        '{"k":["zz"],"star":[1,true]}',  # a bool: the thorough path takes it as 1
        '{"k":["zz"],"star":[1,1.0]}', '{"k":["zz"],"star":[0,1]}', '{"k":["zz"],"star":[1,2]}',
        '{"k":["a b"],"star":[1,1]}', '{"k":[],"star":[1,1]}', '{"k":["' + "x" * 65 + '"]}',
        '{"k":["zz"],"star":null,"skip":[2,1]}', '{"k":["zz"],"note":[9,"hi"]}', ' {"k":["zz"]}',
        '{"k":["zz"],"tags":[3,["a",1]]}', '{"k":["zz"],"star":[1,1]} x', '[1]', '{"k":["q"],"star":[1,1],"star":[4,0]}',
        '{"k":["\\u00e9t\\u00e9"],"read":[7,1]}', '\ufeff{"k":["zz"]}', '{"k":["ab","c d"],"star":[1,1]}',
        '{"k":["ab",""],"star":[1,1]}', '{"k":' + json.dumps([f"k{i}" for i in range(9)]) + ',"star":[1,1]}',
        '{"k":' + json.dumps([f"k{i}" for i in range(8)]) + ',"star":[8,1]}', '{"k":["ab",3],"star":[1,1]}',
    ]
    fast: dict = {}
    slow: dict = {}
    for text in lines:
        line = text.encode("utf-8")
        try:
            keys, fields = parse_record(line)
        except BadLine:
            assert not fold_fast(fast, line), text  # a bad line is never taken
            continue
        fold(slow, keys, fields)
        if not fold_fast(fast, line):
            fold(fast, keys, fields)  # what the engine does with a line the fast path leaves
    assert fast == slow
    assert slow["a1b2c3d4e5f60718"][1:9] == [1, 3, 1, 5, 1, 4, '["group/a","group/b"]', 6]
    assert fold_fast({}, b'{"k":["aa"],"star":[1,1],"read":[2,0]}')
    assert not fold_fast({}, b'{"k":["aa"],"note":[1,"x"]}')  # notes: the thorough path


def test_an_openreview_link_spelled_with_json_escapes_still_gives_its_key():
    from reader.group.keys import key_hash, paper_keys

    plain = paper_keys("", "", json.dumps(["https://openreview.net/forum?id=Abc1"]), "", None, "")
    escaped = paper_keys("", "", '["https://open\\u0072eview.net/forum?id=Abc1"]', "", None, "")
    assert plain == escaped == [key_hash("openreview:Abc1")]
    assert paper_keys("", "", json.dumps(["https://example.org/x"]), "t", 2020, "") == [key_hash("title:t|2020")]


def test_lines_across_read_blocks_huge_and_cut_ones_included(tmp_path, monkeypatch):
    monkeypatch.setattr(fs, "READ_CHUNK", 16)
    monkeypatch.setattr(fs, "MAX_LINE", 20)
    path = tmp_path / "log-1.jsonl"
    path.write_bytes(b"a" * 10 + b"\n" + b"b" * 30 + b"\n" + b"\n" + b"c" * 20 + b"\n" + b"d" * 45 + b"\n" + b"e" * 7)
    chunk = fs.read_lines(path, 0)
    assert chunk.lines == [(0, b"a" * 10), (42, b""), (43, b"c" * 20)]
    assert chunk.huge == [11, 64] and chunk.end == 110  # the cut "eeeeeee" is left for next time
    again = fs.read_lines(path, 42)
    assert again.lines == chunk.lines[1:] and again.huge == [64] and again.end == 110
    path.write_bytes(b"a" * 10 + b"\n" + b"f" * 50)  # a huge line not finished yet: nothing of it
    assert (fs.read_lines(path, 0).lines, fs.read_lines(path, 0).huge, fs.read_lines(path, 0).end) == (
        [(0, b"a" * 10)], [], 11)


def test_members_files_are_readable_by_the_other_members_accounts(make_lib, tmp_path):
    """A shared network drive or git checkout: the other members read one's files under their
    own accounts, so files are made with the umask's mode (0644 under 022), not mkstemp's 0600."""
    old = os.umask(0o022)
    try:
        shared, a, _b, ga, _gb = _pair(make_lib, tmp_path)
        a.set_starred(a.paper_ids()[:1], True)
        ga.sync()
        files = [p for p in (shared / "ada").iterdir() if p.is_file()]
        assert files
        for path in files:
            assert path.stat().st_mode & 0o777 == 0o644, path
    finally:
        os.umask(old)


def test_the_common_record_line_is_written_as_json_dumps_writes_it():
    from reader.group.format import FIELDS, _dump, record_line

    for keys, fields in [(["a1b2c3d4e5f60718", "0f"], {"read": (4, 1), "star": (3, 0)}),
                         (["ab"], {"skip": (12, 1), "tags": (13, ["group/x"])}), (["AB", "é"], {"star": (1, 1)}),
                         (["ab"], {"star": (1, True)}), (["ab"], {})]:
        obj: dict = {"k": keys}
        obj.update({name: [fields[name][0], fields[name][1]] for name in FIELDS if name in fields})
        assert record_line(keys, fields) == _dump(obj)


def test_the_tags_setting_is_stated_and_all_shares_every_tag(make_lib, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    a, b = make_lib("a"), make_lib("b")
    ga, gb = Group(a), Group(b)
    ga.join(shared, "ada")  # the default: every tag
    gb.join(shared, "bob", tags="group")
    assert (ga.status().as_json()["tags"], ga.status().as_json()["tags_shared"]) == ("all", "all tags")
    assert gb.status().as_json()["tags_shared"] == "only tags named group/…"
    pid = a.paper_ids()[0]
    a.add_tags([pid], ["private-word"])
    ga.sync()
    gb.sync()
    assert _filter(b, "tagged-by:ada")[0] == {pid}
    qid = b.paper_ids()[1]
    b.add_tags([qid], ["bob-private", "group/discuss"])
    gb.sync()
    ga.sync()
    assert _filter(a, "tagged-by:bob")[0] == {qid}  # through group/discuss
    written = "".join(f.read_text(encoding="utf-8") for f in (shared / "bob").glob("*.jsonl"))
    assert "group/discuss" in written and "bob-private" not in written


def test_a_huge_record_cut_short_in_ones_own_log_never_swallows_the_next(tmp_path):
    # A 5 MB note's record cut short (a crash, a full disk) at the end of one's own log: the next
    # append dropped only the last MB of it, so the new record was glued to the rest of the cut
    # line and skipped by every reader as part of a huge line.
    log = tmp_path / "log-1.jsonl"
    head = b'{"reader-group":1,"name":"ada","library":"x","gen":1}\n{"k":["aa"],"star":[1,1]}\n'
    log.write_bytes(head + b'{"k":["ab"],"note":[5,"' + b"y" * (5 << 20))
    fs.append(log, b'{"k":["cc"],"star":[2,1]}\n')
    assert log.read_bytes() == head + b'{"k":["cc"],"star":[2,1]}\n'
    assert [line for _, line in fs.read_lines(log, 0).lines][-1] == b'{"k":["cc"],"star":[2,1]}'


def test_a_line_sqlite_cannot_store_is_skipped_with_its_offset_not_a_failed_sync(make_lib, tmp_path):
    """JSON escapes can spell a lone surrogate (in a key, a tag or a note) and a sequence number
    can pass SQLite's 64-bit integers: such a line is a bad line, named by its byte offset, and
    the rest of the file is merged (the sync used to fail on it, and on every sync after)."""
    shared, a, b, ga, gb = _pair(make_lib, tmp_path)
    pid = b.paper_ids()[0]
    key = gs.key_rows_of(b.read_connection(), [pid])[0]
    from reader.group.keys import paper_keys

    k = paper_keys(key["doi"], key["arxiv"], key["links"], key["title_key"], key["year"], key["abstract_key"])
    bad = [b'{"k":["\\ud800"],"star":[1,1]}', b'{"k":["ab"],"tags":[2,["x\\udc00"]]}',
           b'{"k":["ab"],"note":[3,"x\\ud83d"]}', b'{"k":["ab"],"star":[9223372036854775808,1]}',
           b'{"k":["ab"],"read":[99999999999999999999999,1]}']
    cy = shared / "cy"
    cy.mkdir()
    head = b'{"reader-group":1,"name":"cy","library":"c1","gen":1}\n'
    (cy / "snapshot-1.jsonl").write_bytes(head + b"\n".join(bad[:3]) + b"\n")
    (cy / "log-1.jsonl").write_bytes(head + b"\n".join(bad[3:]) + b"\n"
                                     + json.dumps({"k": k, "star": [2**63 - 1, 1], "tags": [2, ["é\\u"]]}).encode() + b"\n")
    report = gb.sync()
    skipped = [p for p in report.problems if "at byte" in p and "skipped" in p]
    assert len(skipped) == 5 and any("Unicode" in p for p in skipped), report.problems
    assert str(len(head)) in skipped[0] and str(len(head) + len(bad[3]) + 1) in skipped[4]
    assert _filter(b, "starred-by:cy")[0] == {pid}  # the good line after the bad ones
    assert [r["tags"] for r in gs.state(b.read_connection()) if r["member"] == "cy"] == ['["é\\\\u"]']
    assert not gb.sync().problems
