"""Plain data passed between importers, the store, the index and the exporters."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypedDict

from .plural import count_noun


def normalize_abstract(text: str) -> str:
    """The form of an abstract that identity is computed from: NFKC, casefolded, single spaces."""
    # The import computes this for every record. str.split() breaks at exactly the
    # characters re's \s matches (str.isspace); every one of them but " " is unprintable,
    # so printable text without double or outer spaces is already collapsed.
    text = unicodedata.normalize("NFKC", text)
    if not text.isprintable() or "  " in text or text[:1] == " " or text[-1:] == " ":
        text = " ".join(text.split())
    return text.casefold()


def paper_id_for(abstract: str) -> str:
    """Stable 16-hex-digit id from the normalised abstract, so re-imports collapse."""
    return hashlib.sha1(normalize_abstract(abstract).encode("utf-8")).hexdigest()[:16]


# What a stored paper may hold: the index and SQLite must never see a value they cannot keep.
YEAR_MIN, YEAR_MAX = 1000, 2200
MAX_ABSTRACT_CHARS = 100_000
MAX_FIELD_CHARS = 2_000  # a title, venue, author name or link
MAX_LIST_ITEMS = 5_000  # authors or links of one paper (big-physics papers list ~3,000 authors)


_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def without_controls(text: str) -> str:
    """`text` without C0 control characters (NUL, bell, escape...) and DEL; tabs and line breaks
    stay. Notes and titles are stored so, whatever the entry point (the CLI's --file, the window,
    a vault file, YAML's "\\0", a backup), and exports write so: no reader sees such a character,
    SQLite's C API and Whoosh cut text at a NUL, and a file holding one is not text to import."""
    return _CONTROLS.sub("", text) if _CONTROLS.search(text) else text


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
    CSLJSON = "csljson"  # CSL-JSON (Zotero, Better BibTeX, pandoc)


@dataclass
class Record:
    """One paper as read from an input file, before it is stored ("" abstract: title-only)."""

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
    # Values the importer left out of an imported record ("year -5 ignored"), for the summary.
    notes: list[str] = field(default_factory=list)
    doi: str | None = None  # as given (a bare DOI or a resolver URL); links may hold one too
    arxiv: str | None = None  # an arXiv id, when the entry names one
    groups: list[str] = field(default_factory=list)  # the file's groups/collections it is in
    # The entry's own citation key (BibTeX key, CSL-JSON id/citation-key) and kind (article,
    # inproceedings, ...: EntryType values), when the format has them.
    citation_key: str | None = None
    entry_type: str | None = None
    # Fetched papers (reader/sources): the OpenReview forum id, and how the venue accepted the
    # paper (oral, spotlight, poster...) when the source says.
    openreview: str | None = None
    status: str | None = None

    def problem(self) -> str | None:
        """Why this record cannot be stored (wrong type, out of range, too long), or None."""
        try:  # the fast path every good record takes: one regex pass, no per-field messages
            short = [self.title or "", self.venue or "", self.url or "", *self.authors, *self.links]
            if (
                (self.abstract or self.title)
                and len(self.abstract) <= MAX_ABSTRACT_CHARS
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
        if not reason and not self.abstract and not (isinstance(self.title, str) and self.title.strip()):
            return NO_TITLE_OR_ABSTRACT
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


NO_TITLE_OR_ABSTRACT = "no title and no abstract"


@dataclass
class Problem:
    """A record that was skipped (or a value left out), with where and why.

    `cause` groups problems in the summary ("unbalanced brace"); `reason` by default.
    `key` is the entry's own key (a BibTeX citation key) when it has one."""

    line: int | None
    reason: str
    key: str | None = None
    cause: str | None = None

    @property
    def where(self) -> str:
        """ "line 812 (smith2019)", "line 812", "smith2019" or ""."""
        where = f"line {self.line}" if self.line else ""
        if self.key:
            where = f"{where} ({self.key})" if where else self.key
        return where

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}" if self.where else self.reason


@dataclass
class ParseResult:
    """What an importer read from one file; nothing is written until the whole file parsed."""

    path: str
    format: str  # an ImportFormat value
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)  # imported records' ignored values
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
    notes: list[Problem] = field(default_factory=list)  # imported, but a value was ignored
    error: str | None = None  # the file was rejected whole; nothing was written
    new_ids: list[str] = field(default_factory=list)
    entries: int = 0  # records read from the file (kept or rejected)
    without_abstract: int = 0  # of the kept ones: title-only papers
    merged: int = 0  # of the duplicates: stored papers that gained fields from the file
    # A folder's own summary (before its files'): the names in it that are not paper files.
    passed_over: list[str] | None = None

    def describe(self) -> str:
        """One line: "lib.bib: 5,137 entries: 5,120 new, 12 duplicates, 3,101 without
        abstract, 5 rejected — first: line 812 unbalanced brace"."""
        if self.error:
            return self.error
        if self.passed_over is not None:
            names = ", ".join(self.passed_over[:5]) + (", …" if len(self.passed_over) > 5 else "")
            return (f"{self.path}: passed over {count_noun(len(self.passed_over), 'file')} that "
                    f"{'is not a paper file' if len(self.passed_over) == 1 else 'are not paper files'}"
                    + (f" ({names})" if names else ""))
        parts = [f"{self.new:,} new", count_noun(self.duplicates, "duplicate")]
        if self.without_abstract:
            parts.append(f"{self.without_abstract:,} without abstract")
        parts.append(f"{len(self.skipped):,} rejected")
        if self.notes:
            parts.append(f"{len(self.notes):,} with values ignored")
        line = f"{self.path}: {count_noun(self.entries, 'entry')}: {', '.join(parts)}"
        if self.skipped:
            line += f" — first: {self.skipped[0]}"
        return line


class TitleSource(StrEnum):
    """Where a paper's shown title came from."""

    DERIVED = "derived"  # made from the abstract
    IMPORTED = "imported"  # given by the input file
    EDITED = "edited"  # typed by the user


class ViewKind(StrEnum):
    """What a sidebar entry selects."""

    ALL = "all"
    UNREAD = "unread"
    READ = "read"
    STARRED = "starred"
    NOTES = "notes"
    COLLECTION = "collection"
    VENUE = "venue"  # value: the venue's key (venues.venue_name)
    TAG = "tag"
    LIKE_STARRED = "like_starred"  # ranked by similarity to the starred papers
    LIKE_TAG = "like_tag"  # ranked by similarity to a tag's papers
    NEW = "new"  # the followed feeds' papers not yet read or skipped, best first (triage's learner)


class ExportKind(StrEnum):
    """What an export writes."""

    READING_LIST = "reading_list"  # one Markdown file
    PER_PAPER = "per_paper"  # a folder of Markdown files
    JSON = "json"  # the full backup
    BIBTEX = "bibtex"  # for citing: a .bib file
    CSLJSON = "csljson"  # for citing: CSL-JSON (pandoc, citeproc, Zotero)
    RIS = "ris"  # for citing: RIS (EndNote, Mendeley, RefWorks)

    @property
    def citing(self) -> bool:
        """A bibliography format (one entry per paper, with citation keys)."""
        return self in (ExportKind.BIBTEX, ExportKind.CSLJSON, ExportKind.RIS)


class EntryType(StrEnum):
    """What kind of publication a paper is, by its BibTeX entry type (the exports' types)."""

    ARTICLE = "article"  # in a journal
    INPROCEEDINGS = "inproceedings"  # in a conference's or workshop's proceedings
    INCOLLECTION = "incollection"  # a chapter of an edited book
    BOOK = "book"
    PHDTHESIS = "phdthesis"
    MASTERSTHESIS = "mastersthesis"
    TECHREPORT = "techreport"
    UNPUBLISHED = "unpublished"
    MISC = "misc"  # a preprint, web page... or not known

    @classmethod
    def from_bibtex(cls, name: str) -> EntryType:
        """The type of a BibTeX/biblatex entry type name (unknown ones are misc)."""
        name = name.strip().lower()
        name = {"conference": "inproceedings", "inbook": "incollection", "thesis": "phdthesis",
                "report": "techreport", "masterthesis": "mastersthesis"}.get(name, name)
        try:
            return cls(name)
        except ValueError:
            return cls.MISC


class HighlightColour(StrEnum):
    """The highlight colours; stored by name, each rendered with its own hex."""

    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    PINK = "pink"
    PURPLE = "purple"

    @property
    def hex(self) -> str:
        return _COLOUR_HEX[self]

    @classmethod
    def parse(cls, value: str) -> HighlightColour | None:
        """The colour a name or a known hex value stands for; None when it is neither."""
        key = value.strip().lower()
        try:
            return cls(key)
        except ValueError:
            return _LEGACY_HEX.get(key)

    @classmethod
    def coerce(cls, value: str | None) -> HighlightColour:
        """Like parse, for stored or backed-up values: anything unknown was always shown yellow."""
        return (cls.parse(value) if value else None) or cls.YELLOW


_COLOUR_HEX = {
    HighlightColour.YELLOW: "#fff1a8",
    HighlightColour.GREEN: "#c8f0c0",
    HighlightColour.BLUE: "#c6ddff",
    HighlightColour.PINK: "#ffc9de",
    HighlightColour.PURPLE: "#e2d4ff",
}
# Hex values older versions stored (the CLI's default, the renderer's default) and our own.
_LEGACY_HEX = {
    "#ffe066": HighlightColour.YELLOW,
    "#ffe08a": HighlightColour.YELLOW,
    **{hexval: colour for colour, hexval in _COLOUR_HEX.items()},
}


@dataclass(kw_only=True)
class Highlight:
    """A highlighted span of a paper's plain-text abstract, with an optional comment."""

    id: int | None = None  # None until stored (and in backups)
    start: int
    end: int
    quote: str = ""
    color: HighlightColour = HighlightColour.YELLOW
    comment: str = ""

    def to_dict(self, *, with_id: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id} if with_id else {}
        out.update(start=self.start, end=self.end, quote=self.quote, color=str(self.color),
                   comment=self.comment)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Highlight:
        return cls(id=d.get("id"), start=int(d["start"]), end=int(d["end"]), quote=d.get("quote") or "",
                   color=HighlightColour.coerce(d.get("color")), comment=d.get("comment") or "")


@dataclass(kw_only=True)
class Paper:
    """One stored paper with everything the user added to it (the backup and snapshot unit)."""

    id: str
    title: str
    title_source: TitleSource = TitleSource.IMPORTED
    derived_title: str = ""
    abstract: str
    venue: str = ""
    year: int | None = None
    authors: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    code_links: list[str] = field(default_factory=list)
    method: str = ""
    collection: str = ""  # the first collection it came in (the file it was imported from)
    collections: list[str] = field(default_factory=list)  # every collection holding it (files, groups)
    sources: list[str] = field(default_factory=list)
    added_at: str = ""  # ISO timestamps; empty until stored
    updated_at: str = ""
    read: bool = False
    starred: bool = False
    skipped: bool = False  # "not for me": a triage decision (the learner's negatives)
    tags: list[str] = field(default_factory=list)
    note: str = ""
    note_updated_at: str | None = None
    highlights: list[Highlight] = field(default_factory=list)
    citation_key: str = ""  # unique in the library; made once when stored (reader.text.citekeys)
    entry_type: str = ""  # an EntryType value, or "" when the source did not say
    status: str = ""  # how its venue accepted it (oral, spotlight, poster) when a source said
    # Where the store kept it (its rowid: the tie-breaker of the list's order), so an undone
    # delete puts it back in its place. Not the paper's content: not compared, not exported.
    position: int | None = field(default=None, compare=False, repr=False)

    def to_dict(self, *, highlight_ids: bool = True) -> dict[str, Any]:
        """The JSON shape of backups and `reader show --json` (key order kept)."""
        return {
            "id": self.id, "title": self.title, "title_source": str(self.title_source),
            "derived_title": self.derived_title, "abstract": self.abstract, "venue": self.venue,
            "year": self.year, "authors": list(self.authors), "links": list(self.links),
            "code_links": list(self.code_links), "method": self.method, "collection": self.collection,
            "collections": list(self.collections), "sources": list(self.sources), "added_at": self.added_at,
            "updated_at": self.updated_at, "read": self.read, "starred": self.starred, "skipped": self.skipped,
            "tags": list(self.tags), "note": self.note,
            "note_updated_at": self.note_updated_at,
            "highlights": [h.to_dict(with_id=highlight_ids) for h in self.highlights],
            "citation_key": self.citation_key, "entry_type": self.entry_type,
            **({"status": self.status} if self.status else {}),  # fetched papers only
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Paper:
        """A paper from a backup's (already validated) dict; absent fields take their defaults."""
        title = d.get("title") or ""
        return cls(
            id=d["id"], title=title, title_source=TitleSource(d.get("title_source") or TitleSource.IMPORTED),
            derived_title=d.get("derived_title") or title, abstract=d["abstract"],
            venue=d.get("venue") or "", year=d.get("year"), authors=list(d.get("authors") or []),
            links=list(d.get("links") or []), code_links=list(d.get("code_links") or []),
            method=d.get("method") or "", collection=d.get("collection") or "",
            collections=list(d.get("collections") or []),
            sources=list(d.get("sources") or []), added_at=d.get("added_at") or "",
            updated_at=d.get("updated_at") or "", read=bool(d.get("read")), starred=bool(d.get("starred")),
            skipped=bool(d.get("skipped")),
            tags=list(d.get("tags") or []), note=d.get("note") or "", note_updated_at=d.get("note_updated_at"),
            highlights=[Highlight.from_dict(h) for h in d.get("highlights") or []],
            citation_key=d.get("citation_key") or "", entry_type=d.get("entry_type") or "",
            status=d.get("status") or "",
        )


# ------------------------------------------------------------------ the Library's records
# Typed records the Library returns; plain dicts (JSON and test comparisons as before), typed for mypy.
class SavedSearch(TypedDict):
    """A saved search (Library.saved_searches)."""

    id: int
    name: str
    query: str


class ImportLogEntry(TypedDict):
    """One imported file (Library.imports_log): the imports table's row."""

    id: int
    path: str
    format: str
    imported_at: str
    new: int
    duplicates: int
    skipped: int
    problems: str  # a JSON list of the problems' texts


class TriageSignals(TypedDict):
    """What the user told triage, in one read (Library.triage_signals)."""

    starred: list[str]
    skipped: list[str]
    read: list[str]  # read, neither starred nor skipped
    tagged: dict[str, list[str]]  # each tag's papers
    noted: list[str]  # with a note or a highlight
