"""kill -9 a `reader vault sync` while it writes files; the next sync must lose no edit and make no duplicate."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import frontmatter
import pytest

from reader.library import Library
from reader.vault import sync
from reader.vault.document import parse
from reader.vault.files import DELAY_ENV, TMP_SUFFIX

RUNS = 12
DELAY = 0.03  # seconds the engine sleeps after each file it writes (test-only hook)


def _by_id(vault: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in vault.rglob("*.md"):
        if ".trash" in path.relative_to(vault).parts:
            continue
        pid = frontmatter.load(path).get("id")
        assert pid not in out, f"two files for {pid}"
        out[str(pid)] = path
    return out


def _note(path: Path) -> str:
    vf = parse(path.read_text(encoding="utf-8"))
    assert vf is not None
    return vf.block("note").strip()


def _edit_note(path: Path, note: str) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index("<!-- reader:note -->\n") + len("<!-- reader:note -->\n")
    end = text.index("<!-- /reader:note -->")
    path.write_text(text[:start] + f"\n{note}\n\n" + text[end:], encoding="utf-8")


def _edit_tags(path: Path, tags: list[str]) -> None:
    text = path.read_text(encoding="utf-8")
    start = text.index("tags:")
    end = text.index("starred:")
    path.write_text(text[:start] + f"tags: [{', '.join(tags)}]\n" + text[end:], encoding="utf-8")


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A library with 30 touched papers and a vault synced once."""
    root = tmp_path_factory.mktemp("fault-template")
    lib = Library.open(root / "lib")
    ids = lib.paper_ids(sort="added", descending=False)
    lib.set_starred(ids[:30], True)
    for pid in ids[:30]:
        lib.set_note(pid, f"base note {pid}")
    (root / "vault").mkdir()
    sync(lib, root / "vault")
    _edit_reader(lib, ids)  # Reader's edits once here: each run only copies them
    lib.close()
    return root, ids


def _edit_reader(lib: Library, ids: list[str]) -> None:
    for pid in ids[6:14]:
        lib.set_note(pid, f"reader {'note' if pid in ids[6:10] else 'side'} {pid}")
    lib.add_tags(ids[18:30], ["from-reader"])
    lib.set_starred(ids[30:36], True)  # six new files


def _edit_vault(vault: Path, ids: list[str]) -> None:
    files = _by_id(vault)
    for pid in ids[0:6]:
        _edit_note(files[pid], f"vault note {pid}")
    for pid in ids[10:14]:  # Reader edited these notes too
        _edit_note(files[pid], f"vault side {pid}")
    for pid in ids[14:18]:
        _edit_tags(files[pid], ["from-vault"])


def _check(lib: Library, vault: Path, ids: list[str]) -> None:
    files = _by_id(vault)
    assert sorted(files) == sorted(ids[:36])
    assert not [p for p in vault.rglob("*") if p.name.endswith(TMP_SUFFIX)]
    for pid in ids[0:6]:
        assert lib.paper(pid).note == f"vault note {pid}" == _note(files[pid])
    for pid in ids[6:10]:
        assert _note(files[pid]) == f"reader note {pid}" == lib.paper(pid).note
    for pid in ids[10:14]:
        note = lib.paper(pid).note
        assert f"reader side {pid}" in note and f"vault side {pid}" in note
        assert note.count("Sync conflict") == 1 and _note(files[pid]) == note
    for pid in ids[14:18]:
        assert lib.paper(pid).tags == ["from-vault"] == frontmatter.load(files[pid])["tags"]
    for pid in ids[18:30]:
        assert lib.paper(pid).tags == ["from-reader"] == frontmatter.load(files[pid])["tags"]
    for pid in ids[30:36]:
        assert frontmatter.load(files[pid])["starred"] is True


def test_kill_9_during_sync_then_rerun_loses_nothing(template, tmp_path):
    root, ids = template
    rng = random.Random(7)
    killed_mid_sync = 0
    for run in range(2 * RUNS):  # a slow machine may let a sync finish before its kill
        if run >= RUNS and killed_mid_sync >= 10:
            break
        work = tmp_path / f"run{run}"
        shutil.copytree(root, work)
        vault = work / "vault"
        _edit_vault(vault, ids)
        env = {**os.environ, DELAY_ENV: str(DELAY)}
        before = {p: p.stat().st_mtime_ns for p in vault.glob("*.md")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "reader", "--data-dir", str(work / "lib"), "vault", "sync", str(vault)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:  # wait for the first write
            now = {p: p.stat().st_mtime_ns for p in vault.glob("*.md")}
            if now != before:
                break
            time.sleep(0.005)
        time.sleep(rng.uniform(0, DELAY * 30))
        if proc.poll() is None:
            killed_mid_sync += 1
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        lib = Library.open(work / "lib")
        try:
            report = sync(lib, vault)
            assert report.damaged == []
            _check(lib, vault, ids)
            assert sync(lib, vault).written == []  # settled
        finally:
            lib.close()
    assert killed_mid_sync >= 10
