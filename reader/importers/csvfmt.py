"""CSV/TSV paper tables: a header row with (aliased) columns, RFC-4180 quoting, sniffed delimiter."""

from __future__ import annotations

import csv
import io
import sys

from reader.errors import InputFileError
from reader.models import ImportFormat, ParseResult, Problem

from .base import Importer, first_line
from .fields import ALIASES, LINK_KEYS, record_from_mapping

DELIMITERS = (",", ";", "\t")
_MAX_HEADER_CHARS = 65536  # a header row of column names; a longer first line is not one
_KNOWN_COLUMNS = frozenset(k for keys in ALIASES.values() for k in keys) | set(LINK_KEYS)

# Abstracts can be long and a stray quote can swallow many lines; report that, don't crash.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def _header_fields(first_line: str, delimiter: str) -> list[str]:
    try:
        return next(csv.reader([first_line], delimiter=delimiter))
    except (csv.Error, StopIteration):
        return []


def sniff_delimiter(text: str) -> str:
    """The delimiter whose header split finds the most known columns (then the most columns)."""
    header = first_line(text)
    best, best_score = ",", (-1, -1)
    for delimiter in DELIMITERS:
        names = [n.strip().lower() for n in _header_fields(header, delimiter)]
        score = (sum(n in _KNOWN_COLUMNS for n in names), len(names))
        if score > best_score:
            best, best_score = delimiter, score
    return best


def looks_like_csv(text: str, ext: str = "") -> bool:
    """True when the first line is a header naming an abstract column and one other known column."""
    header = first_line(text)
    if len(header) > _MAX_HEADER_CHARS:
        return False
    for delimiter in DELIMITERS:
        names = {n.strip().lower() for n in _header_fields(header, delimiter)}
        if names & set(ALIASES["abstract"]) and len(names & _KNOWN_COLUMNS) >= 2:
            return True
    return False


def parse_csv(text: str, path: str) -> ParseResult:
    """Parse CSV text (LF line ends); Record.line is the physical line where the row starts."""
    delimiter = sniff_delimiter(text)
    # strict: an unterminated quote is an error, not a silently swallowed rest of file.
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as exc:
        raise InputFileError(path, f"cannot read the CSV header ({exc})") from None
    columns = [name.strip().lower() for name in header]
    if not set(columns) & set(ALIASES["abstract"]):
        shown = ", ".join(c for c in columns if c) or "none"
        raise InputFileError(path, f"no abstract column in the CSV header (columns: {shown})", 1)
    result = ParseResult(path=path, format=ImportFormat.CSV)
    previous_end = reader.line_num
    while True:
        start = previous_end + 1
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            # The reader resets per row, so the rows after a badly quoted one still parse.
            result.problems.append(Problem(start, f"badly quoted CSV row ({exc})"))
            previous_end = reader.line_num
            continue
        previous_end = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        extra = [cell for cell in row[len(columns) :] if cell.strip()]
        if extra:
            result.problems.append(
                Problem(start, f"{len(row)} fields but the header has {len(columns)} (quoting?)")
            )
            continue
        mapping: dict[str, str] = {}
        for name, cell in zip(columns, row, strict=False):
            if name and name not in mapping:  # the first of duplicate columns wins
                mapping[name] = cell
        item = record_from_mapping(mapping, line=start)
        if isinstance(item, Problem):
            result.problems.append(item)
        else:
            result.records.append(item)
    return result


IMPORTER = Importer(ImportFormat.CSV, "CSV or TSV table", (".csv", ".tsv"), looks_like_csv, parse_csv)
