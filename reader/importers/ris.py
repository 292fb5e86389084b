"""RIS database exports (TY ... ER records of two-letter tags), as written by Scopus, Zotero, WoS."""

from __future__ import annotations

import re

from reader.models import ImportFormat, ParseResult, Problem, Record

from .base import Importer
from .fields import NO_ABSTRACT, clean_abstract, collapse, is_abstract, normalize_link, parse_year

_TAG = re.compile(r"^([A-Z][A-Z0-9])  -(?: (.*))?$")
_FIRST_TAG = re.compile(r"^\s*TY  -", re.MULTILINE)

TITLE_TAGS = ("TI", "T1", "CT", "BT")
ABSTRACT_TAGS = ("AB", "N2")
AUTHOR_TAGS = ("AU", "A1")
YEAR_TAGS = ("PY", "Y1", "DA")
VENUE_TAGS = ("JO", "JF", "T2", "JA", "J2", "J1", "T3")
LINK_TAGS = ("UR", "L1", "L2", "DO")


def looks_like_ris(text: str, ext: str = "") -> bool:
    """True when a TY tag opens the file, after at most a short label (Ovid writes "1.")."""
    match = _FIRST_TAG.search(text[:4096])
    return bool(match) and len(text[: match.start()].strip()) <= 10


def _first(fields: dict[str, list[str]], tags: tuple[str, ...]) -> str | None:
    for tag in tags:
        for value in fields.get(tag, []):
            if value.strip():
                return value
    return None


def _record(fields: dict[str, list[str]], line: int) -> Record | Problem:
    abstract = clean_abstract(_first(fields, ABSTRACT_TAGS))
    if not is_abstract(abstract):
        return Problem(line, NO_ABSTRACT)
    links: list[str] = []
    for tag in LINK_TAGS:
        for value in fields.get(tag, []):
            # Local-file links (file://, internal-pdf://) are useless outside their machine.
            link = normalize_link("doi" if tag == "DO" else "url", value)
            if link and link.startswith(("http://", "https://")) and link not in links:
                links.append(link)
    authors: list[str] = []
    for tag in AUTHOR_TAGS:
        authors += [name for name in (collapse(v) for v in fields.get(tag, [])) if name]
    return Record(
        abstract=abstract or "",
        title=collapse(_first(fields, TITLE_TAGS)),
        authors=authors,
        year=next((y for y in (parse_year(v) for t in YEAR_TAGS for v in fields.get(t, [])) if y),
                  None),
        venue=collapse(_first(fields, VENUE_TAGS)),
        url=links[0] if links else None,
        links=links,
        line=line,
    )


def parse_ris(text: str, path: str) -> ParseResult:
    """Parse RIS text; untagged lines continue the previous field (new line for abstracts)."""
    result = ParseResult(path=path, format=ImportFormat.RIS)
    fields: dict[str, list[str]] | None = None
    start = 0
    last_tag: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        match = _TAG.match(line.rstrip())
        if not match:
            if fields is not None and last_tag and line.strip():
                joiner = "\n" if last_tag in ABSTRACT_TAGS else " "
                fields[last_tag][-1] += joiner + line.strip()
            continue
        tag, value = match.group(1), (match.group(2) or "").strip()
        if tag == "TY":
            if fields is not None:  # a sloppy export forgot ER: the record is still whole
                _add(result, fields, start)
            fields, start, last_tag = {}, number, None
        elif tag == "ER":
            if fields is not None:
                _add(result, fields, start)
            fields, last_tag = None, None
        elif fields is not None:
            fields.setdefault(tag, []).append(value)
            last_tag = tag
    if fields is not None:  # its abstract may be cut short: skip rather than import a stub
        result.problems.append(Problem(start, "record not closed with ER (truncated file?)"))
    return result


def _add(result: ParseResult, fields: dict[str, list[str]], line: int) -> None:
    item = _record(fields, line)
    if isinstance(item, Problem):
        result.problems.append(item)
    else:
        result.records.append(item)


IMPORTER = Importer(ImportFormat.RIS, "RIS export", (".ris",), looks_like_ris, parse_ris)
