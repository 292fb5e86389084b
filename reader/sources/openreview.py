"""OpenReview (API v2, as a guest): a paper by its forum id (`GET /notes?id=...`).

A v2 note is `{"id", "forum", "content": {"title": {"value": ...}, "abstract": {...},
"authors": {...}, "venue": {"value": "ICLR 2024 poster"}, "venueid": {...}, "pdf": {...}},
"cdate", "pdate", "odate", ...}` (times in ms since the epoch); the API answers
`{"notes": [...], "count": n}`. `note_record` is shared by the venue fetches.

The `openreview-py` client is not used: ~35 MB with its dependencies (pycryptodome, tld,
tqdm...) for a GET and a JSON read; our client keeps the pace, cache and retries."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from ..errors import ReaderError
from ..importers.fields import abstract_or_empty, collapse
from ..models import EntryType, Record
from .http import Client
from .registry import OPENREVIEW

SITE = "https://openreview.net"
STATUSES = ("oral", "spotlight", "poster")
_YEAR = re.compile(r"\b(19|20)\d\d\b")
_ID = re.compile(r"^[A-Za-z0-9_-]{5,40}$")


class UnknownForum(ReaderError):
    """OpenReview has no (public) note with this id."""


def value(content: dict[str, Any], name: str) -> Any:
    """A v2 content field's value (v1 notes had the value itself)."""
    field = content.get(name)
    return field.get("value") if isinstance(field, dict) else field


def status_of(venue: str | None) -> str | None:
    """oral / spotlight / poster from a venue line like "ICLR 2024 spotlight", else None."""
    words = (venue or "").lower().replace("(", " ").replace(")", " ").split()
    return next((s for s in STATUSES if s in words), None)


def note_record(note: dict[str, Any], *, venue: str | None = None) -> Record:
    """The Record of one v2 note (`venue` overrides the note's own venue line)."""
    content = note.get("content") or {}
    forum = str(note.get("forum") or note.get("id") or "")
    note_venue = collapse(value(content, "venue"))
    year = None
    match = _YEAR.search(note_venue or "") or _YEAR.search(str(value(content, "venueid") or ""))
    if match:
        year = int(match.group(0))
    else:
        stamp = note.get("pdate") or note.get("odate") or note.get("cdate")
        if isinstance(stamp, int | float) and stamp > 0:
            year = datetime.fromtimestamp(stamp / 1000, UTC).year
    links = [f"{SITE}/forum?id={forum}"] if forum else []
    pdf = value(content, "pdf")
    if isinstance(pdf, str) and pdf:
        links.append(SITE + pdf if pdf.startswith("/") else pdf)
    authors = value(content, "authors")
    abstract = value(content, "abstract")
    return Record(
        abstract=abstract_or_empty(abstract.strip()) if isinstance(abstract, str) else "",
        title=collapse(value(content, "title")),
        authors=[a for a in (collapse(x) for x in authors) if a] if isinstance(authors, list) else [],
        year=year,
        venue=venue or _venue_name(note_venue),
        links=links,
        openreview=forum or None,
        status=status_of(note_venue),
        entry_type=str(EntryType.INPROCEEDINGS if status_of(note_venue) else EntryType.MISC),
    )


def _venue_name(line: str | None) -> str | None:
    """"ICLR 2024 poster" -> "ICLR 2024" (the decision is the status, not the venue)."""
    if not line:
        return None
    words = [w for w in line.split() if w.lower().strip("()") not in STATUSES]
    return " ".join(words) or None


def parse_forum_id(text: str) -> str | None:
    """A forum id from an OpenReview URL (forum?id=, pdf?id=) or `openreview:ID`, or a bare id."""
    from ..identity import openreview_key

    value = text.strip()
    if value.lower().startswith("openreview:"):
        value = value.split(":", 1)[1].strip()
    found = openreview_key(value)
    if found:
        return found
    return value if _ID.match(value) else None


def lookup(client: Client, forum: str, *, refresh: bool = False) -> Record:
    """The paper of this forum id; UnknownForum when OpenReview has no public note for it."""
    resp = client.fetch(OPENREVIEW, "/notes", [("id", forum)], refresh=refresh)
    if resp.status in (400, 403, 404):  # a malformed id, a paper not public (yet), none
        raise UnknownForum(f"openreview: no public paper with forum id {forum}")
    if not resp.ok:
        raise ReaderError(f"openreview: {OPENREVIEW.host} answered {resp.status} for {forum}: {resp.url}")
    try:
        notes = json.loads(resp.body)["notes"]
        if not isinstance(notes, list):
            raise TypeError("notes is not a list")
    except (ValueError, KeyError, TypeError) as exc:
        raise ReaderError(f"openreview: the answer for {forum} is not a list of notes ({exc}): {resp.url}") from None
    note = next((n for n in notes if isinstance(n, dict) and (n.get("id") == forum or n.get("forum") == forum)), None)
    if note is None:
        raise UnknownForum(f"openreview: no public paper with forum id {forum}")
    return note_record(note)
