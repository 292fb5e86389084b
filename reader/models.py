"""Plain data passed between importers, the store, the index and the exporters."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

_WS = re.compile(r"\s+")


def normalize_abstract(text: str) -> str:
    """The form of an abstract that identity is computed from: NFKC, casefolded, single spaces."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def paper_id_for(abstract: str) -> str:
    """Stable 16-hex-digit id from the normalised abstract, so re-imports collapse."""
    return hashlib.sha1(normalize_abstract(abstract).encode("utf-8")).hexdigest()[:16]


# What a stored paper may hold: the index and SQLite must never see a value they cannot keep.
YEAR_MIN, YEAR_MAX = 1000, 2200
MAX_ABSTRACT_CHARS = 100_000
MAX_FIELD_CHARS = 2_000  # a title, venue, author name or link
MAX_LIST_ITEMS = 5_000  # authors or links of one paper (big-physics papers list ~3,000 authors)


def storable(text: str) -> bool:
    """False for NUL and lone surrogates (from JSON "\\u0000" / "\\ud800" escapes): not UTF-8 text."""
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    try:  # encoding is ~10x faster than a regex for surrogates on non-ASCII text
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def text_problem(name: str, value: object, limit: int, *, optional: bool = True) -> str | None:
    """Why `value` is not storable text of at most `limit` characters, or None when it is."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        return f"{name} must be text, not {_json_type(value)}"
    if len(value) > limit:
        return f"{name} is too long ({len(value):,} characters; the limit is {limit:,})"
    if not storable(value):
        return f"{name} contains a NUL or an invalid (surrogate) character"
    return None


def year_problem(value: object) -> str | None:
    """Why `value` is not a plausible year (a whole number in YEAR_MIN..YEAR_MAX), or None."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        return f"year must be a whole number, not {_json_type(value)}"
    if not YEAR_MIN <= value <= YEAR_MAX:
        digits = len(str(abs(value)))
        shown = str(value) if digits <= 24 else f"(a {digits:,}-digit number)"
        return f"year {shown} is not a plausible year ({YEAR_MIN}-{YEAR_MAX})"
    return None


def _json_type(value: object) -> str:
    names = {type(None): "null", bool: "true/false", int: "a number", float: "a number",
             str: "text", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


class ImportFormat(StrEnum):
    """The file formats Reader imports (ParseResult.format); each has one importer module."""

    SEED = "seed"
    JSONL = "jsonl"
    JSON = "json"
    CSV = "csv"
    RIS = "ris"
    BIBTEX = "bibtex"
    ARXIV = "arxiv"
    BACKUP = "backup"  # Reader's own JSON backup, read by the JSON importer


@dataclass
class Record:
    """One paper as read from an input file, before it is stored."""

    abstract: str
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    links: list[str] = field(default_factory=list)  # url, pdf, doi... in the source's order
    line: int | None = None  # 1-based line (text formats) or record number (JSON arrays)
    # Only set by Reader's own JSON backup: the paper's full saved state
    # (id, title_source, method, starred, read, tags, note, highlights, added_at, sources...).
    backup: dict[str, Any] | None = None

    def problem(self) -> str | None:
        """Why this record cannot be stored (wrong type, out of range, too long), or None."""
        try:  # the fast path every good record takes: one regex pass, no per-field messages
            short = [self.title or "", self.venue or "", self.url or "", *self.authors, *self.links]
            if (
                len(self.abstract) <= MAX_ABSTRACT_CHARS
                and max(map(len, short)) <= MAX_FIELD_CHARS
                and len(self.authors) <= MAX_LIST_ITEMS
                and len(self.links) <= MAX_LIST_ITEMS
                and storable(self.abstract)
                and storable("".join(short))  # TypeError unless all text
                and (self.year is None or type(self.year) is int and YEAR_MIN <= self.year <= YEAR_MAX)
            ):
                return None
        except TypeError:
            pass
        return self._why_unstorable()

    def _why_unstorable(self) -> str | None:
        reason = text_problem("abstract", self.abstract, MAX_ABSTRACT_CHARS, optional=False)
        for name, value in (("title", self.title), ("venue", self.venue), ("url", self.url)):
            reason = reason or text_problem(name, value, MAX_FIELD_CHARS)
        reason = reason or year_problem(self.year)
        for name, values in (("authors", self.authors), ("links", self.links)):
            if reason:
                break
            if not isinstance(values, list):
                return f"{name} must be a list of text"
            if len(values) > MAX_LIST_ITEMS:
                return f"too many {name} ({len(values):,}; the limit is {MAX_LIST_ITEMS:,})"
            for value in values:
                reason = reason or text_problem(name[:-1], value, MAX_FIELD_CHARS, optional=False)
        return reason


@dataclass
class Problem:
    """A record that was skipped, with where and why."""

    line: int | None
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}" if self.line else self.reason


@dataclass
class ParseResult:
    """What an importer read from one file; nothing is written until the whole file parsed."""

    path: str
    format: str  # an ImportFormat value
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    collection: str | None = None  # seed header, e.g. "ICML 2025 Papers"
    saved_searches: list[dict[str, str]] = field(default_factory=list)  # backup only


@dataclass
class ImportSummary:
    """The outcome of importing one file."""

    path: str
    format: str = ""
    new: int = 0
    duplicates: int = 0
    skipped: list[Problem] = field(default_factory=list)
    error: str | None = None  # the file was rejected whole; nothing was written
    new_ids: list[str] = field(default_factory=list)

    def describe(self) -> str:
        if self.error:
            return self.error
        return f"{self.path}: {self.new} new, {self.duplicates} duplicates, {len(self.skipped)} skipped"
