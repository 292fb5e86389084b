"""Store papers fetched from a service (reader/sources): new ones through the import's own
path (ingest.store_parsed), known ones UPDATED with what the service says now.

Runs inside the caller's one write transaction (Library.add_fetched). A fetched record meets
the stored papers by identity.py's rules (DOI, arXiv id, OpenReview id, abstract, title rules).
A paper already held keeps everything the user added (star, read, tags, note, highlights,
citation key, a title the user edited); its metadata follows the service: title, abstract
(highlights re-anchored on the new text by their quotes), authors, year, venue, links (the
service's first, the others kept), DOI/arXiv/OpenReview ids, status (oral, spotlight...) and
entry type. What the service leaves empty is never erased. A preprint (an arXiv record) never
overrides a published paper's metadata (a stored paper with another venue): it only adds its
links and ids; a paper held as a preprint takes a newer version's metadata."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..identity import Keys, Matcher, ident_key, lookup_values, title_key
from ..index_upkeep import BulkImport
from ..ingest import plan_import, prepare_new, store_parsed
from ..models import ImportSummary, ParseResult, Record, TitleSource, paper_id_for
from ..store import groups
from ..store import highlights as hl
from ..store import papers as q
from ..text.batch import analyze
from ..text.clean import clean_text
from ..text.extract import title_method
from ..text.reanchor import reanchor_quoted
from ..venues import venue_name

FORMAT = "fetched"  # the import log's format of a fetch

ADDED, UPDATED, UNCHANGED = "added", "updated", "unchanged"
PREPRINT_VENUES = frozenset({"arxiv", "corr", "arxiv preprint", "biorxiv", "medrxiv"})


@dataclass
class FetchResult:
    """What one add_fetched stored: per record, its paper id and outcome (added, updated,
    unchanged); records that could not be stored (a value out of range) by index, with why."""

    ids: list[str] = field(default_factory=list)  # per stored record, in order
    outcomes: list[str] = field(default_factory=list)
    rejected: list[tuple[int, str]] = field(default_factory=list)  # (record index, problem)
    summary: ImportSummary | None = None

    def count(self, outcome: str) -> int:
        return len({pid for pid, o in zip(self.ids, self.outcomes, strict=True) if o == outcome})

    @property
    def new(self) -> int:
        return self.count(ADDED)

    @property
    def updated(self) -> int:
        return self.count(UPDATED)

    @property
    def unchanged(self) -> int:
        return self.count(UNCHANGED)

    def describe(self) -> str:
        text = f"{self.new:,} new, {self.updated:,} updated, {self.unchanged:,} unchanged"
        if self.rejected:
            text += f", {len(self.rejected):,} rejected (first: {self.rejected[0][1]})"
        return text


def store_fetched(
    conn: sqlite3.Connection, records: Sequence[Record], *, collection: str, origin: str, seq: int,
    progress: Callable[[int, int], None], bulk: BulkImport | None = None,
) -> tuple[FetchResult, bool]:
    """Store fetched records in the caller's transaction: update the known papers, add the new
    ones (in `collection`; `origin` names the fetch in the papers' sources and the import log).
    Returns the result and whether `bulk`'s index workers indexed the new papers."""
    result = FetchResult()
    good: list[Record] = []
    for n, rec in enumerate(records):
        problem = rec.problem()
        if problem:
            result.rejected.append((n, problem))
        else:
            good.append(rec)
    keys = [Keys.of(r) for r in good]  # once: matching before and after, and updating, share them
    before = match_stored(conn, good, keys)
    updated = {pid for pid, rec, k in zip(before, good, keys, strict=True)
               if pid is not None and update_stored(conn, pid, rec, seq, k)}
    # Papers held: in this collection too, and from this origin; the rest go the import's way
    # (new papers, repeats within the batch merged), never resolved a second time.
    held = list(dict.fromkeys(pid for pid in before if pid is not None))
    groups.add_memberships(conn, [(pid, collection) for pid in held])
    q.add_source(conn, held, origin)
    summary = ImportSummary(path=origin, format=FORMAT)
    fresh = [rec for pid, rec in zip(before, good, strict=True) if pid is None]
    parsed = ParseResult(path=origin, format=FORMAT, records=fresh, collection=collection)
    plan = plan_import(conn, parsed, seq)
    workers = bulk.start(seq, prepare_new, plan.empty) if bulk is not None and plan.parallel else None
    used = store_parsed(conn, parsed, summary, seq, progress, workers, plan)
    after = match_stored(conn, good, keys)
    for was, now in zip(before, after, strict=True):
        if now is None:  # cannot happen: every good record is stored (or merged) now
            raise RuntimeError("a fetched record was not stored")
        result.ids.append(now)
        result.outcomes.append(ADDED if was is None else UPDATED if was in updated else UNCHANGED)
    result.summary = summary
    return result, used


def match_stored(conn: sqlite3.Connection, records: Sequence[Record],
                 keys: Sequence[Keys] | None = None) -> list[str | None]:
    """The stored paper each record is (identity.py's rules), or None.

    A record's own arXiv or OpenReview id (its `arxiv`/`openreview` field: the service that
    gave it owns that id) meets the paper holding that id whatever its title: a new version
    may retitle a paper (the import's rules want DOI/arXiv matches to agree on titles, against
    ids pasted on the wrong entry). `keys` are the records' Keys when the caller has them."""
    if keys is None:
        keys = [Keys.of(r) for r in records]
    weak = [k.bases(r)[0] for k, r in zip(keys, records, strict=True) if not r.abstract]
    matcher = Matcher()
    owned: dict[tuple[str, str], list[str]] = {}
    for row in q.candidate_rows(conn, lookup_values(keys), weak):
        matcher.add(row["id"], Keys(row["abstract_key"], row["title_key"], row["doi"], row["arxiv"],
                                    row["ident_key"], row["citation_key"], row["openreview"]))
        for column in ("arxiv", "openreview"):
            if row[column]:
                owned.setdefault((column, row[column]), []).append(row["id"])
    out: list[str | None] = []
    for k, r in zip(keys, records, strict=True):
        found = None
        for column, given, key in (("arxiv", r.arxiv, k.arxiv), ("openreview", r.openreview, k.openreview)):
            holders = owned.get((column, key), []) if given and key else []
            if len(holders) == 1:
                found = holders[0]
                break
        out.append(found or matcher.find(k, None if r.abstract else k.bases(r)[0]))
    return out


def update_stored(conn: sqlite3.Connection, pid: str, rec: Record, seq: int, keys: Keys | None = None) -> bool:
    """Bring a stored paper's metadata up to the fetched record (whose Keys the caller may
    pass); True if anything changed."""
    found = q.metadata_row(conn, pid)
    if found is None:
        return False
    stored: dict[str, Any] = found
    if _preprint(rec.venue) and stored["venue"] and not _preprint(stored["venue"]):
        rec = Record(abstract="", links=rec.links, url=rec.url, doi=rec.doi, arxiv=rec.arxiv,
                     openreview=rec.openreview)
    out: dict[str, Any] = {}
    title = clean_text(" ".join((rec.title or "").split()))
    source = stored["title_source"]
    if title and source == str(TitleSource.EDITED):
        if stored["derived_title"] != title:  # the user's title stays; the service's is kept aside
            out["derived_title"] = title
    elif title and (stored["title"] != title or source != str(TitleSource.IMPORTED)):
        out.update(title=title, title_source=str(TitleSource.IMPORTED), derived_title=title)
    if rec.abstract and rec.abstract != stored["abstract"]:
        plain, method, _derived, code = analyze(rec.abstract)
        out.update(abstract=rec.abstract, abstract_text=plain, abstract_key=paper_id_for(rec.abstract),
                   method=title_method(out.get("title", stored["title"])) or method)
        old_code = json.loads(stored["code_links"])
        out["code_links"] = json.dumps(list(dict.fromkeys([*old_code, *code])), ensure_ascii=False)
        _reanchor(conn, pid, rec.abstract)
    if rec.authors and rec.authors != json.loads(stored["authors"]):
        out["authors"] = json.dumps(rec.authors, ensure_ascii=False)
    if rec.year is not None and rec.year != stored["year"]:
        out["year"] = rec.year
    if rec.venue and rec.venue != stored["venue"]:
        out.update(venue=rec.venue, venue_key=venue_name(rec.venue).key)
    fetched_links = [*([rec.url] if rec.url else []), *rec.links]
    old_links = json.loads(stored["links"])
    links = list(dict.fromkeys([*fetched_links, *old_links]))
    if links != old_links:
        out["links"] = json.dumps(links, ensure_ascii=False)
    keys = keys or Keys.of(rec)  # (a preprint's stand-in keeps the ids, links and url: same keys)
    for column, value in (("doi", keys.doi), ("arxiv", keys.arxiv), ("openreview", keys.openreview),
                          ("status", rec.status or ""), ("entry_type", rec.entry_type or "")):
        if value and value != stored[column]:
            out[column] = value
    if not out:
        return False
    if {"title", "derived_title", "authors", "year"} & set(out):
        real = out.get("title", stored["title"]) if source != str(TitleSource.EDITED) else out.get(
            "derived_title", stored["derived_title"])
        if out.get("title_source", source) == str(TitleSource.DERIVED):
            real = ""
        tkey = title_key(real)
        out["title_key"] = tkey
        out["ident_key"] = ident_key(tkey, json.loads(out.get("authors", stored["authors"])),
                                     out.get("year", stored["year"]))
    q.update_fields(conn, pid, out, seq)
    return True


def _preprint(venue: str | None) -> bool:
    return (venue or "").strip().casefold() in PREPRINT_VENUES


def _reanchor(conn: sqlite3.Connection, pid: str, raw: str) -> None:
    """Move the paper's highlights onto its new abstract's plain text, by their quotes."""
    found = hl.highlights_for(conn, [pid]).get(pid, [])
    if not found:
        return
    spans = reanchor_quoted(raw, [(h.start, h.end, h.quote) for h in found])
    hl.move(conn, [(h.id, a, b, quote) for h, (a, b, quote) in zip(found, spans, strict=True)
                   if h.id is not None and (a, b, quote) != (h.start, h.end, h.quote)])
