"""The Importer record each format module declares, and the size limits every importer obeys."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reader.errors import InputFileError
from reader.models import ImportFormat, ParseResult, Problem, Record

# Limits at the boundary: big enough for every real file seen, small enough that a hostile
# file is refused in well under a second instead of eating gigabytes.
MAX_FILE_BYTES = 256 * 2**20  # the 50k-abstract JSONL corpus is 82 MB
MAX_LINE_CHARS = 2**20  # one physical line of a line-based format (seed, JSONL, CSV, RIS, BibTeX)
MAX_JSON_DEPTH = 64  # paper files nest 3-4 levels deep; the JSON decoder recurses per level
MAX_RECORDS = 200_000  # papers in one file (the real corpus has 50k): caps parse time and memory

_LEADING_SPACE = re.compile(r"\s*")


def first_line(text: str, *, skip_blank: bool = False) -> str:
    """The first line (the first non-blank one with skip_blank), without copying the rest."""
    start = _LEADING_SPACE.match(text).end() if skip_blank else 0  # type: ignore[union-attr]
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def collect(result: ParseResult, items: Sequence[Any], parse_one: Callable[[int, Any], Record | Problem],
            *, what: str = "records") -> ParseResult:
    """Fill `result` from the items of a parsed document (a JSON array): each numbered from 1 and
    turned by `parse_one` into a Record or the Problem that stands in for it. More than
    MAX_RECORDS items refuse the whole file, before any is parsed."""
    if len(items) > MAX_RECORDS:
        raise InputFileError(result.path, f"too many {what} ({len(items):,}; the limit is {MAX_RECORDS:,})")
    for number, item in enumerate(items, start=1):
        found = parse_one(number, item)
        if isinstance(found, Problem):
            result.problems.append(found)
        else:
            result.records.append(found)
    return result


@dataclass(frozen=True)
class Importer:
    """One import format, declared once: detection, the file dialog, CLI help and errors read it."""

    format: ImportFormat
    label: str  # shown in the file dialog and in messages, e.g. "BibTeX"
    extensions: tuple[str, ...]  # lower-case with the dot; the first is the usual one
    sniff: Callable[[str, str], bool]  # (decoded text, lower-case extension) -> is this format
    parse: Callable[[str, str], ParseResult]  # (decoded text, path) -> records and problems
    # A cheap upper bound on the records in the text (a substring count), checked against
    # MAX_RECORDS before parsing, so a file of millions of junk entries is refused at once.
    bound: Callable[[str], int] = lambda text: text.count("\n") + 1
    line_based: bool = True  # MAX_LINE_CHARS applies (JSON and XML may sit on one line)
    # A file with one of the extensions is this format even when its content does not say so.
    # False for plain text: in a folder, a README.txt beside the exports is not a paper file.
    claims_extension: bool = True
