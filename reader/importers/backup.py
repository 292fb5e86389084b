"""Reader's own JSON backup ("format": "reader-backup"): validate papers and saved searches."""

from __future__ import annotations

from typing import Any

from reader.errors import InputFileError
from reader.models import ParseResult, Problem, Record

from .fields import NO_ABSTRACT, clean_abstract, is_abstract

BACKUP_FORMAT = "reader-backup"
BACKUP_VERSION = 1
TITLE_SOURCES = ("derived", "imported", "edited")

_STR_LISTS = ("authors", "links", "code_links", "sources", "tags")
_OPTIONAL_STRS = (
    "id", "title", "venue", "method", "added_at", "updated_at", "note_updated_at", "note",
)
_BOOLS = ("read", "starred")


class _Invalid(Exception):
    """One field of one paper is wrong; the message is the reason."""


def _check_highlight(index: int, value: Any, abstract_len: int) -> dict[str, Any]:
    where = f"highlight {index}"
    if not isinstance(value, dict):
        raise _Invalid(f"{where} is not an object")
    start, end = value.get("start"), value.get("end")
    for name, number in (("start", start), ("end", end)):
        if not isinstance(number, int) or isinstance(number, bool):
            raise _Invalid(f"{where}: {name} must be a whole number")
    if not 0 <= start < end <= abstract_len:
        raise _Invalid(f"{where}: range {start}-{end} is outside the abstract")
    clean = {"start": start, "end": end}
    for name in ("quote", "color", "comment"):
        text = value.get(name)
        if text is not None and not isinstance(text, str):
            raise _Invalid(f"{where}: {name} must be text")
        clean[name] = text
    return clean


def check_paper(paper: Any) -> dict[str, Any]:
    """A normalised copy of one backup paper (every key present); _Invalid when a field is wrong."""
    if not isinstance(paper, dict):
        raise _Invalid("not a JSON object")
    abstract = paper.get("abstract")
    if not isinstance(abstract, str) or not is_abstract(abstract):
        raise _Invalid(NO_ABSTRACT)
    clean: dict[str, Any] = dict(paper)
    for name in _OPTIONAL_STRS:
        value = paper.get(name)
        if value is not None and not isinstance(value, str):
            raise _Invalid(f"{name} must be text")
        clean[name] = value
    if clean["note"] is None:
        clean["note"] = ""
    source = paper.get("title_source")
    if source is not None and source not in TITLE_SOURCES:
        raise _Invalid(f"title_source must be one of {', '.join(TITLE_SOURCES)}")
    clean["title_source"] = source
    year = paper.get("year")
    if year is not None and (not isinstance(year, int) or isinstance(year, bool)):
        raise _Invalid("year must be a whole number")
    clean["year"] = year
    for name in _STR_LISTS:
        value = paper.get(name, [])
        if value is None:
            value = []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _Invalid(f"{name} must be a list of text")
        clean[name] = list(value)
    for name in _BOOLS:
        value = paper.get(name, False)
        if not isinstance(value, bool):
            raise _Invalid(f"{name} must be true or false")
        clean[name] = value
    highlights = paper.get("highlights", []) or []
    if not isinstance(highlights, list):
        raise _Invalid("highlights must be a list")
    clean["highlights"] = [
        _check_highlight(i, h, len(abstract)) for i, h in enumerate(highlights, start=1)
    ]
    return clean


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
    result = ParseResult(path=path, format="backup")
    for number, paper in enumerate(papers, start=1):
        try:
            clean = check_paper(paper)
        except _Invalid as exc:
            result.problems.append(Problem(None, f"record {number}: {exc}"))
            continue
        result.records.append(
            Record(
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
        )
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
        ):
            result.saved_searches.append({"name": search["name"], "query": search["query"]})
        else:
            result.problems.append(
                Problem(None, f"saved search {number}: needs a text name and query")
            )
    return result
