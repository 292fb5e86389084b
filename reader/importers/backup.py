"""Reader's own JSON backup ("format": "reader-backup"): validate papers and saved searches."""

from __future__ import annotations

from typing import Any

from reader.errors import InputFileError
from reader.models import (
    MAX_ABSTRACT_CHARS,
    MAX_FIELD_CHARS,
    MAX_LIST_ITEMS,
    ImportFormat,
    ParseResult,
    Problem,
    Record,
    text_problem,
    without_controls,
    year_problem,
)
from reader.text.reanchor import reanchor_quoted

from .base import collect
from .fields import clean_abstract

BACKUP_FORMAT = "reader-backup"
BACKUP_VERSION = 1
TITLE_SOURCES = ("derived", "imported", "edited")

_STR_LISTS = ("authors", "links", "code_links", "sources", "tags", "collections")
_OPTIONAL_STRS = ("id", "venue", "method", "derived_title", "collection", "added_at", "updated_at",
                  "note_updated_at", "citation_key", "entry_type", "status")
_BOOLS = ("read", "starred", "skipped")
_KEYS = frozenset(("title", "title_source", "abstract", "year", "note", "highlights", *_STR_LISTS,
                   *_OPTIONAL_STRS, *_BOOLS))  # anything else in a backup paper is dropped
MAX_NOTE_CHARS = 1_000_000
MAX_HIGHLIGHTS = 10_000
MAX_COMMENT_CHARS = 100_000


class _Invalid(Exception):
    """One field of one paper is wrong; the message is the reason."""


def _text(name: str, value: Any, limit: int = MAX_FIELD_CHARS, *, optional: bool = True,
          keep_controls: bool = False) -> Any:
    # A control character (a NUL an older Reader stored in a note or title) is dropped, never
    # the paper with it: Reader's own backup must restore every paper it holds. The abstract and
    # a highlight's quote of it stay as stored (a quote must match its abstract).
    if isinstance(value, str) and not keep_controls:
        value = without_controls(value)
    reason = text_problem(name, value, limit, optional=optional)
    if reason:
        raise _Invalid(reason)
    return value


def _check_highlight(index: int, value: Any, abstract_len: int) -> dict[str, Any]:
    where = f"highlight {index}"
    if not isinstance(value, dict):
        raise _Invalid(f"{where} is not an object")
    start, end = value.get("start"), value.get("end")
    for name, number in (("start", start), ("end", end)):
        if not isinstance(number, int) or isinstance(number, bool):
            raise _Invalid(f"{where}: {name} must be a whole number")
    assert isinstance(start, int) and isinstance(end, int)  # for mypy: checked just above
    if not 0 <= start < end <= abstract_len:
        raise _Invalid(f"{where}: range {start}-{end} is outside the abstract")
    clean = {"start": start, "end": end}
    try:
        clean["quote"] = _text("quote", value.get("quote"), MAX_ABSTRACT_CHARS, optional=False, keep_controls=True)
        clean["color"] = _text("color", value.get("color"), 64)
        clean["comment"] = _text("comment", value.get("comment"), MAX_COMMENT_CHARS)
    except _Invalid as exc:
        raise _Invalid(f"{where}: {exc}") from None
    return clean


def check_paper(paper: Any) -> dict[str, Any]:
    """A normalised copy of one backup paper (every known key present); _Invalid when a field is wrong."""
    if not isinstance(paper, dict):
        raise _Invalid("not a JSON object")
    abstract = paper.get("abstract")
    if not isinstance(abstract, str):
        raise _Invalid("abstract must be text")  # "" is a title-only paper
    _text("abstract", abstract, MAX_ABSTRACT_CHARS, keep_controls=True)
    clean: dict[str, Any] = {k: v for k, v in paper.items() if k in _KEYS}
    title = _text("title", paper.get("title"), optional=False)
    if not title.strip():
        raise _Invalid("title is empty")
    clean["title"] = title
    for name in _OPTIONAL_STRS:  # stored with their control characters (a venue's "\x08"): kept, but a NUL
        value = paper.get(name)
        value = value.replace("\x00", "") if isinstance(value, str) else value
        clean[name] = _text(name, value, 64 if name.endswith(("_at", "id")) else MAX_FIELD_CHARS, keep_controls=True)
    clean["note"] = _text("note", paper.get("note"), MAX_NOTE_CHARS) or ""
    source = paper.get("title_source")
    if source is not None and source not in TITLE_SOURCES:
        raise _Invalid(f"title_source must be one of {', '.join(TITLE_SOURCES)}")
    clean["title_source"] = source
    year = paper.get("year")
    reason = year_problem(year)
    if reason:
        raise _Invalid(reason)
    clean["year"] = year
    for name in _STR_LISTS:
        value = paper.get(name, [])
        if value is None:
            value = []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Invalid(f"{name} must be a list of text")
        if len(value) > MAX_LIST_ITEMS:
            raise _Invalid(f"too many {name} ({len(value):,}; the limit is {MAX_LIST_ITEMS:,})")
        for item in value:
            _text(name, item)
        clean[name] = list(value)
    for name in _BOOLS:
        value = paper.get(name, False)
        if not isinstance(value, bool):
            raise _Invalid(f"{name} must be true or false")
        clean[name] = value
    highlights = paper.get("highlights", []) or []
    if not isinstance(highlights, list):
        raise _Invalid("highlights must be a list")
    if len(highlights) > MAX_HIGHLIGHTS:
        raise _Invalid(f"too many highlights ({len(highlights):,}; the limit is {MAX_HIGHLIGHTS:,})")
    checked = [_check_highlight(i, h, len(abstract)) for i, h in enumerate(highlights, start=1)]
    quoted = [h for h in checked if "quote" in h]
    # Offsets made on an older plain text (before PDF damage was cleaned) are moved onto today's.
    moved = reanchor_quoted(abstract, [(h["start"], h["end"], h["quote"]) for h in quoted])
    for h, (start, end, quote) in zip(quoted, moved, strict=True):
        if end > start:
            h.update(start=start, end=end, quote=quote)
    clean["highlights"] = checked
    return clean


def _paper_record(number: int, paper: Any) -> Record | Problem:
    """One backup paper as a Record carrying its full saved state (Record.backup)."""
    try:
        clean = check_paper(paper)
    except _Invalid as exc:
        return Problem(None, f"record {number}: {exc}")
    return Record(
        abstract=clean_abstract(clean["abstract"]) or "",
        title=clean["title"],
        authors=clean["authors"],
        year=clean["year"],
        venue=clean["venue"],
        url=clean["links"][0] if clean["links"] else None,
        links=clean["links"],
        line=number,
        backup=clean,
    )


def parse_backup(data: dict[str, Any], path: str) -> ParseResult:
    """Records carrying each paper's full saved state in Record.backup, plus saved searches."""
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise InputFileError(path, "Reader backup without a valid version number")
    if version > BACKUP_VERSION:
        raise InputFileError(
            path, f"Reader backup version {version} is newer than this Reader reads ({BACKUP_VERSION})"
        )
    papers = data.get("papers")
    if not isinstance(papers, list):
        raise InputFileError(path, 'Reader backup without a "papers" list')
    result = collect(ParseResult(path=path, format=ImportFormat.BACKUP), papers, _paper_record, what="papers")
    searches = data.get("saved_searches") or []
    if not isinstance(searches, list):
        result.problems.append(Problem(None, "saved_searches is not a list"))
        searches = []
    for number, search in enumerate(searches, start=1):
        if (
            isinstance(search, dict)
            and isinstance(search.get("name"), str)
            and search["name"].strip()
            and isinstance(search.get("query"), str)
            and not text_problem("name", search["name"], MAX_FIELD_CHARS)
            and not text_problem("query", search["query"], MAX_FIELD_CHARS)
        ):
            result.saved_searches.append({"name": search["name"], "query": search["query"]})
        else:
            result.problems.append(
                Problem(None, f"saved search {number}: needs a text name and query")
            )
    return result
