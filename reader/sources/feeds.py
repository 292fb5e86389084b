"""Following arXiv: a category's newest submissions since the last update, paged newest first.

`reader feed add arxiv:cs.LG [--query Q]` follows a category (Q is ANDed with it in arXiv's
query syntax, e.g. `ti:diffusion`); its papers land in the collection "arXiv cs.LG" (with the
query: "arXiv cs.LG: Q"). An update asks the API for `cat:CATEGORY` sorted by submittedDate,
newest first, PAGE entries a page (`start` = 0, 100, ...):

- the first update takes one page (the newest 100 submissions);
- a later one pages back until it reaches submissions older than the last update's newest
  minus OVERLAP (3 days): arXiv announces in batches (Sunday-Thursday evenings, none on
  weekends and holidays), so a paper submitted just before the last update's newest may be
  announced only after it; those seen again are matched, not duplicated; at most MAX_PAGES;
- a new version of a paper already held (a replacement) updates it (identity by arXiv id).

Nothing is stored here: the caller stores the records and the feed's new `newest` in one
transaction, so an update killed half-way leaves the feed as before (rerun: no gaps)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ..errors import UsageError
from ..models import Record
from . import arxiv
from .http import Client

PAGE = arxiv.PAGE
MAX_PAGES = 20
OVERLAP = timedelta(days=3)
_CATEGORY = re.compile(r"^[a-z-]+(?:\.[A-Za-z-]+)?$")


def parse_spec(spec: str) -> tuple[str, str]:
    """("arxiv", "cs.LG") from "arxiv:cs.LG"; UsageError for anything else."""
    source, sep, category = spec.strip().partition(":")
    if not sep or source.strip().lower() != "arxiv":
        raise UsageError(f"{spec}: a feed is arxiv:CATEGORY (e.g. arxiv:cs.LG)")
    category = category.strip()
    if not _CATEGORY.match(category):
        raise UsageError(f"{spec}: {category!r} is not an arXiv category (e.g. cs.LG, math.ST, hep-th)")
    return "arxiv", category


def collection_name(category: str, query: str = "") -> str:
    return f"arXiv {category}" + (f": {query.strip()}" if query.strip() else "")


@dataclass
class FeedFetch:
    records: list[Record] = field(default_factory=list)
    newest: str = ""  # the newest submission time among them (or the feed's, if newer)
    pages: int = 0


def _parse_time(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def fetch_new(client: Client, category: str, query: str = "", newest: str = "", *,
              max_pages: int = MAX_PAGES, progress: Callable[[int, str], None] | None = None) -> FeedFetch:
    """The submissions since `newest` (the last update's; '' for a first update: one page)."""
    out = FeedFetch(newest=newest)
    last = _parse_time(newest) if newest else None
    cutoff = last - OVERLAP if last is not None else None
    seen: set[str] = set()
    start = 0
    while out.pages < (max_pages if cutoff is not None else 1):
        if progress:
            progress(out.pages, f"arXiv {category}: page {out.pages + 1}")
        page = arxiv.category_page(client, category, query, start=start)
        out.pages += 1
        older = False
        for entry in page.entries:
            when = _parse_time(entry.published)
            if cutoff is not None and when is not None and when < cutoff:
                older = True
                continue
            if entry.arxiv_id.id in seen:  # a paper moved between pages while paging
                continue
            seen.add(entry.arxiv_id.id)
            out.records.append(entry.record)
            if entry.published > out.newest:
                out.newest = entry.published
        start += len(page.entries)
        if older or len(page.entries) < PAGE or (page.total is not None and start >= page.total):
            break
    return out



