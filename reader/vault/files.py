"""The vault folder on disk: scanning for Markdown files, atomic writes, the trash, the sync lock."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import ReaderError

TRASH = ".trash"
MARKER_FILE = ".reader-vault"  # holds the vault's id: its sync state follows it when moved
TMP_SUFFIX = ".reader-tmp"
LOCK_NAME = ".reader-sync.lock"
# Tests set this to make a sync pause after each file it writes (to kill it mid-sync).
DELAY_ENV = "READER_VAULT_TEST_DELAY"


@dataclass(frozen=True)
class Entry:
    """One Markdown file as scanned (a str path: building 50,000 Path objects costs a second)."""

    rel: str  # relative to the vault, "/"-separated
    abspath: str
    mtime_ns: int
    size: int

    @property
    def path(self) -> Path:
        return Path(self.abspath)


def scan(root: Path) -> tuple[list[Entry], set[str], list[Path], list[Entry]]:
    """Every .md file under root (hidden folders such as .trash/.obsidian/.git skipped), the
    case-folded names already in root, leftover temp files, and .md symlinks (never followed)."""
    entries: list[Entry] = []
    links: list[Entry] = []
    root_names: set[str] = set()
    temps: list[Path] = []
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            it = os.scandir(folder)
        except OSError:
            continue
        at_root = folder == root
        with it:
            for de in it:
                if at_root:
                    root_names.add(de.name.casefold())
                if de.name.startswith("."):
                    if de.name.endswith(TMP_SUFFIX) and de.is_file(follow_symlinks=False):
                        temps.append(Path(de.path))
                    continue
                if de.is_dir(follow_symlinks=False):
                    stack.append((Path(de.path), f"{prefix}{de.name}/"))
                elif de.name.lower().endswith(".md"):
                    if de.is_symlink():
                        links.append(Entry(prefix + de.name, de.path, 0, 0))
                    elif de.is_file(follow_symlinks=False):
                        st = de.stat(follow_symlinks=False)
                        entries.append(Entry(prefix + de.name, de.path, st.st_mtime_ns, st.st_size))
    return entries, root_names, temps, links


def read_text(path: Path) -> str:
    with open(path, encoding="utf-8", newline="") as fh:  # newline="": CRLF files stay CRLF
        return fh.read()


def _tmp_for(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")


_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def _write_tmp(path: Path, text: str, mode: int = 0o644) -> Path:
    tmp = _tmp_for(path)
    try:  # O_EXCL|O_NOFOLLOW: never write through a link planted under the temporary name
        fd = os.open(tmp, _TMP_FLAGS, mode)
    except FileExistsError:
        tmp.unlink()
        fd = os.open(tmp, _TMP_FLAGS, mode)
    if mode != 0o644 and hasattr(os, "fchmod"):
        os.fchmod(fd, mode)  # exactly the replaced file's mode, whatever the umask
    # No fsync: like the library (WAL, synchronous=NORMAL) this survives a crash of the app,
    # and the rename below means a reader never sees half a file.
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return tmp


def replace(path: Path, text: str, expect: tuple[int, int] | None) -> os.stat_result | None:
    """Atomically replace an existing file; None (nothing written) if it is a symlink or it
    changed since it was read (its (mtime_ns, size) is no longer `expect`)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not os.path.isfile(path) or os.path.islink(path):
        return None
    if expect is not None and (st.st_mtime_ns, st.st_size) != expect:
        return None
    _move_into_place(_write_tmp(path, text, st.st_mode & 0o7777), path)  # the user's permissions stay
    return os.stat(path)


def _move_into_place(tmp: Path, path: Path) -> None:
    """Rename the finished temporary file over `path` (atomic in one folder); never leave it behind."""
    try:
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    _test_delay()


def create(folder: Path, name: str, text: str, rename: Callable[[], str]) -> tuple[Path, os.stat_result]:
    """Write a new file under `name` (or `rename()` while that is taken), never replacing a file."""
    while True:
        path = folder / name
        if os.path.lexists(path):
            name = rename()
            continue
        tmp = _write_tmp(path, text)
        # A hard link would refuse an existing name outright, but unlinking the temporary name
        # then costs ~2 ms a file on ext4; the name was free a moment ago, which is as good
        # unless another program creates that very name in these microseconds.
        _move_into_place(tmp, path)
        return path, os.stat(path)


def to_trash(root: Path, path: Path) -> Path:
    """Move a file into the vault's .trash/ folder (Obsidian's own), under a free name."""
    trash = root / TRASH
    trash.mkdir(exist_ok=True)
    stem, suffix = path.stem, path.suffix
    target = trash / path.name
    n = 1
    while os.path.lexists(target):
        n += 1
        target = trash / f"{stem} ({n}){suffix}"
    os.replace(path, target)
    return target


def vault_key(root: Path, *, create: bool) -> str | None:
    """The vault's id from its marker file, written on first use (None in a dry run of a new vault)."""
    marker = root / MARKER_FILE
    try:
        data = json.loads(read_text(marker))
        if isinstance(data, dict) and isinstance(data.get("id"), str) and data["id"]:
            return data["id"]
        if not create:
            return None
    except FileNotFoundError:
        if not create:
            return None
    except (OSError, ValueError) as exc:
        raise ReaderError(f"{marker}: not a Reader vault marker ({exc}); remove it to start afresh") from None
    key = uuid.uuid4().hex
    tmp = _write_tmp(marker, json.dumps({"id": key, "app": "Reader"}) + "\n")
    os.replace(tmp, marker)
    return key


def _test_delay() -> None:
    delay = os.environ.get(DELAY_ENV)
    if delay:
        time.sleep(float(delay))


@contextmanager
def sync_lock(root: Path, *, wait: bool = True) -> Iterator[None]:
    """One sync of a vault at a time, across processes (the GUI's and a CLI's)."""
    try:
        import fcntl
    except ImportError:  # Windows: in-process callers serialise on their own
        yield
        return
    fh = open(root / LOCK_NAME, "a+")  # noqa: SIM115 - held for the whole block
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise ReaderError(f"{root}: another sync of this vault is running") from None
        yield
    finally:
        fh.close()
