"""Where papers of different libraries meet: stable keys (DOI, arXiv id, OpenReview id, then the
normalised title + year, then the abstract's hash: reader/identity.py's keys), hashed short."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from urllib.parse import parse_qs, urlparse

_OPENREVIEW_HOST = re.compile(r"(^|\.)openreview\.net$", re.IGNORECASE)


def openreview_key(links: list[str]) -> str:
    """The OpenReview id of a forum/pdf link (`openreview.net/forum?id=X`), '' if none."""
    for link in links:
        if "openreview" not in link.lower():
            continue
        try:
            url = urlparse(link)
        except ValueError:
            continue
        if url.hostname and _OPENREVIEW_HOST.search(url.hostname):
            found = parse_qs(url.query).get("id")
            if found and found[0].strip():
                return found[0].strip()
    return ""


def paper_keys(doi: str, arxiv: str, links_json: str, title_key: str, year: int | None,
               abstract_key: str) -> list[str]:
    """The paper's key hashes, strongest first (at least one for any stored paper)."""
    try:
        # Only a link naming OpenReview gives a key: most papers' links are not parsed at all.
        links = json.loads(links_json) if links_json and ("openreview" in links_json.lower()
                                                          or "\\u" in links_json) else []
    except ValueError:
        links = []
    raw = []
    if doi:
        raw.append("doi:" + doi)
    if arxiv:
        raw.append("arxiv:" + arxiv)
    openreview = openreview_key([x for x in links if isinstance(x, str)]) if links else ""
    if openreview:
        raw.append("openreview:" + openreview)
    if title_key:
        raw.append(f"title:{title_key}|{year or ''}")
    if abstract_key:
        raw.append("abstract:" + abstract_key)
    return [_sha1(k.encode("utf-8")).hexdigest()[:16] for k in raw]  # key_hash() of each


_sha1 = hashlib.sha1


def key_hash(key: str) -> str:
    return _sha1(key.encode("utf-8")).hexdigest()[:16]


def keys_of_row(r: sqlite3.Row) -> list[str]:
    """A paper's key hashes (its id's when it has no other key)."""
    return paper_keys(r["doi"], r["arxiv"], r["links"], r["title_key"], r["year"], r["abstract_key"]) \
        or [key_hash("id:" + r["id"])]
