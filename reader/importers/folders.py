"""A folder given to import: the paper files in it, not the README or the script beside them."""

from __future__ import annotations

import os
from pathlib import Path

from reader.errors import InputFileError

from .decode import display_name, read_text
from .registry import IMPORTERS, sniffed

# Extensions that name a format by themselves; plain text (.txt) must show its format in its
# content (a "VENUE YEAR" header, RIS or Web of Science tags...) to count as a paper file.
_CLAIMED = frozenset(ext for importer in IMPORTERS if importer.claims_extension for ext in importer.extensions)
_BY_CONTENT = frozenset(ext for importer in IMPORTERS for ext in importer.extensions) - _CLAIMED


def paper_files(folder: Path) -> tuple[list[Path], list[str]]:
    """The paper files directly in `folder` by name, and the names of what was passed over:
    files of another kind, plain text no format recognises, sub-folders (not looked into)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        raise InputFileError(display_name(folder), f"cannot be read ({exc.strerror or exc})") from None
    taken: list[Path] = []
    passed: list[str] = []
    for entry in entries:
        path = Path(entry.path)
        name = display_name(entry.name)
        if entry.is_dir():
            passed.append(name + "/")
        elif _is_paper_file(path):
            taken.append(path)
        else:
            passed.append(name)
    return taken, passed


def _is_paper_file(path: Path) -> bool:
    ext = path.suffix.lower()
    if ext in _CLAIMED:
        return True
    if ext not in _BY_CONTENT:
        return False
    try:
        return sniffed(path, read_text(path)) is not None
    except InputFileError:  # not readable as text: not a paper file either
        return False
