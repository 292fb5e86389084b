"""Derived numpy files in the library folder (the map, its marks, triage's word counts): written
atomically, and read back as None on any damage, so the caller builds them again.

They are never the source of truth: a reader that gets None recomputes from SQLite."""

from __future__ import annotations

import os
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

# What np.load and the unpacking of a damaged or foreign file can raise: the file is rebuilt.
# BadZipFile (a file cut short after its zip magic) is none of the others: it was missed.
READ_ERRORS = (OSError, ValueError, KeyError, IndexError, EOFError, UnicodeDecodeError, zlib.error,
               zipfile.BadZipFile)


def save_npz(path: Path, prefix: str, arrays: dict[str, Any]) -> None:
    """Write `arrays` to `path` atomically: beside it under a temporary name, then renamed, so a
    reader (another window, the CLI) never sees half a file."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".npz", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
