"""The shared folder's files: each member's folder holds `snapshot-<gen>.jsonl` (its state when
it last compacted), `log-<gen>.jsonl` (appended since), `divide.json` (its latest division of
the work) and, once it left the group, `left.json` (leaving.py). Only regular files are read or
written; writes are atomic (unique temporary names, then a rename) except the log's appends,
which a reader takes up to its last complete line."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add
from pathlib import Path

from .format import MAX_LINE

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$")
_FILE = re.compile(r"^(snapshot|log)-(\d{1,9})\.jsonl$")
DIVIDE_FILE = "divide.json"
LEFT_FILE = "left.json"  # the member left the group (leaving.py)
TEMP_PREFIX = ".reader-tmp-"
READ_CHUNK = 1 << 20

Checkpoint = Callable[[str], None]


def reason(exc: Exception) -> str:
    """What went wrong, in words: an OS error's message without its errno, else the error's text."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def valid_name(name: str) -> bool:
    return bool(NAME.match(name)) and not name.endswith((".", " ")) and not name.startswith(TEMP_PREFIX)


@dataclass
class MemberFiles:
    """A member folder's files by kind and generation, with their stat results."""

    path: Path
    logs: dict[int, os.stat_result] = field(default_factory=dict)
    snapshots: dict[int, os.stat_result] = field(default_factory=dict)
    divide: os.stat_result | None = None
    left: os.stat_result | None = None
    odd: list[str] = field(default_factory=list)  # names that are no regular file

    @property
    def gen(self) -> int:
        return max([*self.logs, *self.snapshots], default=0)

    def current(self) -> Iterator[tuple[str, os.stat_result]]:
        """(file name, stat) of the newest generation's snapshot, then its log."""
        gen = self.gen
        if gen in self.snapshots:
            yield f"snapshot-{gen}.jsonl", self.snapshots[gen]
        if gen in self.logs:
            yield f"log-{gen}.jsonl", self.logs[gen]


def members(folder: Path) -> list[str]:
    """The member folders under the group folder (real directories with a member's name)."""
    out = []
    with os.scandir(folder) as it:
        for entry in it:
            if valid_name(entry.name) and entry.is_dir(follow_symlinks=False):
                out.append(entry.name)
    return sorted(out)


def scan(path: Path) -> MemberFiles:
    found = MemberFiles(path)
    with os.scandir(path) as it:
        for entry in it:
            m = _FILE.match(entry.name)
            if not m and entry.name not in (DIVIDE_FILE, LEFT_FILE):
                continue
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                found.odd.append(entry.name)
                continue
            if entry.name == LEFT_FILE:
                found.left = st
            elif m is None:
                found.divide = st
            elif m.group(1) == "log":
                found.logs[int(m.group(2))] = st
            else:
                found.snapshots[int(m.group(2))] = st
    return found


def _open_regular(path: Path, flags: int) -> int:
    """An fd of `path`, refused (OSError) unless it is a regular file (no FIFO, device, link)."""
    fd = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


@dataclass
class Chunk:
    """Complete lines read from `start`; `end` is the offset after the last complete one."""

    lines: list[tuple[int, bytes]]  # (byte offset, line without its newline)
    end: int
    huge: list[int] = field(default_factory=list)  # offsets of lines over MAX_LINE, skipped


def read_lines(path: Path, start: int, limit: int | None = None) -> Chunk:
    """The complete lines of `path` from byte `start` (a line cut short, as a sync tool still
    copying leaves it, is left for the next read). Linear in what is read, in blocks of
    READ_CHUNK; a line longer than MAX_LINE is skipped without holding it. With `limit`, no
    block is read once that many bytes were."""
    fd = _open_regular(path, os.O_RDONLY)
    with os.fdopen(fd, "rb", buffering=0) as f:
        f.seek(start)
        lines: list[tuple[int, bytes]] = []
        huge: list[int] = []
        end = start  # after the last complete line
        base = start  # the file offset of tail[0]
        tail = b""  # the start of a line not complete yet
        skipping = -1  # the offset of a huge line being skipped (its bytes not held)
        while limit is None or base - start < limit:
            block = f.read(READ_CHUNK)
            if not block:
                break
            data = tail + block if tail else block
            parts = data.split(b"\n")
            last = parts.pop()  # after the last newline: cut short, or empty
            at = base
            if skipping < 0 and (not parts or max(map(len, parts)) <= MAX_LINE):
                # The common block, no huge line in it: each line's offset summed in C.
                starts = list(accumulate(map(add, map(len, parts), repeat(1)), initial=base))
                lines.extend(zip(starts, parts, strict=False))  # starts has one more: the end
                at = starts[-1]
            else:
                for line in parts:
                    if skipping >= 0:  # the end of a huge line
                        huge.append(skipping)
                        skipping = -1
                    elif len(line) > MAX_LINE:
                        huge.append(at)
                    else:
                        lines.append((at, line))
                    at += len(line) + 1
            end = at if parts else end
            if skipping < 0 and len(last) > MAX_LINE:
                skipping = at
            if skipping >= 0:
                tail = b""
                base = at + len(last)
            else:
                tail = last
                base = at
        return Chunk(lines, end, huge)


def read_small(path: Path, cap: int) -> bytes:
    """A whole regular file of at most `cap` bytes (OSError beyond)."""
    fd = _open_regular(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as f:
        data = f.read(cap + 1)
    if len(data) > cap:
        raise OSError(errno.EFBIG, f"over {cap // 1024} KB", str(path))
    return data


def _shared_mode() -> int:
    """The mode a new file of the shared folder gets: readable by the other members' accounts
    (a network drive or a shared git checkout), as the user's umask allows; mkstemp's 0600 would
    keep everyone else out."""
    umask = 0o022
    try:
        with open("/proc/self/status", "rb") as status:
            for line in status:
                if line.startswith(b"Umask:"):
                    umask = int(line.split()[1], 8)
                    break
    except (OSError, ValueError, IndexError):
        pass
    return 0o666 & ~umask


def write_atomic(path: Path, data: bytes, checkpoint: Checkpoint | None = None) -> None:
    """`data` as `path`, all or nothing: a temporary file beside it (a unique name), synced,
    then renamed over it. Never over a path that is not a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file: not written over", str(path))
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=path.parent)
    try:
        with contextlib.suppress(OSError, AttributeError):
            os.fchmod(fd, _shared_mode())
        with os.fdopen(fd, "wb") as f:
            half = len(data) // 2
            f.write(data[:half])
            if checkpoint is not None:
                f.flush()
                checkpoint("atomic-half")
            f.write(data[half:])
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append(path: Path, data: bytes, checkpoint: Checkpoint | None = None) -> None:
    """Append whole lines to this member's own log (its only writer). A line left cut short by
    an earlier crash or full disk is dropped first, so every line stays whole."""
    fd = _open_regular(path, os.O_RDWR)
    with os.fdopen(fd, "r+b") as f:
        size = f.seek(0, os.SEEK_END)
        if size:
            f.seek(max(0, size - 1))
            if f.read(1) != b"\n":
                _drop_cut_line(f, size)
        f.seek(0, os.SEEK_END)
        try:
            half = len(data) // 2
            f.write(data[:half])
            if checkpoint is not None:
                f.flush()
                checkpoint("append-half")
            f.write(data[half:])
            f.flush()
            os.fsync(f.fileno())
        except OSError:
            # A full disk: take the cut lines back now rather than leave them to the next write.
            try:
                f.truncate(size)
            except OSError:
                pass
            raise


def _drop_cut_line(f, size: int) -> None:
    # Back to the last newline however long the cut line is (read in blocks): a cut huge line
    # (a note of megabytes) dropped only its last MB before, and the next record, glued to the
    # rest, was skipped by every reader as part of a huge line.
    end = size
    while end > 0:
        back = min(end, READ_CHUNK)
        f.seek(end - back)
        cut = f.read(back).rfind(b"\n")
        if cut >= 0:
            f.truncate(end - back + cut + 1)
            return
        end -= back
    f.truncate(0)


def remove_temporaries(path: Path) -> None:
    """This member's temporary files left by a killed write (only in its own folder)."""
    with os.scandir(path) as it:
        for entry in it:
            if entry.name.startswith(TEMP_PREFIX) and entry.is_file(follow_symlinks=False):
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass
