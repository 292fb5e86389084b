"""Exports write atomically under unique temporary names, and never over a FIFO, a device or a folder
(issue 30). FIFOs and device nodes are made in tmp_path, never aimed at the system's own."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reader.cli import run
from reader.errors import ReaderError
from reader.library import Library
from reader.output_files import STALE_SECONDS, write_chunks, write_text


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "lib"
    with Library.open(folder):  # the 56 seed papers
        pass
    return folder


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_two_writes_to_one_path_at_once_each_write_their_own_file(tmp_path: Path) -> None:
    target = tmp_path / "same.bib"
    paused, go = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def slow() -> Iterator[str]:
        yield "A" * 10_000
        paused.set()
        go.wait(10)
        yield "B" * 10_000

    def first() -> None:
        try:
            write_chunks(target, slow())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=first)
    t.start()
    assert paused.wait(10)
    # The second export runs whole while the first is half written: it must not share the
    # first one's temporary file (the fixed `.same.bib.tmp` did: truncated and renamed away).
    write_text(target, "second\n")
    assert target.read_text() == "second\n"
    go.set()
    t.join(10)
    assert not errors
    assert target.read_text() == "A" * 10_000 + "B" * 10_000
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("make", ["fifo", "chardev", "folder", "link to a fifo"])
def test_never_written_over_a_path_that_is_not_a_regular_file(root: Path, tmp_path: Path, make: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.bib"
    if make == "fifo":
        os.mkfifo(target)
    elif make == "chardev":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(target, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # a private /dev/null twin
    elif make == "folder":
        target.mkdir()
    else:
        os.mkfifo(tmp_path / "pipe")
        target.symlink_to(tmp_path / "pipe")
    before = os.lstat(target)
    for kind in ("bibtex", "json", "ris"):
        assert run(["--data-dir", str(root), "export", kind, str(target)]) != 0
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and str(target) in err, err
        assert "not a regular file" in err or "is a folder" in err, err
    after = os.lstat(target)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode) and after.st_ino == before.st_ino
    assert _leftovers(tmp_path) == []


def test_a_symlinked_target_is_written_through_and_stays_a_link(root: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "synced"
    elsewhere.mkdir()
    real = elsewhere / "refs.bib"
    real.write_text("the old file\n")
    real.chmod(0o640)
    link = tmp_path / "refs.bib"
    link.symlink_to(real)
    assert run(["--data-dir", str(root), "export", "bibtex", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    text = real.read_text()
    assert text.count("@") == 56 and "the old file" not in text
    assert stat.S_IMODE(real.stat().st_mode) == 0o640  # the user's permissions stay
    assert _leftovers(tmp_path) == [] and _leftovers(elsewhere) == []


def test_an_export_leaves_no_temporary_file_and_clears_stale_ones(root: Path, tmp_path: Path) -> None:
    target = tmp_path / "all.bib"
    legacy = tmp_path / ".all.bib.tmp"  # what a killed export of the old code left
    legacy.write_text("half")
    old = tmp_path / ".all.bib.0123456789ab.tmp"
    old.write_text("half")
    past = time.time() - STALE_SECONDS - 60
    os.utime(old, (past, past))
    fresh = tmp_path / ".all.bib.ba9876543210.tmp"  # maybe another export running now: kept
    fresh.write_text("running")
    assert run(["--data-dir", str(root), "export", "bibtex", str(target)]) == 0
    assert target.read_text().count("@") == 56
    assert _leftovers(tmp_path) == [fresh.name]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    target.write_text("kept\n")

    def broken() -> Iterator[str]:
        yield "new"
        raise ReaderError("stop")

    with pytest.raises(ReaderError):
        write_chunks(target, broken())
    assert target.read_text() == "kept\n" and _leftovers(tmp_path) == []


_KILLED_WRITER = """
import sys, time
from reader.output_files import write_chunks

def chunks():
    yield "new text, half written\\n" * 1000
    print("writing", flush=True)
    time.sleep(60)
    yield "never"

write_chunks(sys.argv[1], chunks())
"""
_KILLED_PER_PAPER = """
import sys, time
from pathlib import Path
from reader.exporters import markdown

real = markdown._check_replaceable
calls = []

def slow_check(path):
    calls.append(path)
    if len(calls) == 2:  # right before the rename: the text is written, the process is killed
        print("writing", flush=True)
        time.sleep(60)
    real(path)

markdown._check_replaceable = slow_check
markdown._write_in_folder(Path(sys.argv[1]).parent, Path(sys.argv[1]).name, "new text\\n" * 1000)
"""


@pytest.mark.parametrize("writer", [_KILLED_WRITER, _KILLED_PER_PAPER], ids=["export", "per-paper"])
def test_an_export_killed_mid_write_leaves_no_temporary_file_and_the_old_target(tmp_path: Path, writer: str) -> None:
    """kill -9 while an export writes: the old file stays whole and nothing else is left (the
    temporary file has no name until it is whole, where the system allows it: Linux)."""
    try:
        os.close(os.open(tmp_path, getattr(os, "O_TMPFILE", 0) | os.O_WRONLY, 0o600))
    except (OSError, AttributeError):
        pytest.skip("no unnamed files (O_TMPFILE) on this system or file system")
    target = tmp_path / "all.bib"
    target.write_text("the old file\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen([sys.executable, "-c", writer, str(target)], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
        proc.kill()  # SIGKILL: no handler, no finally
    finally:
        proc.kill()
        proc.wait()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all.bib"]  # the old code left .all.bib.<hex>.tmp
    assert target.read_text() == "the old file\n"


@pytest.mark.parametrize("ways", [["proc"], ["empty-path"], []], ids=["proc-link", "empty-path-link", "copy"])
def test_every_way_of_naming_an_unnamed_file_writes_the_whole_file(tmp_path: Path, ways: list[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """/proc/self/fd links fail with EXDEV in some sandboxes and AT_EMPTY_PATH needs privileges:
    whichever way works (or a copy, the last resort), the target is whole with the user's mode."""
    from reader import output_files

    monkeypatch.setattr(output_files, "_namers", list(ways))
    target = tmp_path / "x.bib"
    target.write_text("old\n")
    target.chmod(0o640)
    write_chunks(target, ["a" * (3 << 20), "end\n"])  # more than one copied block
    assert target.read_text() == "a" * (3 << 20) + "end\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _leftovers(tmp_path) == []


def test_two_exports_finding_a_way_fails_at_once_both_write(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Two exports on two threads both find that /proc/self/fd links fail here: the second to
    drop that way from the list found it dropped already (a ValueError came out of the export)."""
    from reader import output_files

    monkeypatch.setattr(output_files, "_namers", ["proc"])

    def link(src: str, dst: object, **kwargs: object) -> None:
        output_files._namers.remove("proc")  # the other thread, failing the same way, went first
        raise OSError(errno.EXDEV, "cross-device link")

    monkeypatch.setattr(output_files.os, "link", link)
    target = tmp_path / "x.bib"
    write_chunks(target, ["whole\n"])
    assert target.read_text() == "whole\n"
    assert _leftovers(tmp_path) == []


def test_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="no such folder"):
        write_text(tmp_path / "nope" / "x.bib", "x")


def test_per_paper_markdown_refuses_a_fifo_named_like_a_paper(root: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "md"
    assert run(["--data-dir", str(root), "export", "markdown", "--per-paper", str(out)]) == 0
    name = sorted(p.name for p in out.iterdir())[0]
    (out / name).unlink()
    os.mkfifo(out / name)
    assert run(["--data-dir", str(root), "export", "markdown", "--per-paper", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    assert "not a regular file" in err and len(err.splitlines()) == 1
    assert stat.S_ISFIFO(os.lstat(out / name).st_mode)
    assert _leftovers(out) == []


def test_map_json_is_written_like_an_export(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "map.json"
    os.mkfifo(fifo)
    assert run(["--data-dir", str(root), "map", "--json", str(fifo)]) != 0  # never blocks on the FIFO
    assert "not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["fifo", "file", "link to a fifo"])
def test_per_paper_markdown_names_what_stands_where_its_folder_belongs(root: Path, tmp_path: Path, kind: str,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """It said "md: File exists" for a FIFO or a file given as the folder (issue 30's campaign)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = tmp_path / "md"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "file":
        out.write_text("mine", encoding="utf-8")
    else:
        out.symlink_to(fifo)
    assert run(["--data-dir", str(root), "export", "markdown", "--per-paper", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    expected = "a file" if kind == "file" else "a FIFO (named pipe)"
    assert f"{out} is {expected}, not a folder; not written" in err and len(err.splitlines()) == 1
    assert os.path.lexists(out) and not out.is_dir()
