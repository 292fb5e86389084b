"""The vault folder on disk: scanning, safe reads, checked atomic writes, the trash, the sync lock.

Everything here opens only regular files inside the vault: never through a link (O_NOFOLLOW),
never a device or a FIFO (O_NONBLOCK, then fstat must say "regular"), never more than a size cap.
A file is replaced only if it is still exactly what the sync read, checked once more right before
the rename; what the sync records as written comes from the temporary file it wrote, never from a
stat after the rename (a save landing there must look like a change to the next sync).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..errors import ReaderError
from .encoding import Encoding, decode

TRASH = ".trash"
MARKER_FILE = ".reader-vault"  # holds the vault's id: its sync state follows it when moved
TMP_SUFFIX = ".reader-tmp"
LOCK_NAME = ".reader-sync.lock"
MAX_FILE_BYTES = 16 << 20  # a paper's file is a few KB; anything this big is not one of ours
_MARKER_BYTES = 64 << 10
# Tests set this to make a sync pause after each file it writes (to kill it mid-sync).
DELAY_ENV = "READER_VAULT_TEST_DELAY"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)
_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)


class Unreadable(OSError):
    """A path the vault will not read: a link, a device, a FIFO, a huge file, or one being rewritten."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def shown(name: str) -> str:
    """A path as reports and the sync state hold it: a name that is not UTF-8 in its escaped form."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "backslashreplace")


@dataclass(frozen=True)
class Entry:
    """One Markdown file as scanned (a str path: building 50,000 Path objects costs a second)."""

    rel: str  # relative to the vault, "/"-separated, as `shown` gives it
    abspath: str
    mtime_ns: int
    size: int

    @property
    def path(self) -> Path:
        return Path(self.abspath)


@dataclass(frozen=True)
class Stamp:
    """Who a file is: when two stamps are equal the file was not saved in between."""

    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Stamp:
        return cls(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@dataclass(frozen=True)
class Loaded:
    """A file as read: its text (line ends and encoding undone), how to write it back, and its stamp."""

    text: str
    encoding: Encoding
    stamp: Stamp
    digest: str


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
                try:
                    if de.name.startswith("."):
                        if de.name.endswith(TMP_SUFFIX) and de.is_file(follow_symlinks=False):
                            temps.append(Path(de.path))
                        continue
                    if de.is_dir(follow_symlinks=False):
                        stack.append((Path(de.path), f"{prefix}{de.name}/"))
                    elif de.name.lower().endswith(".md"):
                        if de.is_symlink():
                            links.append(Entry(shown(prefix + de.name), de.path, 0, 0))
                        elif de.is_file(follow_symlinks=False):  # FIFOs, devices, sockets: never
                            st = de.stat(follow_symlinks=False)
                            entries.append(Entry(shown(prefix + de.name), de.path, st.st_mtime_ns, st.st_size))
                except OSError:  # gone or unreadable since the folder was listed
                    continue
    return entries, root_names, temps, links


def read_bytes(path: Path | str, limit: int = MAX_FILE_BYTES) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes and its stat; Unreadable for links, devices, FIFOs, huge or changing files."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unreadable("a symbolic link; Reader never follows links") from None
        raise
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise Unreadable("not a regular file")
        if before.st_size > limit:
            raise Unreadable(f"larger than {limit >> 20} MB")
        chunks: list[bytes] = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise Unreadable(f"larger than {limit >> 20} MB")
        after = os.fstat(fd)
    finally:
        os.close(fd)
    if (after.st_size, after.st_mtime_ns) != (before.st_size, before.st_mtime_ns) or after.st_size != total:
        raise Unreadable("it was being saved while Reader read it; the next sync reads it again")
    return b"".join(chunks), after


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def load(path: Path | str) -> Loaded:
    """Read a vault file (UnicodeDecodeError when it is no text Reader can read)."""
    data, st = read_bytes(path)
    text, encoding = decode(data)
    return Loaded(text, encoding, Stamp.of(st), digest(data))


def read_text(path: Path) -> str:
    return load(path).text


def inside(root: Path, path: str) -> str | None:
    """Where a link leads, when that is a path inside the vault (else None)."""
    real = os.path.realpath(path)
    base = str(root)
    try:
        if os.path.commonpath([base, real]) != base:
            return None
    except ValueError:  # another drive
        return None
    return real


def _tmp_for(path: Path) -> Path:
    # Derived from a hash: fits whatever the file's own name is (255 bytes on every OS).
    key = hashlib.blake2b(os.fsencode(path.name), digest_size=8).hexdigest()
    return path.with_name(f".{key}.{os.getpid()}{TMP_SUFFIX}")


def _write_tmp(path: Path, data: bytes, mode: int = 0o644) -> tuple[Path, os.stat_result]:
    """The temporary file next to `path`, written whole; and its stat, taken from the written file."""
    tmp = _tmp_for(path)
    try:  # O_EXCL|O_NOFOLLOW: never write through a link planted under the temporary name
        fd = os.open(tmp, _TMP_FLAGS, mode)
    except FileExistsError:
        tmp.unlink()
        fd = os.open(tmp, _TMP_FLAGS, mode)
    try:
        if mode != 0o644 and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)  # exactly the replaced file's mode, whatever the umask
        # No fsync: like the library (WAL, synchronous=NORMAL) this survives a crash of the app,
        # and the rename means a reader never sees half a file.
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        written = os.fstat(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    return tmp, written


def _still(path: Path, expect: Stamp, expect_digest: str | None) -> bool:
    """The file is still the one the sync read (content checked too: a stamp can repeat in a tick)."""
    try:
        if expect_digest is not None:
            data, st = read_bytes(path)
            if digest(data) != expect_digest or Stamp.of(st) != expect:
                return False
        return Stamp.of(os.lstat(path)) == expect
    except (OSError, Unreadable):
        return False


def _holds(path: Path, expect_digest: str) -> bool:
    try:
        data, _ = read_bytes(path)
    except OSError:
        return False
    return digest(data) == expect_digest


def replace(path: Path, data: bytes, expect: Stamp, expect_digest: str | None = None) -> os.stat_result | None:
    """Atomically replace the file the sync read; None (nothing written) if it is a link or not the
    file it read any more. Returns the stat of what was written (as the temporary file had it)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode) or Stamp.of(st) != expect:
        return None
    tmp, written = _write_tmp(path, data, st.st_mode & 0o7777)  # the user's permissions stay
    try:
        # Checked again now that the copy is ready: a save while it was written must win. The last
        # check is one lstat right before the rename, as close as a rename-based write can get.
        if not _still(path, expect, expect_digest) or Stamp.of(os.lstat(path)) != expect:
            tmp.unlink(missing_ok=True)
            return None
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _test_delay()
    return written


def create(folder: Path, name: str, data: bytes, rename: Callable[[], str]) -> tuple[Path, os.stat_result]:
    """Write a new file under `name` (or `rename()` while that is taken), never replacing a file."""
    while True:
        path = folder / name
        if os.path.lexists(path):
            name = rename()
            continue
        tmp, written = _write_tmp(path, data)
        # A hard link would refuse an existing name outright, but unlinking the temporary name
        # then costs ~2 ms a file on ext4; the name was free a moment ago, which is as good
        # unless another program creates that very name in these microseconds.
        try:
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _test_delay()
        return path, written


def _open_dir(path: Path) -> int:
    """A descriptor of a real folder (never a link to one)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Unreadable(f"{path.name} is not a folder (a link?); Reader never follows links") from None
        raise
    if not stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise Unreadable(f"{path.name} is not a folder")
    return fd


def _trash_name(stem: str, suffix: str, n: int) -> str:
    extra = f" ({n})" if n > 1 else ""
    raw = os.fsencode(stem)
    budget = 250 - len(os.fsencode(extra + suffix))
    if len(raw) > budget:  # a long name plus " (2)" must still fit 255 bytes
        stem = os.fsdecode(raw[:budget].decode("utf-8", "ignore").encode("utf-8"))
    return f"{stem}{extra}{suffix}"


def to_trash(root: Path, path: Path, expect_digest: str | None = None) -> Path | None:
    """Move a file into the vault's .trash/ folder (Obsidian's own), under a free name; a .trash
    that is a link (or not a folder) is never used (Unreadable). With `expect_digest`, only a file
    still holding those bytes right before the move (None otherwise: nothing moved)."""
    trash = root / TRASH
    try:
        os.mkdir(trash)
    except FileExistsError:
        pass
    use_fd = os.replace in os.supports_dir_fd and os.lstat in os.supports_dir_fd
    if not use_fd:  # Windows: no descriptor-relative calls; check the folder by its path
        if os.path.islink(trash) or not trash.is_dir():
            raise Unreadable(f"{TRASH} is not a folder (a link?); Reader never follows links")
    fd = _open_dir(trash) if use_fd else None
    try:
        n = 1
        while True:
            name = _trash_name(path.stem, path.suffix, n)
            try:
                os.lstat(name if fd is not None else trash / name, dir_fd=fd)
            except FileNotFoundError:
                break
            n += 1
        if expect_digest is not None and not _holds(path, expect_digest):
            return None  # saved since it was read: a user's edit is never moved away
        if fd is not None:
            os.replace(path, name, dst_dir_fd=fd)
        else:
            os.replace(path, trash / name)
    finally:
        if fd is not None:
            os.close(fd)
    return trash / name


def vault_key(root: Path, *, create: bool) -> str | None:
    """The vault's id from its marker file, written on first use (None in a dry run of a new vault)."""
    marker = root / MARKER_FILE
    try:
        data = json.loads(decode(read_bytes(marker, _MARKER_BYTES)[0])[0])
        if isinstance(data, dict) and isinstance(data.get("id"), str) and data["id"]:
            return str(data["id"])
        if not create:
            return None
    except FileNotFoundError:
        if not create:
            return None
    except Unreadable as exc:
        raise ReaderError(f"{marker}: not a Reader vault marker ({exc.reason}); remove it to start afresh") from None
    except (OSError, ValueError) as exc:
        raise ReaderError(f"{marker}: not a Reader vault marker ({exc}); remove it to start afresh") from None
    key = uuid.uuid4().hex
    tmp, _ = _write_tmp(marker, (json.dumps({"id": key, "app": "Reader"}) + "\n").encode("utf-8"))
    os.replace(tmp, marker)  # a rename replaces a link at that name, never writes through it
    return key


def _test_delay() -> None:
    delay = os.environ.get(DELAY_ENV)
    if delay:
        time.sleep(float(delay))


def _lock_fd(root: Path) -> int:
    """The lock file's descriptor: our own regular file in the vault, whatever was at that name."""
    path = root / LOCK_NAME
    flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(3):
        try:
            fd = os.open(path, flags, 0o644)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            os.unlink(path)  # a link at our lock's name (maybe dangling): removed, never followed
            continue
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
        os.close(fd)
        if path.is_dir():
            raise ReaderError(f"{path} is a folder; remove it to sync this vault")
        os.unlink(path)  # a FIFO or socket someone left under our name
    raise ReaderError(f"{path}: cannot create the sync lock")


@contextmanager
def sync_lock(root: Path, *, wait: bool = True) -> Iterator[None]:
    """One sync of a vault at a time, across processes (the GUI's and a CLI's)."""
    try:
        import fcntl
    except ImportError:  # Windows: in-process callers serialise on their own
        yield
        return
    fd = _lock_fd(root)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise ReaderError(f"{root}: another sync of this vault is running") from None
        yield
    finally:
        os.close(fd)
