"""Add by identifier: what a pasted id is (arXiv, DOI, OpenReview) and fetching them all.

Accepted: arXiv ids (new and old style, with or without a version, an `arXiv:` prefix, abs/pdf
URLs, arXiv's DOI 10.48550/arXiv.*), DOIs (bare `10.…/…`, `doi:` prefix or a doi.org URL:
Crossref), OpenReview forum ids or URLs (`https://openreview.net/forum?id=…`, `openreview:ID`, or
a bare id of 5-40 letters, digits, `-` and `_`). arXiv ids are looked up in batches.

`fetch_ids` fetches every id first (nothing is stored here): each id gets its Record or the one
line saying why it has none (not an id, or the service has no such paper). Network trouble
(FetchError: the service did not answer) stops the whole fetch, so the caller stores nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..identity import doi_key
from ..models import Record
from . import arxiv, crossref, openreview
from .http import Client

ARXIV, DOI, OPENREVIEW = "arxiv", "doi", "openreview"
_DOI_START = re.compile(r"^(?:doi:\s*|https?://(?:dx\.)?doi\.org/)?10\.\d{4,9}/\S+$", re.IGNORECASE)

Progress = Callable[[int, int, str], None] | None


@dataclass(frozen=True)
class Identifier:
    text: str  # as written
    kind: str  # arxiv | doi | openreview
    value: str  # the arXiv id (with its version if given), the DOI, the forum id


def classify(text: str) -> Identifier | None:
    """What kind of id the text is, or None when it is none of them."""
    value = text.strip()
    if not value:
        return None
    found = arxiv.parse_id(value)
    if found is not None:
        return Identifier(value, ARXIV, found.versioned)
    if _DOI_START.match(value):
        key = doi_key(value)
        if key:
            return Identifier(value, DOI, key)
    forum = openreview.parse_forum_id(value)
    if forum is not None and (value.lower().startswith(("openreview:", "http", "openreview.net"))
                              or any(c.isdigit() for c in forum) or len(forum) >= 8):
        return Identifier(value, OPENREVIEW, forum)
    return None


@dataclass
class IdResult:
    """One id's outcome: its record, or the one-line reason it has none."""

    ident: str  # as written
    record: Record | None = None
    error: str | None = None


def fetch_ids(client: Client, texts: Sequence[str], *, refresh: bool = False,
              progress: Progress = None) -> list[IdResult]:
    """Fetch the paper of each id (arXiv in batches), in the order given; raises FetchError
    (or FetchCancelled) when a service cannot be reached."""
    results = [IdResult(t.strip()) for t in texts]
    kinds: list[Identifier | None] = [classify(t) for t in texts]
    for res, kind in zip(results, kinds, strict=True):
        if kind is None:
            res.error = f"{res.ident}: not an arXiv id, DOI or OpenReview id"
    total = len(texts)
    done = 0

    def step(label: str) -> None:
        if progress:
            progress(done, total, label)

    ax = [(n, k) for n, k in enumerate(kinds) if k is not None and k.kind == ARXIV]
    if ax:
        step("Asking arXiv")
        ids = [arxiv.ArxivId(*_split_version(k.value)) for _, k in ax]
        found = arxiv.lookup(client, ids, refresh=refresh)
        for (n, _k), ident in zip(ax, ids, strict=True):
            entry = found.found.get(ident.versioned)
            if entry is not None:
                results[n].record = entry.record
            else:
                why = found.unknown.get(ident.versioned, "arXiv has no paper with this id")
                results[n].error = f"{results[n].ident}: {why}"
        done += len(ax)
    for n, k in enumerate(kinds):
        if k is None or k.kind == ARXIV:
            continue
        step(f"Asking {'Crossref' if k.kind == DOI else 'OpenReview'} for {k.value}")
        try:
            if k.kind == DOI:
                results[n].record = crossref.lookup(client, k.value, refresh=refresh)
            else:
                results[n].record = openreview.lookup(client, k.value, refresh=refresh)
        except (crossref.UnknownDoi, openreview.UnknownForum) as exc:
            results[n].error = f"{results[n].ident}: {exc}"
        done += 1
    for res in results:
        if res.record is not None and res.record.problem():
            res.error, res.record = f"{res.ident}: {res.record.problem()}", None
        elif res.record is not None and not (res.record.abstract or res.record.title):
            res.error, res.record = f"{res.ident}: the service gave neither title nor abstract", None
    step("Fetched")
    return results


def _split_version(value: str) -> tuple[str, str]:
    match = re.match(r"^(.*?)(v\d+)?$", value)
    assert match is not None
    return match.group(1), match.group(2) or ""

