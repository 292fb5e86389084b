"""A property test of the reading group (issue 29): 3-5 members, each with its own copy of the
shared folder (as Syncthing or a cloud folder keeps one per machine), make random decisions and
take them back (star, skip and un-skip, read, group tags) on overlapping papers, sync in random
orders, crash at a random step of a sync (a BaseException at a named point: nothing in the sync
may catch it, as with kill -9; test_cli_group.py kills real processes), and have their folders
copied to each other, often only partly (a file cut at a random byte, as a sync tool still
copying leaves it). After everyone syncs, gets every folder whole and syncs again, every member's
merged view is the same and equals the model's, and no member lost a decision of its own."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.group import Group
from reader.group.keys import paper_keys
from reader.library import Library
from reader.store import group as gs

MEMBERS = ("ada", "bob", "cy", "dee", "eve")
PAPERS = 3
STEPS = [
    "before-read", "after-read", "append-half", "atomic-half", "after-snapshot", "after-new-log", "after-export",
    "before-resolve", "before-commit",
]
CASES = int(os.environ.get("READER_GROUP_PROPERTY_CASES", "50"))


class Crash(BaseException):
    """kill -9 at a step of a sync."""


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    root = tmp_path_factory.mktemp("group-prop")
    first = Library.open(root / MEMBERS[0])
    first.close()
    for name in MEMBERS[1:]:
        shutil.copytree(root / MEMBERS[0], root / name)
    out = []
    mp = pytest.MonkeyPatch()
    for i, name in enumerate(MEMBERS):
        lib = Library.open(root / name)
        mp.setattr(lib.upkeep, "after_commit", lambda: None)  # group state is SQL only: no index work
        with lib.write_transaction() as (conn, _seq):
            conn.execute("UPDATE meta SET value = ? WHERE key = 'library_id'", [f"{i:02d}" + "ab" * 15])
        out.append(lib)
    yield out
    mp.undo()
    for lib in out:
        lib.close()


def _reset(lib: Library) -> None:
    with lib.write_transaction() as (conn, _seq):
        gs.leave(conn)
        conn.execute("UPDATE papers SET starred = 0, skipped = 0, read = 0")
        conn.execute("DELETE FROM paper_tags")


decision = st.tuples(st.just("decide"), st.integers(0, 4), st.integers(0, PAPERS - 1),
                     st.sampled_from(["star", "unstar", "skip", "unskip", "read", "unread", "tag", "untag"]))
sync = st.tuples(st.just("sync"), st.integers(0, 4), st.one_of(st.none(), st.sampled_from(STEPS)), st.just(0))
copy = st.tuples(st.just("copy"), st.integers(0, 4), st.integers(0, 4), st.floats(0.0, 1.0))
program = st.tuples(st.integers(3, 5), st.lists(st.one_of(decision, decision, sync, sync, copy), min_size=15,
                                                 max_size=50))


def _copy(src_root: Path, dst_root: Path, member: str, fraction: float) -> None:
    """The sync tool: `member`'s folder from its own machine to another's, deletions included;
    a fraction under 1 leaves each changed file cut at that share of its bytes."""
    src, dst = src_root / member, dst_root / member
    if not src.is_dir():
        return
    dst.mkdir(exist_ok=True)
    names = {p.name for p in src.iterdir() if not p.name.startswith(".")}
    for p in dst.iterdir():
        if p.name not in names:
            p.unlink()
    for name in sorted(names):
        data = (src / name).read_bytes()
        if (dst / name).exists() and (dst / name).read_bytes() == data:
            continue
        (dst / name).write_bytes(data[:int(len(data) * fraction)] if fraction < 1 else data)


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.function_scoped_fixture])
@given(program)
def test_members_converge_whatever_the_order_of_syncs_copies_and_crashes(libs, prog):
    count, steps = prog
    members = MEMBERS[:count]
    libraries = libs[:count]
    tmp = Path(tempfile.mkdtemp(prefix="group-prop-"))
    try:
        crash_at: list[str | None] = [None]

        def checkpoint(step: str) -> None:
            if step == crash_at[0]:
                raise Crash(step)

        groups = []
        for name, lib in zip(members, libraries, strict=True):
            _reset(lib)
            (tmp / name).mkdir()
            g = Group(lib, checkpoint=checkpoint)
            g.join(tmp / name, name, tags="group")
            groups.append(g)
        ids = libraries[0].paper_ids(sort="title", descending=False)[:PAPERS]
        rows = {r["id"]: r for r in gs.key_rows_of(libraries[0].read_connection(), ids)}
        pkey = [paper_keys(rows[p]["doi"], rows[p]["arxiv"], rows[p]["links"], rows[p]["title_key"],
                           rows[p]["year"], rows[p]["abstract_key"])[0] for p in ids]
        model = [[{"star": 0, "skip": 0, "read": 0, "tags": set()} for _ in ids] for _ in members]

        for step in steps:
            if step[0] == "decide":
                _, m, p, what = step
                m %= count
                lib, state = libraries[m], model[m][p]
                pid = ids[p]
                if what in ("star", "unstar"):
                    lib.set_starred([pid], what == "star")
                    state["star"] = int(what == "star")
                elif what in ("skip", "unskip"):
                    lib.set_skipped([pid], what == "skip")
                    state["skip"] = int(what == "skip")
                    state["read"] = 1 if what == "skip" else state["read"]
                elif what in ("read", "unread"):
                    lib.set_read([pid], what == "read")
                    state["read"] = int(what == "read")
                elif what == "tag":
                    lib.add_tags([pid], [f"group/t{p % 2}"])
                    state["tags"].add(f"group/t{p % 2}")
                elif state["tags"]:
                    tag = sorted(state["tags"])[0]
                    lib.remove_tags([pid], [tag])
                    state["tags"].discard(tag)
            elif step[0] == "sync":
                _, m, at, _ = step
                crash_at[0] = at
                try:
                    groups[m % count].sync()
                except Crash:
                    pass
                finally:
                    crash_at[0] = None
            else:
                _, a, b, fraction = step
                a, b = a % count, b % count
                if a != b:
                    _copy(tmp / members[a], tmp / members[b], members[a], fraction)

        def everyone_syncs() -> None:
            for g in groups:
                report = g.sync()
                assert not [p for p in report.problems if "at byte" in p or "header" in p], report.problems

        def copy_all() -> None:
            for a in members:
                for b in members:
                    if a != b:
                        _copy(tmp / a, tmp / b, a, 1.0)

        everyone_syncs()
        copy_all()
        everyone_syncs()

        expected = {}
        for m, name in enumerate(members):
            for p in range(len(ids)):
                s = model[m][p]
                if s["star"] or s["skip"] or s["read"] or s["tags"]:
                    expected[(name, pkey[p])] = (s["star"], s["skip"], s["read"], sorted(s["tags"]))
        views = []
        for g in groups:
            view = {}
            for row in gs.state(g.lib.read_connection()):
                values = (row["star"], row["skip"], row["read"], sorted(__import__("json").loads(row["tags"])))
                if any(values):
                    view[(row["member"], row["pkey"])] = values
            views.append(view)
        for view in views:
            assert view == expected
        # No member's own decision lost: the library keeps what its member did.
        for m, lib in enumerate(libraries):
            got = lib.rows(ids)
            for p, pid in enumerate(ids):
                r, s = got[pid], model[m][p]
                assert (int(r.starred), int(r.skipped), int(r.read), set(r.tags)) == \
                    (s["star"], s["skip"], s["read"], s["tags"])
        # Nothing left to do: one more sync reads and writes nothing.
        for g in groups:
            assert not g.sync().changed
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
