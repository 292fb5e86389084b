"""A write to a damaged library fails with the reads' one-line message (reader/store/damage.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from reader.errors import DatabaseDamagedError
from reader.library import Library
from tests.store.damaging import make_library, overwrite_page, table_leaves


@pytest.fixture
def damaged(tmp_path):
    """A library whose papers table lost its middle leaf page; (root, a paper off that page)."""
    root = tmp_path / "lib"
    info = make_library(root, n=200)
    db = root / "library.sqlite3"
    leaves = table_leaves(db, "papers")
    pageno, lost = leaves[len(leaves) // 2]
    overwrite_page(db, pageno)
    by_rowid = {r: pid for pid, r in info["rowids"].items()}
    sound = next(pid for r, pid in by_rowid.items() if r not in lost)
    return root, sound


def _read_everything(lib: Library) -> str:
    with pytest.raises(DatabaseDamagedError) as read:
        lib.papers(lib.paper_ids())
    return str(read.value)


def test_writes_after_a_damaged_read_fail_with_the_same_line(damaged, tmp_path) -> None:
    root, sound = damaged
    with Library.open(root, seed_if_empty=False) as lib:
        lib._index_changes = lambda: None  # type: ignore[method-assign]  # the index is not under test
        message = _read_everything(lib)
        assert "is damaged" in message and "doctor --recover" in message and "\n" not in message
        src = tmp_path / "more.jsonl"
        src.write_text('{"abstract": "A new abstract long enough to be imported here."}\n')
        attempts = [lambda: lib.set_starred([sound], True), lambda: lib.set_note(sound, "n"),
                    lambda: lib.import_files([src], index=False)]
        for write in attempts:
            with pytest.raises(DatabaseDamagedError) as refused:
                out = write()
                if isinstance(out, list) and out and out[0].error:  # import reports per file
                    raise DatabaseDamagedError(out[0].error)
            assert str(refused.value).split(" (")[0] == message.split(" (")[0]
            assert "doctor --recover" in str(refused.value)


def test_cli_star_on_a_damaged_library_fails_in_one_line(damaged) -> None:
    root, sound = damaged
    env = {**os.environ, "READER_DATA_DIR": str(root)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "reader", *args], capture_output=True,
                              text=True, env=env, timeout=300)

    listed = run("list")
    assert listed.returncode == 1 and "is damaged" in listed.stderr
    starred = run("star", sound)
    assert starred.returncode == 1, starred.stdout
    line = starred.stderr.strip()
    assert "\n" not in line and "is damaged" in line and "doctor --recover" in line
    assert "Traceback" not in starred.stderr
