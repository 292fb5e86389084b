"""arXiv: papers by id (`id_list`, batched) and a category's newest submissions (`search_query`),
read from the API's Atom feed (the 2025+ format and the older one alike).

Requests carry the query the `arxiv` Python client sends (search_query, id_list, sortBy,
sortOrder, start, max_results, in that order), so recordings of it replay. The `arxiv` package
itself is not used: it brings requests and feedparser (~16 MB with lxml) for what is ~150
lines here, and would need its own pace and cache besides ours.

Ids: new style `2401.01234` (4-5 digits, optional `v2`), old style `hep-th/9901001` (archive
with an optional subject class), with or without an `arXiv:` prefix, or an abs/pdf URL
(`https://arxiv.org/abs/2401.01234v2`, `/pdf/2401.01234.pdf`), or arXiv's DOI
(10.48550/arXiv.2401.01234)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring

from ..errors import ReaderError
from ..importers.fields import abstract_or_empty, collapse
from ..models import EntryType, Record
from .http import Client
from .registry import ARXIV
from .response import Response

ATOM = "{http://www.w3.org/2005/Atom}"
NS_ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
BATCH = 100  # ids per id_list request (the API's page)
PAGE = 100  # entries per category page

_NEW_ID = r"\d{4}\.\d{4,5}"
_OLD_ID = r"[a-z][a-z-]*(?:\.[a-z]{2})?/\d{7}"
_ID = re.compile(rf"^(?P<id>{_NEW_ID}|{_OLD_ID})(?P<v>v\d+)?$", re.IGNORECASE)
_URL = re.compile(r"^(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf|html)/(?P<rest>[^?#]+?)(?:\.pdf)?/?(?:[?#].*)?$",
                  re.IGNORECASE)
_DOI = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)?10\.48550/arxiv\.(?P<rest>.+)$", re.IGNORECASE)
_PREFIX = re.compile(r"^arxiv:\s*", re.IGNORECASE)
_YEAR = re.compile(r"^(\d{4})-")


@dataclass(frozen=True)
class ArxivId:
    """An arXiv id: `id` without version (old-style archive lower-cased), `version` ('v2') or ''."""

    id: str
    version: str = ""

    @property
    def versioned(self) -> str:
        return self.id + self.version

    def __str__(self) -> str:
        return self.versioned


def parse_id(text: str) -> ArxivId | None:
    """The arXiv id a user wrote (id, arXiv: prefix, abs/pdf URL, arXiv DOI), or None."""
    value = text.strip()
    for pattern in (_URL, _DOI):
        match = pattern.match(value)
        if match:
            value = match.group("rest")
            break
    else:
        value = _PREFIX.sub("", value)
    match = _ID.match(value)
    if not match:
        return None
    ident = match.group("id")
    if "/" in ident:
        archive, number = ident.split("/")
        ident = f"{archive.lower()}/{number}"
    return ArxivId(ident, (match.group("v") or "").lower())


@dataclass
class Entry:
    """One paper of a feed, with what following a category needs besides its Record."""

    record: Record
    arxiv_id: ArxivId
    published: str  # the first version's submission time (UTC ISO), as the feed gives it
    updated: str


@dataclass
class Feed:
    entries: list[Entry] = field(default_factory=list)
    total: int | None = None  # opensearch:totalResults
    error: str | None = None  # the API's error feed ("incorrect id format for abc")


def parse_feed(body: bytes, url: str) -> Feed:
    """The entries of an arXiv API Atom response (or its error); ReaderError if not a feed."""
    try:
        root = fromstring(body)
    except (ET.ParseError, DefusedXmlException) as exc:
        raise ReaderError(f"arxiv: the answer is not an Atom feed ({exc}): {url}") from None
    if root.tag != f"{ATOM}feed":
        raise ReaderError(f"arxiv: the answer is not an Atom feed (<{root.tag}>): {url}")
    feed = Feed()
    total = (root.findtext(f"{OPENSEARCH}totalResults") or "").strip()
    feed.total = int(total) if total.isdigit() else None
    for entry in root.iter(f"{ATOM}entry"):
        ident = (entry.findtext(f"{ATOM}id") or "").strip()
        if "/api/errors" in ident or (entry.findtext(f"{ATOM}title") or "").strip() == "Error":
            feed.error = collapse(entry.findtext(f"{ATOM}summary")) or "error"
            continue
        parsed = entry_record(entry)
        if parsed is not None:
            feed.entries.append(parsed)
    return feed


def entry_record(entry: ET.Element) -> Entry | None:
    """The Record of one <entry> (None when its id is not an arXiv id)."""
    ident = parse_id((entry.findtext(f"{ATOM}id") or "").strip())
    if ident is None:
        return None
    summary = abstract_or_empty((entry.findtext(f"{ATOM}summary") or "").strip())
    # The API hard-wraps some summaries: join the lines back into paragraphs.
    abstract = "\n\n".join(" ".join(p.split()) for p in re.split(r"\n\s*\n", summary)) if summary else ""
    published = (entry.findtext(f"{ATOM}published") or "").strip()
    year = _YEAR.match(published)
    links = [ln.get("href", "").strip() for ln in entry.findall(f"{ATOM}link") if ln.get("href")]
    links = [_https(u) for u in links if u]
    doi = (entry.findtext(f"{NS_ARXIV}doi") or "").strip() or None
    if doi and not any(doi in u for u in links):
        links.append(f"https://doi.org/{doi}")
    abs_url = f"https://arxiv.org/abs/{ident.versioned}"
    record = Record(
        abstract=abstract,
        title=collapse(entry.findtext(f"{ATOM}title")),
        authors=[n for n in (collapse(a.findtext(f"{ATOM}name")) for a in entry.findall(f"{ATOM}author")) if n],
        year=int(year.group(1)) if year else None,
        venue="arXiv",  # journal_ref is a citation string, not a venue to group by
        links=list(dict.fromkeys([abs_url, *links])),
        doi=doi,
        arxiv=ident.versioned,
        entry_type=str(EntryType.MISC),
    )
    return Entry(record, ident, published, (entry.findtext(f"{ATOM}updated") or "").strip())


def _https(url: str) -> str:
    return "https://" + url[len("http://"):] if url.startswith("http://arxiv.org/") else url


def query_params(*, search: str = "", ids: Iterable[str] = (), sort_by: str = "relevance",
                 start: int = 0, max_results: int = BATCH) -> list[tuple[str, str | int]]:
    """The API query, in the order (and spelling) the `arxiv` client sends it."""
    return [("search_query", search), ("id_list", ",".join(ids)), ("sortBy", sort_by),
            ("sortOrder", "descending"), ("start", start), ("max_results", max_results)]


@dataclass
class Lookup:
    """Papers found by id (in the order asked, the key being the id as asked) and the ids the
    API does not know, each with why."""

    found: dict[str, Entry] = field(default_factory=dict)
    unknown: dict[str, str] = field(default_factory=dict)


def lookup(client: Client, ids: Iterable[ArxivId], *, refresh: bool = False,
           progress: Callable[[int, int], None] | None = None) -> Lookup:
    """Fetch papers by id, BATCH ids per request. An id the API has no paper for (an empty
    feed, or its error feed) is in `unknown`; network trouble raises FetchError.

    Each paper found is also cached as the answer to a request for its id alone (its entry's
    bytes in the batch's feed), so adding it again, alone or in another batch, needs no
    network; refresh=True asks arXiv again for every id."""
    wanted = list(dict.fromkeys(ids))
    out = Lookup()
    pending: list[ArxivId] = []
    for ident in wanted:
        cached = None if refresh else client.cached(ARXIV, "/api/query", query_params(ids=[ident.versioned]))
        entry = _entry_for(parse_feed(cached.body, cached.url), ident) if cached is not None else None
        if entry is not None:
            out.found[ident.versioned] = entry
        else:
            pending.append(ident)
    for start in range(0, len(pending), BATCH):
        part = pending[start:start + BATCH]
        if progress:
            progress(start, len(pending))
        _lookup_batch(client, part, refresh, out)
    if progress:
        progress(len(pending), len(pending))
    return Lookup({i.versioned: out.found[i.versioned] for i in wanted if i.versioned in out.found},
                  {i.versioned: out.unknown[i.versioned] for i in wanted if i.versioned in out.unknown})


def _entry_for(feed: Feed, ident: ArxivId) -> Entry | None:
    return next((e for e in feed.entries if e.arxiv_id.id == ident.id), None)


def _lookup_batch(client: Client, part: list[ArxivId], refresh: bool, out: Lookup) -> None:
    params = query_params(ids=[i.versioned for i in part])
    resp = client.fetch(ARXIV, "/api/query", params, refresh=refresh)
    if resp.status >= 400 and resp.status != 400:
        if len(part) > 1:  # a mirror or proxy refusing the batch: ask one by one
            for ident in part:
                _lookup_batch(client, [ident], refresh, out)
            return
        out.unknown[part[0].versioned] = f"{ARXIV.host} answered {_status(resp.status)}: {resp.url}"
        return
    feed = parse_feed(resp.body, resp.url)
    if feed.error is not None and len(part) > 1:  # one bad id spoils the batch: ask one by one
        for ident in part:
            _lookup_batch(client, [ident], refresh, out)
        return
    pieces = _entry_bytes(resp.body) if len(part) > 1 and resp.status == 200 else {}
    for ident in part:
        entry = _entry_for(feed, ident)
        if entry is None:
            out.unknown[ident.versioned] = feed.error or "arXiv has no paper with this id"
            continue
        out.found[ident.versioned] = entry
        piece = pieces.get(ident.id)
        if piece is not None:
            client.keep(ARXIV, "/api/query", query_params(ids=[ident.versioned]),
                        Response(body=piece, url=resp.url, status=200, fetched_at=resp.fetched_at))


def _status(code: int) -> str:
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return str(code)


_ENTRY = re.compile(rb"<entry>.*?</entry>", re.DOTALL)
_ENTRY_ID = re.compile(rb"<id>\s*([^<]+?)\s*</id>")


def _entry_bytes(body: bytes) -> dict[str, bytes]:
    """Each entry of a batch as a feed of its own: the batch's bytes before its first entry,
    the entry's bytes, and the closing tag (keyed by the id without version)."""
    first = body.find(b"<entry>")
    if first < 0:
        return {}
    head = body[:first]
    out = {}
    for match in _ENTRY.finditer(body):
        found = _ENTRY_ID.search(match.group(0))
        ident = parse_id(found.group(1).decode("utf-8", "replace")) if found else None
        if ident is not None:
            out[ident.id] = head + match.group(0) + b"\n</feed>\n"
    return out


def category_page(client: Client, category: str, query: str = "", *, start: int = 0,
                  page: int = PAGE) -> Feed:
    """One page of a category's submissions, newest first (never from the cache)."""
    search = f"cat:{category}" + (f" AND ({query})" if query.strip() else "")
    resp = client.fetch(ARXIV, "/api/query", query_params(search=search, sort_by="submittedDate",
                                                          start=start, max_results=page), cache=False)
    if not resp.ok:
        feed = parse_feed(resp.body, resp.url) if resp.status == 400 else None
        why = feed.error if feed is not None and feed.error else f"answered {resp.status}"
        raise ReaderError(f"arxiv: {ARXIV.host} {why}: {resp.url}")
    feed = parse_feed(resp.body, resp.url)
    if feed.error:
        raise ReaderError(f"arxiv: {feed.error}: {resp.url}")
    return feed
