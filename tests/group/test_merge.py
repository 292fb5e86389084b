"""The merge of the members' records into group_state: a first sync loads them in bulk (the index
on paper ids built afterwards), later syncs fold them in one by one. Both ways, and a folder read
one member at a time, must give the same merged state and the same answers to the group's
queries."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from reader.group import Group
from reader.group.format import header_line, record_line
from reader.group.keys import key_hash, paper_keys
from reader.store import group as gs
from reader.store.group_filters import select, split_filters

MEMBERS = ("ann", "ben", "cat", "dan")
QUERIES = ("group:agree", "group:split", "group:undecided", *(f"{k}:{m}" for m in MEMBERS
                                                              for k in ("starred-by", "skipped-by", "tagged-by")))


def _keys(lib) -> list[list[str]]:
    return [paper_keys(r["doi"], r["arxiv"], r["links"], r["title_key"], r["year"], r["abstract_key"])
            or [key_hash("id:" + r["id"])] for r in gs.key_rows(lib.read_connection(), -1)]


def _records(rnd: random.Random, pool: list[list[str]], n: int, seq: int) -> tuple[list[bytes], int]:
    """n random records on papers of `pool`, overlapping, some fields set again later."""
    out = []
    for _ in range(n):
        keys = rnd.choice(pool)
        fields: dict = {}
        for name in ("star", "skip", "read"):
            if rnd.random() < 0.5:
                seq += rnd.choice((1, 1, 2))
                fields[name] = (seq, rnd.randint(0, 1))
        if rnd.random() < 0.3:
            seq += 1
            fields["tags"] = (seq, sorted(rnd.sample(["group/a", "group/b", "other"], rnd.randint(0, 2))))
        if rnd.random() < 0.1:
            seq += 1
            fields["note"] = (seq, rnd.choice(["", "read this", "méthode"]))
        if not fields:
            seq += 1
            fields["star"] = (seq, 1)
        out.append(record_line(keys, fields))
    return out, seq


def _write(folder: Path, rnd: random.Random, pool: list[list[str]], more: bool) -> None:
    for i, name in enumerate(MEMBERS):
        d = folder / name
        d.mkdir(exist_ok=True)
        if not more:
            snap, seq = _records(rnd, pool, 120, 0)
            (d / "snapshot-1.jsonl").write_bytes(header_line(name, f"lib{i}", 1) + b"".join(snap))
            log, seq = _records(rnd, pool, 40, seq // 2)  # seqs below the snapshot's too: older values lose
            (d / "log-1.jsonl").write_bytes(header_line(name, f"lib{i}", 1) + b"".join(log))
            (d / ".seq").write_text(str(seq))
        else:
            log, seq = _records(rnd, pool, 60, int((d / ".seq").read_text()) - 30)
            with (d / "log-1.jsonl").open("ab") as f:
                f.write(b"".join(log))


def _answers(lib) -> dict[str, set[str]]:
    out = {}
    for q in QUERIES:
        problems: list[str] = []
        out[q] = select(lib.read_connection(), split_filters(q)[1], problems)
        assert not problems
    return out


def _marks(group: Group, lib) -> dict:
    return group.marks(lib.paper_ids())


def test_bulk_and_one_by_one_merges_give_the_same_state(make_lib, tmp_path, monkeypatch):
    rnd = random.Random(2029)
    libs = [make_lib(x) for x in ("bulk", "small", "apart")]
    pool = _keys(libs[0])
    pool = pool[: max(10, len(pool) // 2)] + [[key_hash(f"elsewhere{i}")] for i in range(15)]  # some met nowhere
    origin = tmp_path / "origin"
    origin.mkdir()
    _write(origin, rnd, pool, more=False)
    folders = [tmp_path / f"f-{i}" for i in range(3)]
    for f in folders[:2]:
        shutil.copytree(origin, f)
    folders[2].mkdir()
    groups = [Group(lib) for lib in libs]
    for g, f in zip(groups, folders, strict=True):
        g.join(f, "me")
    monkeypatch.setattr(gs, "BULK_ROWS", 100)
    groups[0].sync()  # every record of the four members at once into the empty table
    conn = libs[0].read_connection()
    assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'group_state_paper'").fetchone()[0] == 1
    plan = " ".join(r[3] for r in conn.execute("EXPLAIN QUERY PLAN SELECT member FROM group_state WHERE paper_id = ?",
                                               ["x"]))
    assert "group_state_paper" in plan
    monkeypatch.setattr(gs, "BULK_ROWS", 10**9)
    groups[1].sync()  # the same, one upsert at a time
    for name in MEMBERS:  # the third library meets the members one by one, a sync each
        shutil.copytree(origin / name, folders[2] / name)
        groups[2].sync()
    states = [g.state() for g in groups]
    assert states[0] and states[0] == states[1] == states[2]
    answers = [_answers(lib) for lib in libs]
    assert answers[0]["starred-by:ann"] and answers[0] == answers[1] == answers[2]
    assert _marks(groups[0], libs[0]) == _marks(groups[1], libs[1]) == _marks(groups[2], libs[2])

    # More records on top (logs appended, some older than what is merged): folded into a full table.
    for f in folders:
        _write(f, random.Random(7), pool, more=True)
    monkeypatch.setattr(gs, "BULK_ROWS", 100)
    for g in groups:
        g.sync()
    first = states[0]
    states = [g.state() for g in groups]
    assert states[0] == states[1] == states[2] != first
    assert [_answers(lib) for lib in libs[1:]] == [_answers(libs[0])] * 2


def test_folding_a_files_lines_at_once_equals_folding_them_one_by_one():
    """fold_lines (a file's lines in one loop) folds as the line-by-line path did: the fast path,
    else parse_record then fold, in file order (a tie of sequence numbers keeps the first), and
    gives the bad lines with their offsets and reasons, in order."""
    from reader.group.format import BadLine, parse_record
    from reader.group.meeting import fold, fold_fast, fold_lines

    rnd = random.Random(29)
    pool = [[key_hash(f"p{i}"), key_hash(f"q{i}")] for i in range(40)]
    good, _seq = _records(rnd, pool, 400, 0)
    bad = [b'{"k":"oops"}', b"not json", b'{"k":["zz"],"star":[1,2]}', b'{"k":["zz"],"note":[3,"ok"]}',
           b'{"k":["' + pool[0][0].encode() + b'"],"star":[5,1],"skip":[5,1]}', b"[1]", b"",
           b'{"k":["' + pool[0][0].encode() + b'"],"star":[5,0]}']  # the same seq, another value: the first wins
    lines = [line.rstrip(b"\n") for line in good]
    for line in bad:
        lines.insert(rnd.randrange(len(lines)), line)
    items = [(i * 100, line) for i, line in enumerate(lines)]
    one: dict = {}
    reasons = []
    for at, line in items:
        if fold_fast(one, line):
            continue
        try:
            keys, fields = parse_record(line)
        except BadLine as exc:
            reasons.append((at, str(exc)))
            continue
        fold(one, keys, fields)
    many: dict = {}
    left = fold_lines(many, items)
    assert many == one and len(one) > 30
    assert [(at, str(exc)) for at, exc in left] == reasons and len(reasons) == 5


def test_m0021_keeps_the_merged_state_and_its_key_stays_unique(tmp_path):
    """m0021 moves group_state's key from the primary key to a unique index: the rows are kept,
    the upsert of a later sync still finds them, and a second record of a key is refused."""
    import sqlite3

    import pytest

    from reader.library import Library
    from reader.store import SCHEMA_MIGRATIONS, open_connection, open_database

    root = tmp_path / "old"
    root.mkdir()
    conn = open_connection(root / "library.sqlite3")
    SCHEMA_MIGRATIONS.apply(open_database(conn), stop_before="m0021_group_state_key_index")
    rows = [("ann", "k1", "k1 k9", "p1", 1, 3, 0, 0, 1, 4, '["group/a"]', 5, "hi", 6),
            ("ben", "k1", "k1", None, 0, 0, 1, 2, 1, 2, "[]", 0, "", 0)]
    conn.executemany("INSERT INTO group_state (member, pkey, keys, paper_id, " + gs.STATE_COLUMNS + ") "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.commit()
    conn.close()
    with Library.open(root, seed_if_empty=False) as lib:
        rconn = lib.read_connection()
        assert [tuple(r) for r in rconn.execute("SELECT member, pkey, keys, paper_id, " + gs.STATE_COLUMNS
                                                 + " FROM group_state ORDER BY member")] == rows
        names = {r[0] for r in rconn.execute("SELECT name FROM sqlite_master WHERE tbl_name = 'group_state'")}
        assert {"group_state_key", "group_state_paper"} <= names
        with lib.write_transaction() as (wconn, _seq):
            gs.merge_records(wconn, {"ann": [["k1 k9", 0, 7, 0, 0, 0, 0, "[]", 0, "", 0, "k1", "p1", "ann"]]})
        assert gs.state(rconn)[0][3:5] == (0, 7)  # the newer star folded into the kept row
        with pytest.raises(sqlite3.IntegrityError), lib.write_transaction() as (wconn, _seq):
            wconn.execute("INSERT INTO group_state (member, pkey, keys) VALUES ('ann', 'k1', 'k1')")


def test_a_first_sync_reads_the_papers_once_and_leaves_nothing_for_the_collector(make_lib, tmp_path, monkeypatch):
    """A first sync's keys and its export read the same papers: one query, not two. And the rows
    it builds are gone before the cycle collector resumes (kept alive, the first collection
    after walked every one of them: a tenth of a full merge)."""
    from reader.group import meeting

    lib = make_lib("once")
    folder = tmp_path / "folder"
    folder.mkdir()
    rnd = random.Random(5)
    pool = _keys(lib) + [[key_hash(f"elsewhere{i}")] for i in range(3000)]
    for i, name in enumerate(MEMBERS):
        (folder / name).mkdir()
        lines, _seq = _records(rnd, pool, 3000, 0)
        (folder / name / "snapshot-1.jsonl").write_bytes(header_line(name, f"lib{i}", 1) + b"".join(lines))
    lib.set_starred(lib.paper_ids()[:20], True)
    group = Group(lib)
    group.join(folder, "me")
    reads = {"key_rows": 0, "papers_since": 0}
    for name in reads:
        real = getattr(gs, name)

        def counted(*args, _real=real, _name=name, **kwargs):
            reads[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(gs, name, counted)
    import gc

    left: list[int] = []
    real_enable = meeting.gc.enable

    def enable() -> None:
        left.append(len(gc.get_objects(0)))  # what the first collection after would walk
        real_enable()

    monkeypatch.setattr(meeting.gc, "enable", enable)
    gc.collect()
    report = group.sync()
    assert report.read == 4 * 3000 and report.written == 20 and len(group.state()) > 7000
    assert reads == {"key_rows": 0, "papers_since": 1}
    assert left and left[0] < 3000  # the library's own few objects, not the 7,000 records' rows


def test_a_bulk_load_inserts_many_rows_a_statement_with_the_same_state(make_lib, monkeypatch):
    """Into an empty group_state, merge_records inserts BULK_VALUES rows per statement (the
    rest in one last statement), and gives the state the one-by-one upsert gives."""
    libs = [make_lib("bulk"), make_lib("upsert")]
    batches: dict = {}
    for member, n in (("ann", 3 * gs.BULK_VALUES + 5), ("ben", gs.BULK_VALUES - 1), ("cat", 1)):
        rows = []
        for i in range(n):
            keys = [key_hash(f"{member}{i}"), key_hash(f"x{i}")][: 1 + i % 2]
            rows.append([" ".join(keys), i % 2, i + 1, 1 - i % 2, i + 2, 1, i + 3,
                         '["group/a"]' if i % 5 == 0 else "[]", i + 4 if i % 5 == 0 else 0,
                         "note" if i % 7 == 0 else "", i + 5 if i % 7 == 0 else 0, keys[0], None, member])
        batches[member] = sorted(rows, key=lambda r: r[11])
    statements: list[str] = []
    monkeypatch.setattr(gs, "BULK_ROWS", 10)
    with libs[0].write_transaction() as (conn, _seq):
        conn.set_trace_callback(statements.append)
        gs.merge_records(conn, batches)
        conn.set_trace_callback(None)
    monkeypatch.setattr(gs, "BULK_ROWS", 10**9)
    with libs[1].write_transaction() as (conn, _seq):
        gs.merge_records(conn, batches)
    total = sum(map(len, batches.values()))
    inserts = [s for s in statements if s.startswith("INSERT INTO group_state")]
    assert len(inserts) == total // gs.BULK_VALUES + 1  # 5 statements for 261 rows, not 261
    state = gs.state(libs[0].read_connection())
    assert len(state) == total and [tuple(r) for r in state] == [tuple(r) for r in gs.state(libs[1].read_connection())]


def _repeats(parsed) -> list[str]:
    """The kinds of repeat in a parsed regular expression, nested ones too."""
    import re._constants as c

    found = []
    for op, arg in parsed:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            found.append(str(op))
            found += _repeats(arg[2])
        elif op in (c.SUBPATTERN, c.ATOMIC_GROUP):
            found += _repeats(arg[-1])
        elif op == c.BRANCH:
            for branch in arg[1]:
                found += _repeats(branch)
    return found


def test_the_record_pattern_never_backtracks_and_matches_as_the_plain_one():
    """Every repeat of the record lines' pattern is possessive (a plain one keeps a state per
    character to give back, ~0.4 of the time a full merge's lines took), and it accepts exactly
    the lines, with the same parts, that the same pattern with plain repeats accepts."""
    import re
    import re._parser

    from reader.group import meeting

    pattern = meeting._RECORD.__self__.pattern  # type: ignore[attr-defined]
    kinds = _repeats(re._parser.parse(pattern))
    assert kinds and set(kinds) == {"POSSESSIVE_REPEAT"}
    plain = re.compile(pattern.replace("}+", "}").replace("?+", "?").replace("*+", "*")).fullmatch
    rnd = random.Random(29)
    pool = [[key_hash(f"p{i}"), key_hash(f"q{i}")] for i in range(20)] + [["a" * 64], ["b" * 65, "c"]]
    good, _seq = _records(rnd, pool, 200, 0)
    good += [b'{"k":["aa"],"star":[1234567890123456789,1]}', b'{"k":["aa"],"tags":[3,["x","y\\"z"]]}']
    alphabet = '{}[]",:0123456789abcdef stariedkpg\\\x01é'
    checked = 0
    for _ in range(20000):
        text = rnd.choice(good).decode().rstrip("\n")
        for _edit in range(rnd.randint(0, 3)):
            at = rnd.randrange(len(text) + 1)
            text = text[:at] + rnd.choice(alphabet) + text[at + rnd.randint(0, 1):]
        a, b = plain(text), meeting._RECORD(text)
        assert (a is None) == (b is None), text
        if a is not None:
            assert a.groups(0) == b.groups(0)
            checked += 1
    assert checked > 1000


def test_rows_keep_the_fold_order_and_a_big_upsert_writes_them_in_key_order(make_lib, monkeypatch):
    """Meeting.rows() gives a member's rows in the order they were folded (a sort of thousands
    of keys there cost four times the meeting); merge_records() sorts a big batch by key itself
    where the order matters, writing into a table that holds records already (the records then
    come in the unique index's order: new ones get rowids in key order)."""
    from reader.group.meeting import Meeting, fold_lines

    keys = sorted((key_hash(f"p{i}") for i in range(300)), reverse=True)
    lines = [(i, record_line([k], {"star": (i + 1, 1)}).rstrip(b"\n")) for i, k in enumerate(keys)]
    merged: dict = {}
    assert fold_lines(merged, lines) == []
    rows = Meeting(None, {keys[0]: "paper0"}).rows("ann", merged)  # type: ignore[arg-type]
    assert [r[11] for r in rows] == keys != sorted(keys)
    assert rows[0][12] == "paper0" and {r[13] for r in rows} == {"ann"}
    lib = make_lib("order")
    monkeypatch.setattr(gs, "BULK_ROWS", 10)
    with lib.write_transaction() as (conn, _seq):
        gs.merge_records(conn, {"ben": [["k0", 1, 1, 0, 0, 0, 0, "[]", 0, "", 0, "k0", None, "ben"]]})
    with lib.write_transaction() as (conn, _seq):
        gs.merge_records(conn, {"ann": rows})  # upserts: the table holds a record
    conn = lib.read_connection()
    written = [r[0] for r in conn.execute("SELECT pkey FROM group_state WHERE member = 'ann' ORDER BY rowid")]
    assert written == sorted(keys)
    assert conn.execute("SELECT count(*) FROM group_state WHERE member = 'ann' AND star = 1").fetchone()[0] == 300


def test_a_first_sync_writes_this_members_rows_in_key_order(make_lib, tmp_path):
    """The records this library's first export wrote go into group_state in key order (as its
    snapshot has them), not in the order of its papers: each later export's max_seq() walks
    this member's rows, near each other that way."""
    lib = make_lib("own-order")
    ids = lib.paper_ids()
    lib.set_starred(ids[: len(ids) // 2], True)
    lib.set_skipped(ids[len(ids) // 2:], True)
    folder = tmp_path / "group"
    folder.mkdir()
    group = Group(lib)
    group.join(folder, "me")
    assert group.sync().written == len(ids) > 20
    by_rowid = [r[0] for r in lib.read_connection().execute(
        "SELECT pkey FROM group_state WHERE member = 'me' ORDER BY rowid")]
    assert len(by_rowid) == len(ids) and by_rowid == sorted(by_rowid)
