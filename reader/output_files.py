"""Files Reader writes for the user (exports, backups, `reader map --json`): atomic, uniquely named
temporary files, and never written over anything that is not a regular file.

- The text goes to a new temporary file in the target's folder, which is then renamed over the
  target: two exports to one path at once never share a temporary file, and the file each
  acknowledges is the one it wrote whole. Where the system has them (Linux's O_TMPFILE on a local
  file system), the temporary file has no name while it is written: it gets its unique name
  (`.<name>.<random>.tmp`) only once whole, just before the rename, so a process killed mid-write
  (kill -9, a power cut) leaves nothing behind. Elsewhere it is created under that name with O_EXCL.
- The target must be a regular file or absent. A folder, a FIFO, a device node or a socket is
  refused in one line (renaming over /dev/null would replace the system's device with a file).
- A symlink is written through: its final target (which must itself be a regular file, or absent
  in an existing folder) is replaced atomically and the link stays, so a user's `refs.bib` linked
  into a synced folder keeps pointing there. A link to a FIFO, a device or a folder is refused.
- Temporary files of ours left by a killed export where files cannot be unnamed (the old fixed
  `.<name>.tmp`, or `.<name>.*.tmp` older than an hour) are removed by the next export to that name.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from .errors import NotRegularFile, ReaderError, file_kind

STALE_SECONDS = 3600
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_TMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)
_PROC_FD = "/proc/self/fd"
_AT_FDCWD, _AT_EMPTY_PATH = -100, 0x1000  # Linux's values (the only system with O_TMPFILE)
# open(O_TMPFILE) where the kernel or the file system has no unnamed files (then: a named one).
_NO_UNNAMED = frozenset({errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP), errno.EISDIR, errno.EINVAL})


def target_of(path: Path) -> Path:
    """The regular file a write to `path` replaces (a symlink's final target), or a ReaderError
    naming `path` when that is not a regular file or its folder does not exist."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ReaderError(f"{path}: cannot write ({exc.strerror})") from None
    target = path
    if st is not None and stat.S_ISLNK(st.st_mode):
        target = Path(os.path.realpath(path))
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise ReaderError(f"{path}: cannot write ({exc.strerror})") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise ReaderError(f"{path} is a folder; give a file name")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(f"{path} is {file_kind(st.st_mode)}, not a regular file; not written")
    if not target.parent.is_dir():
        raise ReaderError(f"{target.parent}: no such folder")
    return target


def _clean_stale(target: Path) -> None:
    """Remove temporary files of ours beside `target` that a killed export left behind."""
    now = time.time()
    prefix = f".{target.name}."
    with contextlib.suppress(OSError), os.scandir(target.parent) as entries:
        for entry in entries:
            name = entry.name
            if not (name.startswith(prefix) and name.endswith(".tmp")):
                continue
            legacy = name == f".{target.name}.tmp"
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and (legacy or now - st.st_mtime > STALE_SECONDS):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def open_unnamed(folder: Path) -> int | None:
    """A new file in `folder` that has no name yet (O_TMPFILE, mode 0o666 minus the umask), open
    for reading and writing; None where the system or the folder's file system has no such
    files. Nothing of it stays on disk unless `name_unnamed` names it, whatever happens to the
    process."""
    if not _O_TMPFILE:
        return None
    try:
        return os.open(folder, _O_TMPFILE | os.O_RDWR | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        if exc.errno in _NO_UNNAMED:
            return None
        raise


_namers: list[str] = ["proc", "empty-path"]  # the ways to name a file that worked, or may work, here


def name_unnamed(fd: int, name: Path) -> None:
    """Give the file `open_unnamed` made the (new, unique) name `name` in its folder: linked
    through /proc/self/fd (any user), else by linkat(AT_EMPTY_PATH) (where /proc resolves to
    another mount: some sandboxes; privileged), else copied into a new file of that name."""
    for way in list(_namers):
        try:
            if way == "proc":
                os.link(f"{_PROC_FD}/{fd}", name, follow_symlinks=True)
                return
            if _link_empty_path(fd, name):
                return
        except OSError as exc:
            if exc.errno == errno.EEXIST:
                raise
        with contextlib.suppress(ValueError):  # another thread's export found it first
            _namers.remove(way)  # not here: never tried again in this process
    out = os.open(name, _TMP_FLAGS, 0o666)
    try:
        if hasattr(os, "fchmod"):
            os.fchmod(out, stat.S_IMODE(os.fstat(fd).st_mode))
        at = 0
        while block := os.pread(fd, 1 << 20, at):
            os.write(out, block)  # a regular file: written whole
            at += len(block)
    except BaseException:
        os.close(out)
        name.unlink(missing_ok=True)
        raise
    os.close(out)


def _link_empty_path(fd: int, name: Path) -> bool:
    """linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) through libc; False where there is none."""
    import ctypes

    try:
        linkat = ctypes.CDLL(None, use_errno=True).linkat
    except (OSError, AttributeError):
        return False
    if linkat(fd, b"", _AT_FDCWD, os.fsencode(name), _AT_EMPTY_PATH) == 0:
        return True
    err = ctypes.get_errno()
    raise OSError(err, os.strerror(err), str(name))


def write_chunks(path: str | Path, chunks: Iterable[str | bytes]) -> Path:
    """Write text (or bytes) given in pieces to `path` atomically; returns `path`.

    A failed or interrupted write leaves the old file (or none) and no temporary file; so does a
    killed process where files can be written unnamed (open_unnamed)."""
    path = Path(path)
    target = target_of(path)
    _clean_stale(target)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        try:
            keep: int | None = stat.S_IMODE(os.stat(target).st_mode)  # the user's permissions stay
        except FileNotFoundError:
            keep = None
        fd = open_unnamed(target.parent)
        unnamed = fd is not None
        if fd is None:
            fd = os.open(tmp, _TMP_FLAGS, 0o666)  # minus the umask, like a plain open()
        with os.fdopen(fd, "wb") as out:
            if keep is not None and hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), keep)
            for chunk in chunks:
                out.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
            out.flush()
            if os.path.lexists(target) or target != path:
                target_of(path)  # checked again right before the rename: still a regular file
            if unnamed:
                name_unnamed(out.fileno(), tmp)  # named only now, whole, for the rename below
        os.replace(tmp, target)
    except ReaderError:
        tmp.unlink(missing_ok=True)
        raise
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReaderError(f"{path}: cannot write ({exc.strerror or exc})") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_text(path: str | Path, text: str) -> Path:
    return write_chunks(path, [text])
