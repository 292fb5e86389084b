"""`reader doctor` end to end: a library with damaged pages is detected, and every undamaged paper,
note and tag is rescued into a new library (the rows lost are exactly those on the damaged pages,
found by walking the B-tree in the file's bytes before damaging it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from reader.library import Library
from tests.store.damaging import make_library, overwrite_page, table_leaves


def run(data_dir, *args):
    env = {**os.environ, "READER_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """A library whose papers lose two leaf pages and whose notes lose one, with a daily backup."""
    root = tmp_path_factory.mktemp("doctor") / "lib"
    info = make_library(root)
    with Library.open(root, seed_if_empty=False):  # second open: the daily backup
        pass
    db = root / "library.sqlite3"
    paper_leaves = table_leaves(db, "papers")
    note_leaves = table_leaves(db, "notes")
    hit = [paper_leaves[len(paper_leaves) // 3], paper_leaves[2 * len(paper_leaves) // 3],
           note_leaves[len(note_leaves) // 2]]
    for n, (pageno, _) in enumerate(hit):
        overwrite_page(db, pageno, seed=n)
    by_rowid = {r: pid for pid, r in info["rowids"].items()}
    note_by_rowid = {r: pid for pid, r in info["note_rowids"].items()}
    lost_papers = {by_rowid[r] for r in hit[0][1] + hit[1][1]}
    lost_notes = {note_by_rowid[r] for r in hit[2][1]}
    assert lost_papers and lost_notes
    return root, info, lost_papers, lost_notes


def test_damage_is_one_clear_line_not_an_internal_error(damaged):
    root = damaged[0]
    proc = run(root, "list")
    assert proc.returncode == 1
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line
    assert str(root / "library.sqlite3") in line and "is damaged" in line
    assert "backups" in line and "library-daily-" in line  # names the newest backup
    assert "reader --data-dir" in line and "doctor --recover" in line


def test_doctor_reports_damage(damaged):
    root = damaged[0]
    before = (root / "library.sqlite3").read_bytes()
    proc = run(root, "doctor")
    assert proc.returncode == 1, proc.stderr
    assert "DAMAGED" in proc.stdout and "newest backup" in proc.stdout
    assert (root / "library.sqlite3").read_bytes() == before


def test_doctor_recovers_every_undamaged_paper_note_and_tag(damaged, tmp_path):
    root, info, lost_papers, lost_notes = damaged
    before = (root / "library.sqlite3").read_bytes()
    dest = tmp_path / "rescued"
    proc = run(root, "doctor", "--recover", str(dest))
    assert proc.returncode == 0, proc.stderr
    assert f"{len(info['papers']) - len(lost_papers)} recovered, {len(lost_papers)} lost" in proc.stdout
    assert "the damaged file is untouched" in proc.stdout and "newest backup" in proc.stdout
    for pid in lost_papers:
        assert pid in proc.stdout  # the lost ids are named
    assert (root / "library.sqlite3").read_bytes() == before

    expected = {pid: p for pid, p in info["papers"].items() if pid not in lost_papers}
    with Library.open(dest, seed_if_empty=False) as lib:
        got = {p.id: p for p in lib.papers(lib.paper_ids())}
        assert set(got) == set(expected)
        for pid, p in expected.items():
            g = got[pid]
            assert (g.title, g.abstract, g.year, g.starred, g.read) == (
                p["title"], p["abstract"], p["year"], p["starred"], p["read"])
            assert sorted(g.tags) == sorted(p["tags"])
            assert [h.quote for h in g.highlights] == [h["quote"] for h in p["highlights"]]
            assert g.note == ("" if pid in lost_notes else p["note"])
        # the rescued library works: search (index rebuilt from it) and writes
        lib.sync_index()
        some = next(iter(expected))
        lib.set_starred([some], True)
        assert lib.search(expected[some]["title"]).hits
    orphans = json.loads((dest / "recovery-orphans.json").read_text(encoding="utf-8"))
    orphan_papers = {r["paper_id"] for rows in orphans.values() for r in rows}
    assert orphan_papers <= lost_papers


def test_recover_refuses_a_non_empty_destination(damaged, tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "f").write_text("keep", encoding="utf-8")
    proc = run(damaged[0], "doctor", "--recover", str(tmp_path / "x"))
    assert proc.returncode == 1 and "not empty" in proc.stderr
    assert (tmp_path / "x" / "f").read_text(encoding="utf-8") == "keep"


def test_doctor_on_a_sound_library(tmp_path):
    root = tmp_path / "lib"
    make_library(root, n=30)
    proc = run(root, "doctor")
    assert proc.returncode == 0 and "sound" in proc.stdout


def test_damaged_header_and_empty_file(tmp_path):
    root = tmp_path / "lib"
    make_library(root, n=30)
    with Library.open(root, seed_if_empty=False):
        pass  # a daily backup exists now
    db = root / "library.sqlite3"
    pristine = db.read_bytes()
    db.write_bytes(b"\0" * 100 + pristine[100:])
    proc = run(root, "stats")
    assert proc.returncode == 1 and "header is damaged" in proc.stderr and "internal error" not in proc.stderr
    proc = run(root, "doctor", "--recover")
    assert proc.returncode == 1 and "Nothing can be read" in proc.stdout and "library-daily-" in proc.stdout
    db.write_bytes(b"")
    proc = run(root, "list")
    assert proc.returncode == 1 and "empty (0 bytes)" in proc.stderr
    assert db.stat().st_size == 0  # not re-created, not re-seeded


def test_doctor_restore_puts_the_newest_compressed_backup_back(tmp_path):
    root = tmp_path / "lib"
    make_library(root, n=30)
    with Library.open(root, seed_if_empty=False):
        pass  # a daily backup exists now
    [backup] = list((root / "backups").glob("library-daily-*"))
    assert backup.name.endswith(".sqlite3.bz2")
    db = root / "library.sqlite3"
    db.write_bytes(b"")
    proc = run(root, "doctor", "--recover")
    assert "reader doctor --restore" in proc.stdout
    proc = run(root, "doctor", "--restore")
    assert proc.returncode == 0 and f"restored {backup}" in proc.stdout, proc.stderr
    assert list(root.glob("library.sqlite3.replaced-*"))
    proc = run(root, "stats")
    assert proc.returncode == 0 and "30" in proc.stdout
    proc = run(root, "doctor", "--restore", str(root / "nothing.gz"))
    assert proc.returncode == 1 and "no such backup" in proc.stderr
