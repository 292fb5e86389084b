"""Crossref: a paper by its DOI (`GET /works/{doi}`), from the REST API's JSON ("message" of
message-type "work": title, author, container-title, issued/published date-parts, type, URL,
and the abstract when the publisher deposited one, as JATS XML whose tags are stripped here).

No Crossref client package is used (the JSON is read in ~60 lines). A DOI of arXiv's own
(10.48550/arXiv.*) is fetched from arXiv instead (ids.py)."""

from __future__ import annotations

import html
import json
import re
from typing import Any
from urllib.parse import quote

from ..errors import ReaderError
from ..identity import doi_key
from ..importers.fields import abstract_or_empty, collapse
from ..models import EntryType, Record
from .http import Client
from .registry import CROSSREF

_TAG = re.compile(r"<[^>]{0,500}>")
_JATS_TITLE = re.compile(r"^\s*<jats:title>\s*abstract\s*</jats:title>\s*", re.IGNORECASE)
_PARA_END = re.compile(r"</jats:p>\s*|</p>\s*", re.IGNORECASE)

_TYPES = {"journal-article": EntryType.ARTICLE, "proceedings-article": EntryType.INPROCEEDINGS,
          "book-chapter": EntryType.INCOLLECTION, "book": EntryType.BOOK, "monograph": EntryType.BOOK,
          "dissertation": EntryType.PHDTHESIS, "report": EntryType.TECHREPORT,
          "posted-content": EntryType.MISC}


class UnknownDoi(ReaderError):
    """Crossref has no work with this DOI."""


def jats_text(value: str) -> str:
    """A JATS (or HTML) abstract as text: paragraphs kept, tags stripped, entities decoded."""
    text = _JATS_TITLE.sub("", value)
    text = _PARA_END.sub("\n\n", text)
    text = html.unescape(_TAG.sub("", text))
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text)]
    return "\n\n".join(p for p in paragraphs if p)


def _year(work: dict[str, Any]) -> int | None:
    for name in ("published-print", "published-online", "published", "issued", "created"):
        parts = (work.get(name) or {}).get("date-parts") or []
        if parts and parts[0] and isinstance(parts[0][0], int):
            return parts[0][0]
    return None


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), None)
    return collapse(value) if isinstance(value, str) else None


def work_record(work: dict[str, Any]) -> Record:
    """The Record of one Crossref work."""
    doi = str(work.get("DOI") or "").strip()
    authors = []
    for a in work.get("author") or []:
        if not isinstance(a, dict):
            continue
        name = " ".join(p for p in (collapse(a.get("given")), collapse(a.get("family"))) if p)
        name = name or collapse(a.get("name")) or ""
        if name:
            authors.append(name)
    abstract = work.get("abstract")
    url = f"https://doi.org/{doi}" if doi else None
    return Record(
        abstract=abstract_or_empty(jats_text(abstract)) if isinstance(abstract, str) else "",
        title=_first(work.get("title")),
        authors=authors,
        year=_year(work),
        venue=_first(work.get("container-title")) or _first(work.get("event", {}).get("name")
                                                            if isinstance(work.get("event"), dict) else None),
        links=[u for u in dict.fromkeys([url, work.get("URL")]) if isinstance(u, str) and u],
        doi=doi or None,
        entry_type=str(_TYPES.get(str(work.get("type") or ""), EntryType.MISC)),
    )


def lookup(client: Client, doi: str, *, refresh: bool = False) -> Record:
    """The paper with this DOI; UnknownDoi when Crossref has none (404), FetchError when
    Crossref cannot be reached."""
    key = doi_key(doi) or doi.strip()
    resp = client.fetch(CROSSREF, "/works/" + quote(key, safe="/()"), refresh=refresh)
    if resp.status == 404:
        raise UnknownDoi(f"crossref: no work with DOI {key}")
    if not resp.ok:
        raise ReaderError(f"crossref: {CROSSREF.host} answered {resp.status} for DOI {key}: {resp.url}")
    try:
        data = json.loads(resp.body)
        work = data["message"]
        if not isinstance(work, dict):
            raise TypeError("message is not an object")
    except (ValueError, KeyError, TypeError) as exc:
        raise ReaderError(f"crossref: the answer for DOI {key} is not a work ({exc}): {resp.url}") from None
    return work_record(work)
