"""A property test of the vault: random interleavings of edits in Reader and in the files (notes,
tags, flags, the user's own text, renames, deletions) with syncs that crash at a random write
point or meet a save made while they write. After a final sync no edit from either side is lost,
both sides agree, no paper has two files, and one more sync has nothing to do.

Papers also leave the vault's query (their `prop` tag removed in Reader) and come back. A paper out
of the query keeps its file only if the file was edited in the vault (or a crash left it unsure); a
file holding only what Reader wrote goes to .trash, and the user's own lines are never moved there.

Edits carry unique tokens so "not lost" is checkable: a note edit appends a line (a user resolving a
conflict removes only the ⚠️ lines), a tag edit adds a new tag or removes one both sides had at
the last completed sync. A crash is a BaseException raised at the n-th write point (before or after
a temporary file is written, around a move to .trash, before the commit) and at every later one,
as a kill -9 would stop all writer threads at once; test_fault.py kills real processes.
"""

from __future__ import annotations

import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from reader.library import Library
from reader.vault import files as vault_files
from reader.vault import snapshot as vault_snapshot
from reader.vault import sync
from reader.vault.document import parse

CASES = int(os.environ.get("READER_VAULT_PROPERTY_CASES", "500"))
PAPERS = 3
STEPS = (3, 8)
QUERY = "tag:prop"
_TAGS_LINE = re.compile(r"^tags:.*(?:\r?\n  - .*)*$", re.M)


class Crash(BaseException):
    """kill -9 at a write point (BaseException: nothing in the sync may catch it)."""


class WritePoints:
    """Counts the sync's write points; crashes at one (and every later one), or saves a file there."""

    def __init__(self) -> None:
        self.n = 0
        self.crash_at: int | None = None
        self.save_at: int | None = None
        self.on_save = None
        self.dead = False
        self.crashed = 0

    def arm(self, crash_at: int | None, save_at: int | None, on_save) -> None:
        self.n, self.crash_at, self.save_at, self.on_save, self.dead = 0, crash_at, save_at, on_save, False

    def tick(self) -> None:
        self.n += 1
        if self.dead or self.n == self.crash_at:
            if not self.dead:
                self.crashed += 1
            self.dead = True
            raise Crash()
        if self.n == self.save_at and self.on_save is not None:
            save, self.on_save = self.on_save, None
            save()


@pytest.fixture(scope="module")
def points():
    return WritePoints()


@pytest.fixture(scope="module")
def plib(tmp_path_factory, points):
    mp = pytest.MonkeyPatch()
    lib = Library.open(tmp_path_factory.mktemp("prop") / "lib")
    mp.setattr(lib, "index_changed", lambda: None)  # membership is SQL-only: no index work
    mp.setattr(lib.upkeep, "after_commit", lambda: None)
    real_tmp, real_trash, real_tx = vault_files._write_tmp, vault_files.to_trash, vault_snapshot.write_transaction

    def write_tmp(*args, **kwargs):
        points.tick()
        out = real_tmp(*args, **kwargs)
        points.tick()  # a crash here leaves the temporary file behind
        return out

    def to_trash(*args, **kwargs):
        points.tick()
        return real_trash(*args, **kwargs)

    def write_transaction(library):
        points.tick()
        return real_tx(library)

    # One writer thread: the write points are then counted in one order (a case replays the same
    # way), and a simulated save, a read-modify-write, cannot straddle another writer thread's
    # rename of that same file. That would be an editor writing back a copy it read before Reader's
    # write, which no sync can tell from the user undoing Reader's change.
    mp.setattr(sys.modules["reader.vault.sync"], "_WRITERS", 1)
    mp.setattr(vault_files, "_write_tmp", write_tmp)
    mp.setattr(vault_files, "to_trash", to_trash)
    mp.setattr(vault_snapshot, "write_transaction", write_transaction)
    yield lib
    mp.undo()
    lib.close()


@dataclass
class Model:
    """What the final sync must show for one paper."""

    tokens: set[str] = field(default_factory=set)  # note lines
    tags: set[str] = field(default_factory=set)
    base_tags: set[str] = field(default_factory=set)  # on both sides at the last completed sync
    flags: dict[str, dict[str, bool]] = field(default_factory=lambda: {"r": {}, "v": {}})
    user: set[str] = field(default_factory=set)  # the user's own lines outside Reader's parts
    deleted: bool = False
    out: bool = False  # out of the vault's query (its `prop` tag removed in Reader)
    touched: bool = False  # its file was edited in the vault since Reader made it


class Case:
    def __init__(self, lib: Library, vault: Path, pids: list[str], rng: random.Random, points: WritePoints):
        self.lib, self.vault, self.rng, self.points = lib, vault, rng, points
        self.models = {pid: Model() for pid in pids}
        self.k = 0
        self.log: list[str] = []
        self.crashed = False  # a sync of this case was killed (its files' hashes are then unsure)

    def token(self, kind: str) -> str:
        self.k += 1
        return f"{kind}{self.k}x"

    # ---- the files
    def file_of(self, pid: str) -> Path | None:
        for path in self.vault.rglob("*.md"):
            if ".trash" not in path.relative_to(self.vault).parts and f"id: {pid}" in path.read_text("utf-8"):
                return path
        return None

    def _save(self, path: Path, text: str) -> None:
        path.write_text(text, encoding="utf-8")
        later = time.time() + self.rng.choice([-5, 5])  # either side may be the newer
        os.utime(path, (later, later))

    @staticmethod
    def file_parts(path: Path):
        vf = parse(path.read_text(encoding="utf-8"))
        assert vf is not None
        tags = {str(t) for t in (vf.fm.values.get("tags") or [])}
        return vf, tags

    # ---- edits
    def live(self) -> list[str]:
        return [pid for pid, m in self.models.items() if not m.deleted]

    def reader_edit(self, pid: str) -> None:
        lib, m, rng = self.lib, self.models[pid], self.rng
        what = rng.choice(["note", "note", "tag", "untag", "star", "read", "leave"])
        self.log.append(f"R {what} {pid[:4]}")
        if what == "leave":  # out of the vault's query, or back in
            (lib.add_tags if m.out else lib.remove_tags)([pid], ["prop"])
            m.out = not m.out
        elif what == "note":
            t = self.token("n")
            lib.set_note(pid, (lib.paper(pid).note + f"\n\n{t}").strip())
            m.tokens.add(t)
        elif what == "tag":
            t = self.token("t")
            lib.add_tags([pid], [t])
            m.tags.add(t)
        elif what == "untag":
            have = sorted(m.base_tags & set(lib.paper(pid).tags))
            if have:
                t = rng.choice(have)
                lib.remove_tags([pid], [t])
                m.tags.discard(t)
        else:
            value = not getattr(lib.paper(pid), "starred" if what == "star" else "read")
            (lib.set_starred if what == "star" else lib.set_read)([pid], value)
            m.flags["r"][what] = value

    def vault_edit(self, pid: str, kinds: tuple[str, ...] | None = None) -> None:
        m, rng = self.models[pid], self.rng
        path = self.file_of(pid)
        if path is None:
            return
        what = rng.choice(kinds or ("note", "note", "resolve", "tag", "untag", "star", "read", "user", "rename",
                                    "delete"))
        self.log.append(f"V {what} {pid[:4]}")
        m.touched = what != "delete"  # a deleted file's successor is Reader's own again
        vf, tags = self.file_parts(path)
        text = vf.text
        if what in ("note", "resolve"):
            start, end = vf.blocks["note"]
            note = text[start:end].strip()
            if what == "note":
                t = self.token("n")
                note = f"{note}\n\n{t}".strip()
                m.tokens.add(t)
            else:
                note = "\n".join(line for line in note.split("\n") if not line.startswith("⚠"))
            self._save(path, text[:start] + f"\n{note}\n\n" + text[end:])
        elif what in ("tag", "untag"):
            if what == "tag":
                t = self.token("t")
                tags.add(t)
                m.tags.add(t)
            else:
                have = sorted(m.base_tags & tags)
                if not have:
                    return
                tags.discard(rng.choice(have))
                m.tags &= tags | (m.tags - m.base_tags)
            self._save(path, _TAGS_LINE.sub(f"tags: [{', '.join(sorted(tags))}]", text, count=1))
        elif what in ("star", "read"):
            key = "starred" if what == "star" else "read"
            value = not bool(vf.fm.values.get(key))
            self._save(path, re.sub(rf"^{key}:.*$", f"{key}: {'true' if value else 'false'}", text, count=1,
                                    flags=re.M))
            m.flags["v"][what] = value
        elif what == "user":
            t = self.token("u")
            self._save(path, text + f"\n{t}\n")
            m.user.add(t)
        elif what == "rename":
            folder = self.vault / rng.choice(["", "sub", "sub/deeper"])
            folder.mkdir(parents=True, exist_ok=True)
            path.rename(folder / f"renamed {self.token('f')}.md")
        else:  # the user deletes the file: its unsynced edits go with it, Reader's state stays
            path.unlink()
            p = self.lib.paper(pid)
            m.tokens = {t for t in m.tokens if t in p.note}
            m.tags = set(p.tags) - {"prop"}
            m.user = set()
            m.flags["v"] = {}

    def delete_paper(self, pid: str) -> None:
        self.log.append(f"R delete {pid[:4]}")
        self.lib.delete_papers([pid])
        self.models[pid].deleted = True

    # ---- syncs
    def after_completed_sync(self) -> None:
        for pid in self.live():
            m, path = self.models[pid], self.file_of(pid)
            if path is None:
                continue
            vf, ftags = self.file_parts(path)
            p = self.lib.paper(pid)
            m.base_tags = (set(p.tags) & ftags) - {"prop"}
            for flag, key in (("star", "starred"), ("read", "read")):
                if getattr(p, key) == bool(vf.fm.values.get(key)):
                    m.flags["r"].pop(flag, None)
                    m.flags["v"].pop(flag, None)

    def run_sync(self, crash: bool, save: bool) -> None:
        crash_at = self.rng.randint(1, 12) if crash else None
        save_at = self.rng.randint(1, 6) if save and self.live() else None
        target = self.rng.choice(self.live()) if save_at else ""
        self.log.append(f"sync crash@{crash_at} save@{save_at}")
        self.points.arm(crash_at, save_at, lambda: self.vault_edit(target, ("note", "user", "tag")))
        try:
            sync(self.lib, self.vault, query=QUERY)
        except Crash:
            self.crashed = True
            return
        finally:
            self.points.arm(None, None, None)
        self.after_completed_sync()


def _setup(lib: Library, pids: list[str]) -> None:
    for pid in pids:
        p = lib.paper(pid)
        lib.set_note(pid, "")
        if p.tags:
            lib.remove_tags([pid], p.tags)
        lib.set_starred([pid], False)
        lib.set_read([pid], False)
    lib.add_tags(pids, ["prop"])


def _check(case: Case) -> None:
    lib, vault = case.lib, case.vault
    seen: dict[str, Path] = {}
    for path in vault.rglob("*.md"):
        if ".trash" in path.relative_to(vault).parts:
            continue
        vf = parse(path.read_text(encoding="utf-8"))
        if vf is not None:
            assert vf.id not in seen, f"two files for {vf.id}: {seen[vf.id]}, {path}"
            seen[vf.id] = path
    assert not [p for p in vault.rglob("*") if p.name.endswith(vault_files.TMP_SUFFIX)]
    for pid, m in case.models.items():
        if m.deleted:
            assert pid not in seen and lib.paper(pid) is None
            continue
        path = seen.get(pid)
        p = lib.paper(pid)
        assert p is not None
        if m.out and path is None:  # its file went to .trash (or was deleted in the vault)
            assert not m.user, "the user's own text was moved to .trash"
            missing = sorted(t for t in m.tokens if t not in p.note)
            assert not missing, f"note lines lost: {missing}"
            assert set(p.tags) == m.tags
            continue
        if m.out:
            assert m.touched or case.crashed, f"the file of {pid} left the query untouched but stayed"
        assert path is not None, f"no file for {pid}"
        vf, ftags = case.file_parts(path)
        note = vf.block("note").strip()
        assert note == p.note.strip()
        missing = sorted(t for t in m.tokens if t not in note)
        assert not missing, f"note lines lost: {missing}"
        assert set(p.tags) - {"prop"} == m.tags == ftags - {"prop"}
        for flag, key in (("star", "starred"), ("read", "read")):
            value = getattr(p, key)
            assert value == bool(vf.fm.values.get(key))
            sides = {side: m.flags[side][flag] for side in "rv" if flag in m.flags[side]}
            if len(sides) == 1:
                assert value == next(iter(sides.values())), f"{key} set on one side only was lost"
        text = path.read_text(encoding="utf-8")
        assert all(t in text for t in m.user), "the user's own text was lost"


def _one_case(lib: Library, root: Path, n: int, pool: list[str], points: WritePoints) -> Case:
    rng = random.Random(n + int(os.environ.get("READER_VAULT_PROPERTY_SEED", "0")))
    pids = rng.sample(pool, PAPERS)
    vault = root / f"v{n}"
    vault.mkdir()
    snaps = lib.snapshot(pids)
    _setup(lib, pids)
    case = Case(lib, vault, pids, rng, points)
    case.run_sync(crash=False, save=False)
    for _ in range(rng.randint(*STEPS)):
        r = rng.random()
        live = case.live()
        if not live:
            break
        pid = rng.choice(live)
        if r < 0.3:
            case.reader_edit(pid)
        elif r < 0.62:
            case.vault_edit(pid)
        elif r < 0.64:
            case.delete_paper(pid)
        else:
            case.run_sync(crash=rng.random() < 0.6, save=rng.random() < 0.25)
    first = sync(lib, vault, query=QUERY)
    assert first.damaged == [], first.damaged
    second = sync(lib, vault, query=QUERY)
    assert second.written == [] and second.taken_from_vault == [] and second.trashed == [], case.log
    try:
        _check(case)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; steps: {case.log}") from exc
    lib.restore(snaps)  # the papers as they were, for the next cases
    return case


def test_random_interleavings_lose_no_edit(plib, points, tmp_path):
    pool = plib.paper_ids(sort="added", descending=False)
    crashed_before = points.crashed
    t0 = time.perf_counter()
    for n in range(int(os.environ.get("READER_VAULT_PROPERTY_FIRST", "0")), CASES):
        try:
            _one_case(plib, tmp_path, n, pool, points)
        except AssertionError as exc:
            raise AssertionError(f"case {n}: {exc}") from exc
    seconds = time.perf_counter() - t0
    crashes = points.crashed - crashed_before
    print(f"\nvault property: {CASES} interleavings, {crashes} crashes, {seconds:.1f} s")
    assert CASES < 500 or crashes >= CASES // 4  # crashes really happened, at many points
