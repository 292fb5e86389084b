"""Parse paper files (seed text, JSON Lines, JSON, CSV, RIS, BibTeX, arXiv Atom, Reader backups) into ParseResults."""

from __future__ import annotations

from pathlib import Path

from reader.errors import InputFileError
from reader.models import ImportFormat, ParseResult, Problem

from .base import MAX_LINE_CHARS, MAX_RECORDS, Importer
from .decode import PathArg, display_name, read_text
from .detect import detect_format
from .registry import (
    IMPORTERS,
    detect,
    file_dialog_filter,
    import_help,
    importer_for,
    unrecognised_message,
)

__all__ = [
    "IMPORTERS", "Importer", "detect_format", "display_name", "file_dialog_filter", "import_help",
    "importer_for", "parse_file", "parse_text", "unrecognised_message",
]

_RECORD_NUMBERED = (ImportFormat.JSON, ImportFormat.BACKUP)  # Record.line is a record number


def _first_long_line(text: str) -> int | None:
    """The number of the first line longer than MAX_LINE_CHARS, or None.

    Jumps to the last line break within each window, so a file takes ~len/MAX_LINE_CHARS
    C-speed searches instead of one Python step per line.
    """
    pos, n = 0, len(text)
    while n - pos > MAX_LINE_CHARS:
        cut = text.rfind("\n", pos, pos + MAX_LINE_CHARS + 1)
        if cut < 0:
            return text.count("\n", 0, pos) + 1
        pos = cut + 1
    return None


def _drop_unstorable(result: ParseResult) -> None:
    """Move records that break a storage rule (type, range, length) to the problems."""
    kept = []
    for record in result.records:
        reason = record.problem()
        if reason is None:
            kept.append(record)
        elif result.format in _RECORD_NUMBERED:
            result.problems.append(Problem(None, f"record {record.line}: {reason}", key=record.citation_key))
        else:
            result.problems.append(Problem(record.line, reason, key=record.citation_key))
    result.records = kept


def _collect_notes(result: ParseResult) -> None:
    """The imported records' ignored values, each by its line or record number."""
    for record in result.records:
        for note in record.notes:
            if result.format in _RECORD_NUMBERED:
                result.notes.append(Problem(None, f"record {record.line}: {note}", key=record.citation_key))
            else:
                result.notes.append(Problem(record.line, note, key=record.citation_key))


def parse_text(text: str, path: str | Path, fmt: str | None = None) -> ParseResult:
    """Parse already-decoded text (LF line ends); `fmt` skips detection."""
    name = str(path)
    importer = importer_for(fmt) if fmt else detect(name, text)
    if importer is None:
        raise InputFileError(name, unrecognised_message())
    if importer.line_based:
        long_line = _first_long_line(text)
        if long_line:
            raise InputFileError(
                name, f"line {long_line} is too long for a {importer.label} file "
                      f"(over {MAX_LINE_CHARS:,} characters)", long_line)
    bound = importer.bound(text)
    if bound > MAX_RECORDS:
        raise InputFileError(name, f"too many records for one {importer.label} file (up to {bound:,}; "
                                   f"the limit is {MAX_RECORDS:,}): split it")
    result = importer.parse(text, name)
    _drop_unstorable(result)
    _collect_notes(result)
    if not result.records and not (result.format == ImportFormat.BACKUP and not result.problems):
        first = f" (first problem: {result.problems[0]})" if result.problems else ""
        raise InputFileError(name, f"no records found in this {importer.label} file{first}")
    return result


def parse_file(path: PathArg) -> ParseResult:
    """Read and parse one file; InputFileError when nothing in it can be imported.

    Only regular files are read. ParseResult.path is the printable name (display_name).
    """
    return parse_text(read_text(path), display_name(path))
