"""Files Reader writes for the user (exports, backups, `reader map --json`): atomic, uniquely named
temporary files, and never written over anything that is not a regular file.

- The text goes to a new temporary file in the target's folder (`.<name>.<random>.tmp`, created
  with O_EXCL), which is then renamed over the target: two exports to one path at once never share
  a temporary file, and the file each acknowledges is the one it wrote whole.
- The target must be a regular file or absent. A folder, a FIFO, a device node or a socket is
  refused in one line (renaming over /dev/null would replace the system's device with a file).
- A symlink is written through: its final target (which must itself be a regular file, or absent
  in an existing folder) is replaced atomically and the link stays, so a user's `refs.bib` linked
  into a synced folder keeps pointing there. A link to a FIFO, a device or a folder is refused.
- Temporary files of ours left by a killed export (the old fixed `.<name>.tmp`, or `.<name>.*.tmp`
  older than an hour) are removed by the next export to that name.
"""

from __future__ import annotations

import contextlib
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


def write_chunks(path: str | Path, chunks: Iterable[str | bytes]) -> Path:
    """Write text (or bytes) given in pieces to `path` atomically; returns `path`.

    A failed or interrupted write leaves the old file (or none) and no temporary file."""
    path = Path(path)
    target = target_of(path)
    _clean_stale(target)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    try:
        try:
            keep: int | None = stat.S_IMODE(os.stat(target).st_mode)  # the user's permissions stay
        except FileNotFoundError:
            keep = None
        fd = os.open(tmp, _TMP_FLAGS, 0o666)  # minus the umask, like a plain open()
        with os.fdopen(fd, "wb") as out:
            if keep is not None and hasattr(os, "fchmod"):
                os.fchmod(out.fileno(), keep)
            for chunk in chunks:
                out.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        if os.path.lexists(target) or target != path:
            target_of(path)  # checked again right before the rename: still a regular file
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
