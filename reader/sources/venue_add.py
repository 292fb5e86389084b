"""`reader venue add` and File -> Add a conference...: fetch a venue-year whole, then store it.

1. Every page, volume or paper page is fetched through the sources' client (`http.Client`), into
   the library's response cache (`<library>/sources/cache`); a page already cached is read from
   there (unless `refresh`), so a run killed mid-fetch resumes where it stopped and a venue
   fetched once re-adds with the network off; what the BibTeX sources' parser made of a body is
   kept beside it (`<library>/sources/parsed`, `reader.sources.parsed`), so a re-add skips the parse.
2. Only when the whole venue has been read and parsed are its papers stored, in ONE transaction
   (`Library.add_fetched`), into the collection named for it ("ICML 2025"). Papers already in the
   library (by DOI, arXiv id, OpenReview id, then title rules: `reader.identity`) are updated,
   keeping their stars, tags, notes, highlights and citation keys: again -> 0 new; a venue read
   from a second source is the same set of papers.

Offline, the source whose first page is cached is tried first, so a venue that came from its
second source (the first one 404'd) needs no network either."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ..plural import count_noun
from .cache import cache_key
from .http import Client
from .parsed import ParsedCache
from .registry import get as source_named
from .response import Response
from .venue_fetch import FetchedVenue, Progress, fetch_venue


@dataclass
class VenueAdded:
    """What one `venue add` did."""

    fetched: FetchedVenue
    new: int
    updated: int
    unchanged: int
    rejected: list[str] = field(default_factory=list)  # records the store refused, with why

    def summary(self) -> str:
        f = self.fetched
        cached = f" ({f.from_cache:,} from the cache)" if f.from_cache else ""
        left = len(f.problems) + len(self.rejected)
        left_out = f"; {left:,} left out (see below)" if left else ""
        return (f"{f.label}: {count_noun(len(f.records), 'paper')} from {f.source} — {self.new:,} new, "
                f"{self.updated:,} updated, {self.unchanged:,} unchanged; "
                f"{count_noun(f.requests, 'request')}{cached}{left_out}")

    def left_out(self) -> list[str]:
        """One line per entry not stored: the source's unreadable entries, the store's refusals."""
        return [*self.fetched.problems, *self.rejected]


class _Getter:
    """fetch_venue's `get` over a Client: the service's path and query under the base in force."""

    def __init__(self, client: Client, refresh: bool) -> None:
        self.client, self.refresh = client, refresh

    def __call__(self, source: str, path: str, params: dict[str, str] | None) -> Response:
        return self.client.fetch(source, path, dict(params) if params else None, refresh=self.refresh)

    def cached(self, source: str, path: str, params: dict[str, str] | None) -> bool:
        if self.client.cache is None or self.refresh:
            return False
        src = source_named(source)
        url = src.at(path) + (f"?{urlencode(dict(params))}" if params else "")
        return self.client.cache.get(src.name, cache_key(src.base, url)) is not None


def fetch(folder: Path, name: str, year: int, *, refresh: bool = False, source: str | None = None,
          progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> FetchedVenue:
    """The venue-year read whole (cached in `folder`'s response cache), nothing stored."""
    with Client(folder, cancelled=cancelled) as client:
        getter = _Getter(client, refresh)
        return fetch_venue(name, year, get=getter, source=source, progress=progress,
                           cancelled=cancelled, cached=getter.cached,
                           parsed=ParsedCache(folder / "sources" / "parsed"))


def add_venue(library: Any, name: str, year: int, *, refresh: bool = False, source: str | None = None,
              progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> VenueAdded:
    """Fetch the venue whole, then store it in one transaction (see the module docstring)."""
    fetched = fetch(library.paths.root, name, year, refresh=refresh, source=source, progress=progress,
                    cancelled=cancelled)
    if cancelled and cancelled():
        from .venue_fetch import VenueCancelled

        raise VenueCancelled("cancelled: nothing was stored")
    result = library.add_fetched(fetched.records, collection=fetched.label, origin=fetched.origin,
                                 progress=progress, cancelled=cancelled)
    return added(fetched, result)


def added(fetched: FetchedVenue, result: Any) -> VenueAdded:
    """The summary of a stored venue from what `Library.add_fetched` returned."""
    rejected = [f"{fetched.records[n].title or 'entry'} (line {fetched.records[n].line}): {why}"
                for n, why in getattr(result, "rejected", [])]
    return VenueAdded(fetched, result.new, result.updated, result.unchanged, rejected)
