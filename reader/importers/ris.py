"""RIS database exports (TY ... ER records of two-letter tags), as written by Scopus, Zotero, WoS."""

from __future__ import annotations

import re
from typing import Any

import rispy
from rispy.config import LIST_TYPE_TAGS, TAG_KEY_MAPPING

from reader.models import (
    NO_TITLE_OR_ABSTRACT,
    EntryType,
    ImportFormat,
    ParseResult,
    Problem,
    Record,
)
from reader.text.citekeys import key_problem

from .base import Importer
from .fields import (
    abstract_or_empty,
    clean_abstract,
    collapse,
    normalize_link,
    year_and_note,
)

_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_FIRST_TAG = re.compile(r"^\s*TY  -", re.MULTILINE)

# rispy names the tags; CT, BT and J1 are unnamed there (they would land in "unknown_tag").
_MAPPING = {**TAG_KEY_MAPPING, "CT": "caption_title", "BT": "book_title", "J1": "journal_abbrev"}
TITLE_KEYS = ("title", "primary_title", "caption_title", "book_title")  # TI T1 CT BT
ABSTRACT_KEYS = ("abstract", "notes_abstract")  # AB N2
AUTHOR_KEYS = ("authors", "first_authors")  # AU A1
YEAR_KEYS = ("year", "publication_year", "date")  # PY Y1 DA
VENUE_KEYS = ("journal_name", "alternate_title3", "secondary_title", "alternate_title2",
              "alternate_title1", "journal_abbrev", "tertiary_title")  # JO JF T2 JA J2 J1 T3
# RIS reference types (TY) as BibTeX entry types; the rest (GEN, ELEC, ...) are misc.
ENTRY_TYPES = {
    "JOUR": EntryType.ARTICLE, "JFULL": EntryType.ARTICLE, "MGZN": EntryType.ARTICLE,
    "CONF": EntryType.INPROCEEDINGS, "CPAPER": EntryType.INPROCEEDINGS, "CHAP": EntryType.INCOLLECTION,
    "BOOK": EntryType.BOOK, "EBOOK": EntryType.BOOK, "EDBOOK": EntryType.BOOK, "THES": EntryType.PHDTHESIS,
    "RPRT": EntryType.TECHREPORT, "UNPB": EntryType.UNPUBLISHED, "MANSCPT": EntryType.UNPUBLISHED,
}
LINK_KEYS = ("urls", "file_attachments1", "file_attachments2", "doi")  # UR L1 L2 DO


class _Pieces(list):
    """A value's lines while a record is read, joined once at its end: appending to a growing
    string is quadratic (500k continuation lines took 6.5 s)."""

    def __init__(self, first: str, sep: str) -> None:
        super().__init__([first])
        self.sep = sep


class _Parser(rispy.RisParser):
    """rispy, with continuation lines collected in linear time; an abstract's keep their line
    breaks (they are paragraphs), other values are joined with spaces as rispy does."""

    def _add_single_value(self, record: dict, name: str, value: str | list[str],
                          is_multi: bool = False) -> None:
        if is_multi and isinstance(value, str) and name in record:
            current = record[name]
            if isinstance(current, str):
                current = record[name] = _Pieces(current, "\n" if name in ABSTRACT_KEYS else " ")
            if isinstance(current, _Pieces):
                if value or current.sep == " ":
                    current.append(value)
                return
        super()._add_single_value(record, name, value, is_multi)

    def parse_lines(self, lines):
        records = super().parse_lines(lines)
        for record in records:
            for key, value in record.items():
                if isinstance(value, _Pieces):
                    record[key] = value.sep.join(value)
        return records


# Exports repeat L1/L2/DO for several files and links: keep them all, not just the first.
_PARSER = _Parser(mapping=_MAPPING, list_tags=[*LIST_TYPE_TAGS, "L1", "L2", "DO"],
                  skip_unknown_tags=True)


def looks_like_ris(text: str, ext: str = "") -> bool:
    """True when a TY tag opens the file, after at most a short label (Ovid writes "1.")."""
    match = _FIRST_TAG.search(text[:4096])
    return match is not None and len(text[: match.start()].strip()) <= 10


def _values(fields: dict[str, Any], key: str) -> list[str]:
    value = fields.get(key)
    if value is None:
        return []
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else [str(value)]


def _first(fields: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        for value in _values(fields, key):
            if value.strip():
                return value
    return None


def _ris_key(value: str | None) -> str | None:
    """ID as a citation key: Reader's own exports write the key there, databases an accession
    number (Scopus/Lens '000-463-679-101-319', Ovid '2019-65183-001'), which is not one."""
    value = (value or "").strip()
    return value if value[:1].isalpha() and key_problem(value) is None else None


def _record(fields: dict[str, Any], line: int) -> Record | Problem:
    abstract = abstract_or_empty(clean_abstract(_first(fields, ABSTRACT_KEYS)))
    links: list[str] = []
    for key in LINK_KEYS:
        for value in _values(fields, key):
            # Local-file links (file://, internal-pdf://) are useless outside their machine.
            link = normalize_link("doi" if key == "doi" else "url", value)
            if link and link.startswith(("http://", "https://")) and link not in links:
                links.append(link)
    authors = [name for key in AUTHOR_KEYS for name in map(collapse, _values(fields, key)) if name]
    # The first plausible year of PY, Y1, DA; if none is, the first one given is reported.
    years = [year_and_note(v) for key in YEAR_KEYS for v in _values(fields, key)]
    year = next((y for y, _ in years if y), None)
    note = None if year else next((n for _, n in years if n), None)
    return Record(
        abstract=abstract,
        title=collapse(_first(fields, TITLE_KEYS)),
        authors=authors,
        year=year,
        venue=collapse(_first(fields, VENUE_KEYS)),
        url=links[0] if links else None,
        links=links,
        line=line,
        notes=[note] if note else [],
        doi=_first(fields, ("doi",)),
        citation_key=_ris_key(_first(fields, ("id",))),
        entry_type=ENTRY_TYPES.get(str(fields.get("type_of_reference") or "").strip().upper(),
                                   EntryType.MISC),
    )


def parse_ris(text: str, path: str) -> ParseResult:
    """Parse RIS text with rispy, one record at a time.

    We split the records ourselves (TY opens, ER closes) because rispy keeps no line numbers,
    merges a record that lost its ER into the next one and drops a truncated last record silently.
    """
    result = ParseResult(path=path, format=ImportFormat.RIS)
    lines = text.split("\n")
    start: int | None = None  # index of the open record's TY line
    for index, line in enumerate(lines):
        match = _TAG.match(line.rstrip())
        if not match:
            continue
        tag = match.group(1)
        if tag == "TY":
            if start is not None:  # a sloppy export forgot ER: the record is still whole
                _add(result, lines[start:index], start + 1)
            start = index
        elif tag == "ER" and start is not None:
            _add(result, lines[start:index + 1], start + 1)
            start = None
    if start is not None:  # its abstract may be cut short: skip rather than import a stub
        result.problems.append(Problem(start + 1, "record not closed with ER (truncated file?)"))
    return result


def _add(result: ParseResult, lines: list[str], line: int) -> None:
    if not lines[-1].startswith("ER"):
        lines = [*lines, "ER  - "]
    parsed = _PARSER.parse_lines(iter(lines))
    item = _record(parsed[0], line) if parsed else Problem(line, NO_TITLE_OR_ABSTRACT)
    if isinstance(item, Problem):
        result.problems.append(item)
    else:
        result.records.append(item)


IMPORTER = Importer(ImportFormat.RIS, "RIS export", (".ris",), looks_like_ris, parse_ris,
                    bound=lambda text: text.count("TY  -"))
