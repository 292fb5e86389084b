"""OpenReview API v2: a venue's accepted papers, `GET /notes?content.venueid=<id>`, paged.

As a guest (no login). Pages of `limit` notes (1,000, the API's maximum) at `offset` 0, 1000 ...
until a page comes back short. A note's fields are `content.<name>.value` (API v2; a plain value,
as API v1 wrote it, is read too): title, authors, abstract, venue ("ICLR 2025 Oral") and pdf. The
decision becomes the status (oral / spotlight / poster); links are the forum and the PDF on
openreview.net. A venue not public yet answers 403 to guests, or an empty first page."""

from __future__ import annotations

import json
from typing import Any

from reader.errors import InputFileError
from reader.importers.fields import abstract_or_empty, clean_abstract, collapse
from reader.models import EntryType, ParseResult, Problem, Record

SOURCE = "openreview"
PUBLIC = "https://openreview.net"
PAGE = 1000
NOTES_PATH = "/notes"
_STATUSES = ("oral", "spotlight", "poster")


def page_params(venue_id: str, offset: int, limit: int | None = None) -> dict[str, str]:
    return {"content.venueid": venue_id, "offset": str(offset), "limit": str(limit or PAGE)}


def status_of(decision: str) -> str | None:
    """"ICLR 2025 Oral" -> "oral"; "NeurIPS 2024 spotlight" -> "spotlight"; None if none named."""
    words = decision.lower()
    return next((s for s in _STATUSES if s in words), None)


def _value(content: dict[str, Any], name: str) -> Any:
    item = content.get(name)
    return item.get("value") if isinstance(item, dict) else item


def notes_of(body: bytes, url: str) -> list[dict[str, Any]]:
    """The notes of one page (InputFileError naming the URL when it is not a notes page)."""
    return page_of(body, url)[0]


def page_of(body: bytes, url: str) -> tuple[list[dict[str, Any]], int]:
    """The notes of one page and the venue's `count` (0 when the page does not say)."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputFileError(url, f"not an OpenReview notes page: not JSON ({exc})", line) from None
    notes = data.get("notes") if isinstance(data, dict) else None
    if not isinstance(notes, list):
        raise InputFileError(url, 'not an OpenReview notes page (no "notes" list)')
    count = data.get("count")
    return notes, count if isinstance(count, int) and not isinstance(count, bool) else 0


def parse_notes(notes: list[dict[str, Any]], url: str, *, venue: str, year: int,
                start: int = 0) -> ParseResult:
    """Records of the notes (numbered from `start` + 1 in problems)."""
    result = ParseResult(path=url, format=SOURCE)
    for number, note in enumerate(notes, start=start + 1):
        content = note.get("content") if isinstance(note, dict) else None
        if not isinstance(content, dict):
            result.problems.append(Problem(number, "note without content"))
            continue
        forum = str(note.get("forum") or note.get("id") or "")
        title = _value(content, "title")
        abstract = _value(content, "abstract")
        authors = _value(content, "authors")
        decision = _value(content, "venue")
        pdf = _value(content, "pdf")
        if not isinstance(title, str | None) or not isinstance(abstract, str | None) or \
                not isinstance(authors, list | None):
            result.problems.append(Problem(number, "title, abstract or authors of the wrong type",
                                           key=forum or None))
            continue
        links = [f"{PUBLIC}/forum?id={forum}"] if forum else []
        if isinstance(pdf, str) and pdf:
            links.append(pdf if "://" in pdf else f"{PUBLIC}{pdf if pdf.startswith('/') else '/' + pdf}")
        rec = Record(
            abstract=abstract_or_empty(clean_abstract(abstract)),
            title=collapse(title),
            authors=[name for name in (collapse(a) for a in authors or [] if isinstance(a, str)) if name],
            year=year,
            venue=venue,
            url=links[0] if links else None,
            links=links,
            line=number,
            entry_type=EntryType.INPROCEEDINGS,
        )
        rec.openreview = forum or None
        rec.status = status_of(decision) if isinstance(decision, str) else None
        if not rec.abstract and not rec.title:
            result.problems.append(Problem(number, "no title and no abstract", key=forum or None))
            continue
        result.records.append(rec)
    return result
