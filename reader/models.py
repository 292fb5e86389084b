"""Plain data passed between importers, the store, the index and the exporters."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

_WS = re.compile(r"\s+")


def normalize_abstract(text: str) -> str:
    """The form of an abstract that identity is computed from: NFKC, casefolded, single spaces."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def paper_id_for(abstract: str) -> str:
    """Stable 16-hex-digit id from the normalised abstract, so re-imports collapse."""
    return hashlib.sha1(normalize_abstract(abstract).encode("utf-8")).hexdigest()[:16]


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
    format: str  # "seed" | "jsonl" | "json" | "csv" | "backup"
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
