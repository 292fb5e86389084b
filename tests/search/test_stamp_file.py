"""The index's stamp file follows the derived-file rules (issue 30): unique temporary names, never
read or written through a FIFO, a device node or a link, whole files when two write at once."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from reader.errors import NotRegularFile
from reader.search import SearchIndex
from reader.search.stamp import STAMP_FILE, read_meta, write_meta

from .helpers import DOCS


def _finishes(fn) -> bool:
    """Runs fn in a thread; False if it is still blocked once the thread is given up on (a FIFO
    opened for a blocking read or write never returns, whatever the load: the wait is generous)."""
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            fn()
        except BaseException as exc:
            errors.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    finished = done.wait(60)
    if errors:
        raise errors[0]
    return finished


def _unblock(fifo: Path) -> None:
    """Open the FIFO both ways, so a thread blocked on it (old code) can finish and exit."""
    try:
        fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass


def test_a_fifo_at_the_stamp_is_never_read_the_index_is_rebuilt(tmp_path: Path) -> None:
    d = tmp_path / "ix"
    index = SearchIndex.open(d)
    index.rebuild(DOCS, stamp=5)
    index.close()
    (d / STAMP_FILE).unlink()
    os.mkfifo(d / STAMP_FILE)
    opened: list[SearchIndex] = []
    try:
        assert _finishes(lambda: opened.append(SearchIndex.open(d))), "reading a FIFO stamp blocked"
    finally:
        _unblock(d / STAMP_FILE)
    again = opened[0]
    try:
        assert again.was_reset and again.stamp == -1
        assert (d / STAMP_FILE).is_file() and not (d / STAMP_FILE).is_symlink()
    finally:
        again.close()


def test_a_fifo_at_the_old_fixed_temporary_name_does_not_block_a_write(tmp_path: Path) -> None:
    d = tmp_path / "ix"
    d.mkdir()
    os.mkfifo(d / "reader-stamp.tmp")  # the name every write used to share
    try:
        assert _finishes(lambda: write_meta(d, 4)), "the stamp write blocked on a FIFO"
    finally:
        _unblock(d / "reader-stamp.tmp")
    assert read_meta(d) == {"stamp": 4, "schema": json.loads((d / STAMP_FILE).read_text())["schema"]}


@pytest.mark.parametrize("kind", ["fifo", "symlink", "folder"])
def test_the_stamp_is_never_written_over_anything_but_a_regular_file(tmp_path: Path, kind: str) -> None:
    d = tmp_path / "ix"
    d.mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("the user's", "utf-8")
    target = d / STAMP_FILE
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        target.symlink_to(elsewhere)
    else:
        target.mkdir()
    with pytest.raises(NotRegularFile) as info:
        write_meta(d, 3)
    assert str(target) in str(info.value) and "\n" not in str(info.value)
    assert read_meta(d) is None  # nor read: the index is rebuilt instead
    assert elsewhere.read_text("utf-8") == "the user's"
    assert sorted(p.name for p in d.iterdir()) == [STAMP_FILE]  # no temporary file left


def test_two_writers_at_once_each_leave_a_whole_stamp(tmp_path: Path) -> None:
    d = tmp_path / "ix"
    d.mkdir()
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def writer(base: int) -> None:
        start.wait()
        try:
            for n in range(300):
                write_meta(d, base + n)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(base,)) for base in (0, 10_000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []  # with one shared temporary name, one writer's rename found it gone
    meta = read_meta(d)
    assert meta is not None and meta["stamp"] in (299, 10_299)
    assert sorted(p.name for p in d.iterdir()) == [STAMP_FILE]
