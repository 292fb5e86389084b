"""The plain-text seed format: a collection header line, then abstracts separated by blank lines."""

from __future__ import annotations

import re

from reader.models import ImportFormat, ParseResult, Problem, Record

from .base import Importer, first_line
from .fields import NO_ABSTRACT, collapse, is_abstract

_HEADER_VENUE_YEAR = re.compile(r"^([A-Za-z][\w&.\-]*)\s+((?:19|20|21)\d\d)\b")
_MAX_HEADER_CHARS = 120


def _blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each run of non-blank lines."""
    blocks: list[tuple[int, str]] = []
    start = 0
    lines: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
        elif lines:
            blocks.append((start, "\n".join(lines).strip()))
            lines = []
    if lines:
        blocks.append((start, "\n".join(lines).strip()))
    return blocks


def parse_header(header: str) -> tuple[str | None, int | None]:
    """Venue and year from a header like 'ICML 2025 Papers'."""
    match = _HEADER_VENUE_YEAR.match(header)
    if not match:
        return None, None
    return match.group(1), int(match.group(2))


def parse_seed(text: str, path: str) -> ParseResult:
    """Parse seed text (already decoded, LF line ends)."""
    result = ParseResult(path=path, format=ImportFormat.SEED)
    blocks = _blocks(text)
    venue: str | None = None
    year: int | None = None
    # The header is a single short line that is not itself an abstract paragraph.
    if blocks and "\n" not in blocks[0][1] and len(blocks[0][1]) <= _MAX_HEADER_CHARS:
        result.collection = collapse(blocks[0][1])
        venue, year = parse_header(result.collection or "")
        blocks = blocks[1:]
    for line, body in blocks:
        if not is_abstract(body):
            result.problems.append(Problem(line, NO_ABSTRACT))
            continue
        result.records.append(Record(abstract=body, venue=venue, year=year, line=line))
    return result


def looks_like_seed(text: str, ext: str) -> bool:
    """Positive only for a "VENUE YEAR" header line; other .txt files are seed text by extension."""
    first = first_line(text, skip_blank=True)
    return len(first) <= _MAX_HEADER_CHARS and parse_header(first)[0] is not None


# Plain text is taken as seed abstracts only from a text file or under a "VENUE YEAR" header,
# so a stray README, script or /etc/shadow is refused instead of imported as junk papers.
IMPORTER = Importer(ImportFormat.SEED, "Seed text", (".txt", ".text"), looks_like_seed, parse_seed,
                    bound=lambda text: text.count("\n\n") + 1, claims_extension=False)
