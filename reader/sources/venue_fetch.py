"""Fetch one venue-year whole: every page or volume through the sources' HTTP client (cached),
then parse them all; nothing is stored here (`reader.sources.venue_add` stores it, at once).

`fetch_venue(name, year, get=...)` walks the catalogue's locators in order (`--source` picks
one) and uses the first that serves the venue; a locator answered by 403/404/410, or by a page
without papers, is "not served" and the next is tried. When none serves it, `NotServed` says so
in one line naming every URL tried. Network trouble (5xx after retries, refused connections,
timeouts) is the client's one-line error and stops at once: nothing is stored.

Every request goes through `get(source, path, params)`, which returns the response (served from
the cache when it is there, unless refreshing). A kill mid-fetch leaves the pages fetched so far
in the cache: the next run reads them from there and asks only for the rest."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from reader.errors import ReaderError, UsageError
from reader.models import ParseResult, Record

from . import acl, cvf, openreview_venue, pmlr
from .catalogue import KnownVenue, Locator, check_year, locators, venue
from .parsed import Parsed, ParsedCache
from .response import Response

MAX_OPENREVIEW_PAGES = 200  # 200,000 notes: far over any venue; a server ignoring offset stops here
NOT_SERVED_STATUSES = frozenset({403, 404, 410})


Getter = Callable[[str, str, "dict[str, str] | None"], Response]  # (source, path, params)
Progress = Callable[[int, int, str], None]  # (done, total or 0 when unknown, what)


class NotServed(ReaderError):
    """No source could give this venue-year (yet)."""


class VenueCancelled(ReaderError):
    """The user cancelled the fetch; nothing was stored."""


class _Absent(Exception):
    def __init__(self, url: str, why: str) -> None:
        super().__init__(f"{url} ({why})")


@dataclass
class FetchedVenue:
    """A venue-year read whole from one source."""

    venue: KnownVenue
    year: int
    source: str
    records: list[Record]
    problems: list[str] = field(default_factory=list)  # entries left out, each naming URL and line
    requests: int = 0
    from_cache: int = 0
    ident: str = ""  # what the source calls it: PMLR volume, venue id, collection, conference

    @property
    def label(self) -> str:
        return self.venue.label(self.year)

    @property
    def origin(self) -> str:
        """The fetch as the papers' sources and the import log name it: "pmlr:v84", "openreview:ICLR.cc/2025/Conference"."""
        return f"{self.source}:{'v' if self.source == 'pmlr' else ''}{self.ident}"


class _Run:
    def __init__(self, get: Getter, progress: Progress | None, cancelled: Callable[[], bool] | None,
                 parsed: ParsedCache | None = None) -> None:
        self._get, self._progress, self._cancelled, self._parsed = get, progress, cancelled, parsed
        self.requests = self.from_cache = 0

    def parse(self, source: str, reply: Response, args: tuple[object, ...], parse: Callable[[], Parsed]) -> Parsed:
        """What `parse()` makes of the reply's body (from the parsed cache when there is one)."""
        if self._parsed is None:
            return parse()
        return self._parsed.parse(source, reply.body, (reply.url, *args), parse)

    def get(self, source: str, path: str, params: dict[str, str] | None = None) -> Response:
        if self._cancelled and self._cancelled():
            raise VenueCancelled("cancelled: nothing was stored")
        reply = self._get(source, path, params)
        self.requests += 1
        self.from_cache += bool(reply.from_cache)
        if reply.status in NOT_SERVED_STATUSES:
            raise _Absent(reply.url, f"{reply.status} {_REASONS.get(reply.status, '')}".strip())
        if reply.status >= 400:
            raise ReaderError(f"{source}: {reply.url} answered {reply.status}")
        return reply

    def progress(self, done: int, total: int, what: str) -> None:
        if self._progress:
            self._progress(done, total, what)


_REASONS = {403: "Forbidden", 404: "Not Found", 410: "Gone"}


def _status_of(exc: BaseException) -> int | None:
    """The HTTP status an error of the client carries, if any (403/404 mean "not there")."""
    for name in ("status", "status_code", "code"):
        value = getattr(exc, name, None)
        if isinstance(value, int):
            return value
    return None


def _pmlr(run: _Run, loc: Locator, v: KnownVenue, year: int) -> tuple[list[Record], list[str]]:
    run.progress(0, 1, f"PMLR volume {loc.ident}")
    reply = run.get("pmlr", pmlr.volume_path(loc.ident))
    records, problems = run.parse("pmlr", reply, (loc.ident, v.short, year), lambda: _lines(
        reply.url, pmlr.parse_volume(reply.body, reply.url, volume=loc.ident, venue=v.short, year=year)))
    if not records:
        raise _Absent(reply.url, "no papers")
    run.progress(1, 1, f"PMLR volume {loc.ident}")
    return records, problems


def _acl(run: _Run, loc: Locator, v: KnownVenue, year: int) -> tuple[list[Record], list[str]]:
    run.progress(0, 1, f"ACL Anthology {loc.ident}")
    reply = run.get("acl", acl.collection_path(loc.ident))
    records, problems = run.parse("acl", reply, (loc.ident, loc.volume, v.short, year), lambda: _lines(
        reply.url, acl.parse_collection(reply.body, reply.url, venue=v.short, year=year, volume=loc.volume)))
    if not records:
        raise _Absent(reply.url, "no papers")
    run.progress(1, 1, f"ACL Anthology {loc.ident}")
    return records, problems


def _lines(url: str, result: ParseResult) -> Parsed:
    return result.records, [f"{url}: {p}" for p in result.problems]


def _openreview(run: _Run, loc: Locator, v: KnownVenue, year: int) -> tuple[list[Record], list[str]]:
    records: list[Record] = []
    problems: list[str] = []
    seen: set[str] = set()
    total = 0
    first_url = ""
    for page in range(MAX_OPENREVIEW_PAGES):
        offset = page * openreview_venue.PAGE
        run.progress(len(seen), total, f"OpenReview {loc.ident}")
        reply = run.get("openreview", openreview_venue.NOTES_PATH, openreview_venue.page_params(loc.ident, offset))
        first_url = first_url or reply.url
        notes, count = openreview_venue.page_of(reply.body, reply.url)
        total = max(total, count)
        fresh = [n for n in notes if not (isinstance(n, dict) and str(n.get("id")) in seen)]
        if notes and not fresh:
            raise ReaderError(f"openreview: {reply.url} repeats the previous page (offset ignored?)")
        seen.update(str(n.get("id")) for n in fresh if isinstance(n, dict))
        result = openreview_venue.parse_notes(fresh, reply.url, venue=v.short, year=year, start=offset)
        records += result.records
        problems += [f"{reply.url}: {p}" for p in result.problems]
        if len(notes) < openreview_venue.PAGE:
            break
    else:
        raise ReaderError(f"openreview: {loc.ident} has more than {MAX_OPENREVIEW_PAGES} pages")
    if not records:
        raise _Absent(first_url, "no accepted papers listed")
    run.progress(len(seen), len(seen), f"OpenReview {loc.ident}")
    return records, problems


def _cvf(run: _Run, loc: Locator, v: KnownVenue, year: int) -> tuple[list[Record], list[str]]:
    run.progress(0, 0, f"CVF {loc.ident} listing")
    reply = run.get("cvf", cvf.listing_path(loc.ident), dict(cvf.LISTING_PARAMS))
    try:
        listed = cvf.parse_listing(reply.body, reply.url)
    except ReaderError:
        raise _Absent(reply.url, "no papers listed") from None
    records, problems = [], []
    for number, paper in enumerate(listed, start=1):
        run.progress(number - 1, len(listed), f"CVF {loc.ident} paper pages")
        page = run.get("cvf", cvf.page_path(reply.url, paper.page))
        abstract = cvf.parse_abstract(page.body, page.url)
        if not abstract:
            problems.append(f"{page.url}: no abstract on the paper's page (kept with its title)")
        records.append(cvf.record(paper, abstract, venue=v.short, year=year))
    run.progress(len(listed), len(listed), f"CVF {loc.ident} paper pages")
    return records, problems


_FETCHERS = {"pmlr": _pmlr, "acl": _acl, "openreview": _openreview, "cvf": _cvf}


def first_request(loc: Locator) -> tuple[str, str, dict[str, str] | None]:
    """(source, path, params) of the locator's first request."""
    if loc.source == "pmlr":
        return "pmlr", pmlr.volume_path(loc.ident), None
    if loc.source == "acl":
        return "acl", acl.collection_path(loc.ident), None
    if loc.source == "cvf":
        return "cvf", cvf.listing_path(loc.ident), dict(cvf.LISTING_PARAMS)
    return "openreview", openreview_venue.NOTES_PATH, openreview_venue.page_params(loc.ident, 0)


def fetch_venue(name: str, year: int, *, get: Getter, source: str | None = None,
                progress: Progress | None = None, cancelled: Callable[[], bool] | None = None,
                cached: Callable[[str, str, dict[str, str] | None], bool] | None = None,
                parsed: ParsedCache | None = None) -> FetchedVenue:
    """The venue-year's papers from the first source that serves it (see the module docstring).
    `cached(source, path, params)` says whether a request is in the cache: a locator whose first
    request is cached is tried first (a venue re-added offline comes from where it came before).
    `parsed` keeps what the BibTeX sources' parser made of a body (a re-add skips the parse)."""
    v = venue(name)
    check_year(year)
    found = locators(v.name, year)
    if source:
        found = [loc for loc in found if loc.source == source]
        if not found:
            known = ", ".join(sorted({loc.source for loc in locators(v.name, year)})) or "none"
            raise UsageError(f"{v.name} {year}: source {source!r} does not serve it (sources: {known})")
    if not found:
        raise NotServed(f"{v.name} {year}: no source serves it; `reader venue list` shows the years "
                        "Reader knows")
    if cached is not None:
        found.sort(key=lambda loc: not cached(*first_request(loc)))  # stable: cached ones first
    tried: list[str] = []
    run = _Run(get, progress, cancelled, parsed)
    for loc in found:
        try:
            records, problems = _FETCHERS[loc.source](run, loc, v, year)
        except _Absent as exc:
            tried.append(f"{loc.source} {exc}")
            continue
        except ReaderError as exc:
            status = _status_of(exc)
            if status not in NOT_SERVED_STATUSES:
                raise
            tried.append(f"{loc.source} {exc}")
            continue
        return FetchedVenue(v, year, loc.source, records, problems, run.requests, run.from_cache, loc.ident)
    raise NotServed(f"{v.name} {year}: not available yet; tried " + "; ".join(tried))
