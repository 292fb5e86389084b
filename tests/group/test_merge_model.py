"""The merged state against the plain algorithm: every line of every member's current files
through parse_record, the highest sequence number per field kept, in file order (snapshot, then log), and each folded record met
with the first of its keys a local paper holds. Group.state() and Group.marks() must equal what
that gives, on a random workload mixing the lines Reader writes with lines any JSON writer may
write (other field orders, spaces, escapes, notes, duplicates), bad lines, records older than
what is merged, and keys met nowhere or only by a later key; a first sync and a later one."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from reader.group import Group
from reader.group import folder as fs
from reader.group.format import BadLine, header_line, parse_record, record_line
from reader.group.keys import key_hash, paper_keys
from reader.group.records import Mark
from reader.store import group as gs

MEMBERS = ("ann", "ben", "cat", "dan")
TAGS = ["group/a", "group/b", "other", "é t", 'say "hi"', "back\\slash", "tab\there", "\u2028", "😀", ""]


def _pool(lib) -> list[list[str]]:
    local = [paper_keys(r["doi"], r["arxiv"], r["links"], r["title_key"], r["year"], r["abstract_key"])
             or [key_hash("id:" + r["id"])] for r in gs.key_rows(lib.read_connection(), -1)]
    pool = local[: len(local) // 2]
    pool += [[key_hash(f"nowhere{i}"), *keys] for i, keys in enumerate(local[-8:])]  # met by a later key
    pool += [[key_hash(f"elsewhere{i}")] for i in range(10)]  # met nowhere
    return pool


def _line(rnd: random.Random, keys: list[str], seq: int) -> tuple[bytes, int]:
    fields: dict[str, tuple[int, Any]] = {}
    for name in ("star", "skip", "read"):
        if rnd.random() < 0.5:
            seq += rnd.choice((1, 1, 2))
            fields[name] = (seq - rnd.choice((0, 0, 0, 5)), rnd.randint(0, 1))  # some older than merged
    if rnd.random() < 0.3:
        seq += 1
        fields["tags"] = (seq, rnd.sample(TAGS[:3] if rnd.random() < 0.7 else TAGS, rnd.randint(0, 3)))
    if rnd.random() < 0.05:
        seq += 1
        fields["note"] = (seq, rnd.choice(["", "read this", "méthode", 'a "quote"']))
    fields = {f: (max(1, s), v) for f, (s, v) in fields.items()}
    kind = rnd.random()
    if kind < 0.75:
        return record_line(keys, fields), seq  # as Reader writes it
    obj: dict[str, Any] = {f: [s, v] for f, (s, v) in fields.items()}
    items = list(obj.items())
    rnd.shuffle(items)
    obj = {"k": keys, **dict(items)}
    if kind < 0.85:
        text = json.dumps(obj)  # spaces, \\u escapes, another field order
    elif kind < 0.9:
        text = json.dumps(obj, separators=(",", ":")).replace('"star"', '"star":[1,0],"star"', 1)  # a duplicate
    elif kind < 0.95:
        text = json.dumps({**obj, "later": [1, {"x": 2}]}, separators=(",", ":"))  # a field of a newer version
    else:
        text = rnd.choice(['{"k":["ab"],"star":[1,2]}', "not json", '{"k":[]}', "[1]", '{"k":["zz"],"star":[0,1]}',
                           '{"k":["ab"],"star":[1,1]} {"k":["cd"]}', '{"k":["ab"],"star":[1,1.0]}',
                           '{"k":["a1"],"star":[1,1],"tags":[2,["\\ud800"]]}', '{"k":["ab"],"tags":[3,["a",1]]}'])
    return (text + "\n").encode("utf-8"), seq


def _write(folder: Path, rnd: random.Random, pool: list[list[str]], n: int, *, more: bool) -> None:
    for i, name in enumerate(MEMBERS):
        d = folder / name
        d.mkdir(exist_ok=True)
        seq = int((d / ".seq").read_text()) - 20 if more else 0
        lines = []
        for _ in range(n):
            line, seq = _line(rnd, rnd.choice(pool), seq)
            lines.append(line)
        if more:
            with (d / "log-1.jsonl").open("ab") as f:
                f.write(b"".join(lines))
        else:
            half = n // 2
            (d / "snapshot-1.jsonl").write_bytes(header_line(name, f"lib{i}", 1) + b"".join(lines[:half]))
            (d / "log-1.jsonl").write_bytes(header_line(name, f"lib{i}", 1) + b"".join(lines[half:]))
        (d / ".seq").write_text(str(seq))


def _model(lib, folder: Path) -> tuple[list[tuple[Any, ...]], dict[str, list[Mark]]]:
    """The merged state and marks by the plain algorithm, from the files alone."""
    meet: dict[str, str] = {}
    for r in sorted(gs.key_rows(lib.read_connection(), -1), key=lambda r: r["id"], reverse=True):
        for k in paper_keys(r["doi"], r["arxiv"], r["links"], r["title_key"], r["year"], r["abstract_key"]) \
                or [key_hash("id:" + r["id"])]:
            meet[k] = r["id"]  # the smallest paper id holding the key, written last
    state = []
    for member in sorted(p.name for p in folder.iterdir() if p.is_dir()):
        merged: dict[str, list[Any]] = {}
        for fname, _st in fs.scan(folder / member).current():
            path = folder / member / fname
            for line in path.read_bytes().split(b"\n")[1:]:
                try:
                    keys, fields = parse_record(line)
                except BadLine:
                    continue
                entry = merged.setdefault(keys[0], (keys, {}))
                for name, (seq, value) in fields.items():
                    if name not in entry[1] or seq > entry[1][name][0]:  # a tie keeps the first
                        entry[1][name] = (seq, value)
        for pkey in sorted(merged):
            keys, fields = merged[pkey]
            pid = next((meet[k] for k in keys if k in meet), None)
            values: list[Any] = []
            for name, default in (("star", 0), ("skip", 0), ("read", 0), ("tags", []), ("note", "")):
                seq, value = fields.get(name, (0, default))
                values += [json.dumps(value, ensure_ascii=False, separators=(",", ":")) if name == "tags" else value, seq]
            state.append((member, pkey, pid, *values))
    marks: dict[str, list[Mark]] = {}
    for member, _pkey, pid, star, _a, skip, _b, read, _c, tags, _d, note, _e in state:
        if pid is not None and (star or skip or tags != "[]" or note):
            marks.setdefault(pid, []).append(Mark(member, bool(star), bool(skip), bool(read), json.loads(tags), note))
    return state, marks


def test_the_merged_state_and_marks_equal_the_plain_algorithms(make_lib, tmp_path):
    rnd = random.Random(2924)
    lib = make_lib("me")
    ids = lib.paper_ids()
    lib.set_starred(ids[:5], True)
    lib.add_tags(ids[2:7], ["group/a"])
    lib.set_skipped(ids[7:10], True)
    folder = tmp_path / "shared"
    folder.mkdir()
    pool = _pool(lib)
    _write(folder, rnd, pool, 300, more=False)
    group = Group(lib)
    group.join(folder, "me")
    for more in (False, True, True):
        if more:
            _write(folder, rnd, pool, 80, more=True)  # appended: the later syncs fold into a full table
            lib.set_starred(ids[3:6], False)
        report = group.sync()
        assert report.changed and any("at byte" in p for p in report.problems)
        state, marks = _model(lib, folder)
        assert len(state) > 100 and any(row[2] is None for row in state) and any(row[9] != "[]" for row in state)
        assert group.state() == state
        assert group.marks(lib.paper_ids()) == marks
