"""Turn one parsed import file into finished rows (text derived here) and write them via the store."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from .identity import Keys, Matcher, ident_key, lookup_values, title_key
from .models import ImportSummary, Paper, ParseResult, Record, TitleSource, paper_id_for
from .store import groups, import_log, searches
from .store import papers as q
from .store import venues as venue_store
from .store.citekeys import KeyAllocator
from .store.index_docs import DOC_COLUMNS, paper_doc
from .store.tags import clean_tags
from .text import abstract_plain
from .text.batch import Analysis, analyze, analyze_many
from .text.clean import clean_text
from .text.extract import title_method
from .venues import venue_name

# Imports with at least this many new papers analyse and index them in worker processes:
# starting them costs ~1 s, adding 1,000 papers to an index one by one (Whoosh's writer) ~5 s.
PARALLEL_MIN = 1000
_JOB = 500  # records per worker job


class ParallelIndex(Protocol):
    """Worker processes that run `prepare_new` on payloads and index the documents (see
    reader.search.SegmentBuilder, started by IndexUpkeep.bulk); `map` yields each payload's
    rows in order."""

    def map(self, payloads: Iterable[Any]) -> Iterator[Any]: ...

    def cancel(self) -> None: ...


@dataclasses.dataclass
class ImportPlan:
    """One file's import as worked out inside its transaction, before anything is written:
    which records are which papers (or, into an empty library, resolved job by job as the
    index workers take them) and whether it is big enough for index workers."""

    parsed: ParseResult
    new: _NewRows
    resolver: _Resolver
    collection: str
    source: str
    empty: bool  # the library held no paper
    parallel: bool  # worth index workers: PARALLEL_MIN new papers or more, no backups
    resolved: bool  # every record's paper is known (else _fresh_jobs resolves them)


def plan_import(conn: sqlite3.Connection, parsed: ParseResult, seq: int) -> ImportPlan:
    source = Path(parsed.path).name
    stem = Path(parsed.path).stem
    collection = (parsed.collection or "").strip() or stem  # the file the user made is the collection
    big = len(parsed.records) >= PARALLEL_MIN and not any(r.backup for r in parsed.records)
    empty = q.count(conn) == 0
    resolver = _Resolver(conn, parsed.records, empty)
    # Into an empty library every record is new but for repeats within the file: with workers,
    # the ids are resolved a job at a time as they take the jobs, so that work (and the
    # workers' start-up) overlaps theirs instead of coming first.
    resolved = not (big and empty)
    if resolved:
        resolver.resolve_all()
    return ImportPlan(parsed, _NewRows(source, collection, stem, q.now_iso(), seq), resolver, collection, source,
                empty, big and (empty or len(resolver.fresh) >= PARALLEL_MIN), resolved)


def store_parsed(
    conn: sqlite3.Connection, parsed: ParseResult, summary: ImportSummary, seq: int,
    progress: Callable[[int, int], None], workers: ParallelIndex | None = None, plan: ImportPlan | None = None,
) -> bool:
    """Insert new papers, merge duplicates into the stored papers, merge backups, and log the
    import.

    Runs inside the caller's transaction; `progress` may raise to cancel it. `plan` is
    plan_import's (made here when not given); `workers` (for a plan that is `parallel`)
    analyse the new papers and index them while their rows are stored here. Returns True if
    they were used (the index then holds every paper this import added)."""
    summary.skipped = list(parsed.problems)
    summary.notes = list(parsed.notes)
    summary.entries = len(parsed.records) + len(parsed.problems)
    summary.without_abstract = sum(1 for r in parsed.records if not r.abstract)
    plan = plan or plan_import(conn, parsed, seq)
    citekeys = KeyAllocator(conn)
    # Into an empty library, a big file's rows go in before the tables' secondary indexes
    # are made (a sort each, not a B-tree insert per row and index: ~N CPU-s less at 100k).
    with q.bulk_load(conn) if plan.empty and plan.parallel else contextlib.nullcontext():
        if workers is not None:
            rows = _store_parallel(conn, plan, workers, citekeys, progress)
        else:
            rows = _store_serial(conn, plan, citekeys, progress)
    _finish(conn, plan, rows, summary, citekeys)
    return workers is not None


def _store_parallel(conn: sqlite3.Connection, plan: ImportPlan, workers: ParallelIndex, citekeys: KeyAllocator,
                    progress: Callable[[int, int], None]) -> list[dict[str, Any]]:
    """The new papers' rows from the workers, stored as they come."""
    resolver, records = plan.resolver, plan.parsed.records
    jobs: Iterable[Any]
    if not plan.resolved:
        jobs = _fresh_jobs(records, plan.new, resolver)

        def total() -> int:  # the records not known to be repeats yet
            return len(records) - resolver.repeats
    else:
        items = resolver.fresh_items()
        jobs = ((plan.new, items[i:i + _JOB]) for i in range(0, len(items), _JOB))

        def total() -> int:
            return len(items)
    rows: list[dict[str, Any]] = []
    for part in workers.map(jobs):
        citekeys.fill(part)
        q.insert_rows(conn, part)
        rows.extend(part)
        progress(len(rows), total())
    return rows


def _store_serial(conn: sqlite3.Connection, plan: ImportPlan, citekeys: KeyAllocator,
                  progress: Callable[[int, int], None]) -> list[dict[str, Any]]:
    """The new papers analysed here and stored."""
    if not plan.resolved:  # planned for workers that could not start
        plan.resolver.resolve_all()
        plan.resolved = True
    items = plan.resolver.fresh_items()
    # Only papers new to the library are analysed: re-imports cost a lookup, not a LaTeX parse.
    analyses = analyze_many([rec.abstract for _, rec, _ in items], progress=progress)
    rows = [plan.new.row(pid, rec, keys, analysis)
            for (pid, rec, keys), analysis in zip(items, analyses, strict=True)]
    citekeys.fill(rows)
    q.insert_rows(conn, rows)
    return rows


def _finish(conn: sqlite3.Connection, plan: ImportPlan, rows: list[dict[str, Any]], summary: ImportSummary,
            citekeys: KeyAllocator) -> None:
    """What every import does after its new rows: backups, duplicates merged, collections, the log."""
    resolver = plan.resolver
    backups = _store_backups(conn, resolver, plan.source, plan.new.seq, citekeys)
    summary.duplicates = len(plan.parsed.records) - len(rows) - len(backups)
    summary.merged = _fill_stored(conn, resolver, plan.new.seq)
    q.add_source(conn, resolver.stored_dups, plan.source)
    groups.add_memberships(conn, _memberships(resolver, plan.collection, {r["id"] for r in rows}))
    venue_store.refold(conn)
    summary.new_ids = [r["id"] for r in rows] + [b.id for b in backups]
    _log(conn, plan.parsed, summary)


def _memberships(resolver: _Resolver, collection: str, new_ids: set[str]) -> list[tuple[str, str]]:
    """(paper id, collection) pairs: the file for every paper in it (a duplicate of a stored
    paper is in this file too), and "file › group" for the file's groups."""
    out: list[tuple[str, str]] = []
    for pid, rec in resolver.placed:
        if pid in new_ids or pid in resolver.stored:
            out.append((pid, collection))
            out.extend((pid, f"{collection} › {g}") for g in rec.groups)
    return out


def _store_backups(conn: sqlite3.Connection, resolver: _Resolver, source: str, seq: int,
                   citekeys: KeyAllocator) -> list[Paper]:
    """Backups: a paper already held merges (both sides' stars, tags, notes); a new one is
    written with its full state."""
    written: list[Paper] = []
    for pid, rec in resolver.backups:
        if pid in resolver.stored:
            _merge_backup(conn, pid, rec.backup or {}, seq)
            continue
        state = dict(rec.backup or {})
        state["id"] = pid
        state.setdefault("sources", [source])
        paper = Paper.from_dict(state)  # the importer checked it (title, ranges, types)
        q.write_paper_state(conn, paper, seq, abstract_plain(paper.abstract), citekeys)
        written.append(paper)
    return written


def _fill_stored(conn: sqlite3.Connection, resolver: _Resolver, seq: int) -> int:
    """Fill the fields stored papers lack from their duplicates in the file; how many gained any."""
    filled = 0
    for pid, rec in resolver.stored_fills:
        stored = q.identity_row(conn, pid)
        if stored is None:
            continue
        changes = _fills(stored, rec)
        if changes:
            q.update_fields(conn, pid, changes, seq)
            filled += 1
    return filled


def _clean_title(title: str | None) -> str:
    """One line, single spaces, PDF damage and control characters gone (a C1 control between two
    words left two spaces, which a re-import of the export then read as one)."""
    text = clean_text(" ".join((title or "").split()))
    return " ".join(text.split()) if "  " in text or text[:1] == " " or text[-1:] == " " else text


def _fills(stored: dict[str, Any], rec: Record) -> dict[str, Any]:
    """The columns of a stored paper an entry can fill: only what the paper lacks."""
    out: dict[str, Any] = {}
    title = _clean_title(rec.title)
    if not stored["abstract"] and rec.abstract:
        plain, method, _derived, code = analyze(rec.abstract, derive=False)
        out.update(abstract=rec.abstract, abstract_text=plain, abstract_key=paper_id_for(rec.abstract))
        if not stored["method"]:
            out["method"] = title_method(stored["title"]) or method
        if code and stored["code_links"] == "[]":
            out["code_links"] = _json_list(code)
    if stored["title_source"] == str(TitleSource.DERIVED) and title:
        out.update(title=title, title_source=str(TitleSource.IMPORTED), derived_title=title)
    if not stored["venue"] and rec.venue:
        out.update(venue=rec.venue, venue_key=venue_name(rec.venue).key)
    if stored["year"] is None and rec.year is not None:
        out["year"] = rec.year
    authors = json.loads(stored["authors"])
    if not authors and rec.authors:
        out["authors"] = _json_list(rec.authors)
    links = json.loads(stored["links"])
    more = [u for u in dict.fromkeys([*([rec.url] if rec.url else []), *rec.links]) if u not in links]
    if more:
        out["links"] = _json_list([*links, *more])
    keys = Keys.of(rec)
    for column, value in (("doi", keys.doi), ("arxiv", keys.arxiv), ("openreview", keys.openreview),
                          ("status", rec.status or "")):
        if not stored[column] and value:
            out[column] = value
    if "title" in out or "authors" in out or "year" in out:
        tkey = title_key(out.get("title") if "title" in out else (
            stored["title"] if stored["title_source"] != str(TitleSource.DERIVED) else ""))
        out["title_key"] = tkey
        out["ident_key"] = ident_key(tkey, json.loads(out.get("authors", stored["authors"])),
                                     out.get("year", stored["year"]))
    return out


class _Resolver:
    """Which paper each record of a file is: a stored one, an earlier record of the file, or
    a new paper with a fresh id (identity.py's rules)."""

    def __init__(self, conn: sqlite3.Connection, records: list[Record], empty: bool) -> None:
        self.records = records
        self.matcher = Matcher()
        self.stored: set[str] = set()
        if not empty:
            self.keys = [Keys.of(r) for r in records]
            weak = [k.bases(r)[0] for k, r in zip(self.keys, records, strict=True) if not r.abstract]
            for row in q.candidate_rows(conn, lookup_values(self.keys), weak):
                self.stored.add(row["id"])
                self.matcher.add(row["id"], Keys(row["abstract_key"], row["title_key"], row["doi"],
                                                 row["arxiv"], row["ident_key"], row["citation_key"],
                                                 row["openreview"]))
            # Ids are never reused: a new paper's id must not be a stored one (its abstract's
            # hash held by a chapter of another title, say).
            self.matcher.ids.update(q.existing_ids(conn, [b for k, r in zip(self.keys, records, strict=True)
                                                         for b in k.bases(r)]))
        self.fresh: dict[str, tuple[Record, Keys]] = {}
        self.placed: list[tuple[str, Record]] = []  # every record with the paper it is
        self.backups: list[tuple[str, Record]] = []
        self.stored_dups: list[str] = []
        self.stored_fills: list[tuple[str, Record]] = []
        self.repeats = 0
        self.done = 0

    def resolve_all(self) -> None:
        keys = getattr(self, "keys", None)
        for i, rec in enumerate(self.records):
            self.resolve(rec, keys[i] if keys else None)

    def resolve(self, rec: Record, keys: Keys | None = None) -> str | None:
        """The record's paper; its id if the record is a new paper (else None)."""
        keys = keys or Keys.of(rec)
        self.done += 1
        if rec.backup:
            pid = _backup_id(rec, keys, self.matcher.ids)
            if pid in self.fresh or any(pid == b for b, _ in self.backups):
                self.repeats += 1
                return None
            self.backups.append((pid, rec))
            self.matcher.add(pid, keys)
            return None
        bases = keys.bases(rec)
        found = self.matcher.find(keys, None if rec.abstract else bases[0])
        if found is not None:
            self.repeats += 1
            self.placed.append((found, rec))
            if found in self.stored:
                self.stored_dups.append(found)
                self.stored_fills.append((found, rec))
            elif found in self.fresh:
                _fill_record(self.fresh[found][0], rec)
            return None
        pid = keys.new_id(rec, self.matcher.ids)
        self.matcher.add(pid, keys)
        self.fresh[pid] = (rec, keys)
        self.placed.append((pid, rec))
        return pid

    def fresh_items(self) -> list[tuple[str, Record, Keys]]:
        return [(pid, rec, keys) for pid, (rec, keys) in self.fresh.items()]


def _backup_id(rec: Record, keys: Keys, taken: set[str]) -> str:
    """A backed-up paper keeps its id (a chapter's or a title-only paper's is not the
    abstract's hash); an id that is not one of ours is made again."""
    pid = str((rec.backup or {}).get("id") or "")
    if len(pid) == 16 and all(c in "0123456789abcdef" for c in pid):
        return pid
    return keys.bases(rec)[0]


def _fill_record(first: Record, later: Record) -> None:
    """A repeat within the file fills what its first occurrence lacks (before it is stored)."""
    if not first.abstract and later.abstract:
        first.abstract = later.abstract
    for name in ("title", "venue", "year", "url", "doi", "arxiv", "openreview", "status"):
        if getattr(first, name) in (None, "") and getattr(later, name) not in (None, ""):
            setattr(first, name, getattr(later, name))
    if not first.authors:
        first.authors = list(later.authors)
    first.links = list(dict.fromkeys([*first.links, *later.links]))
    first.groups = list(dict.fromkeys([*first.groups, *later.groups]))


def _log(conn: sqlite3.Connection, parsed: ParseResult, summary: ImportSummary) -> None:
    """The file's saved searches (a backup's) and its line in the import log."""
    summary.new = len(summary.new_ids)
    for s in parsed.saved_searches:
        if s.get("name") and s.get("query"):
            searches.add_if_absent(conn, s["name"], s["query"])
    import_log.log_import(conn, str(parsed.path), parsed.format, summary.new, summary.duplicates, summary.skipped)


@dataclasses.dataclass(frozen=True)
class _NewRows:
    """What one file's new papers-table rows share (pickled to the workers with each job)."""

    source: str
    collection: str
    stem: str
    ts: str
    seq: int

    @functools.cached_property
    def _sources(self) -> str:
        return _json_list([self.source])

    def row(self, pid: str, rec: Record, keys: Keys, analysis: Analysis | None = None) -> dict[str, Any]:
        """The paper's row; the abstract is analysed here unless `analysis` is given (then
        without a derived title when the paper has a real one: it would go unused)."""
        title = _clean_title(rec.title)  # PDF damage: (cid:12), ﬁ
        plain, method, derived, code = analysis or analyze(rec.abstract, derive=not title)
        method = title_method(title) or method  # "Flash3D: Feed-Forward ..." names its method
        links = list(dict.fromkeys([*([rec.url] if rec.url else []), *rec.links]))
        code = code + [u for u in links if "github.com/" in u and u not in code]
        return {
            "id": pid, "title": title or derived,
            "title_source": str(TitleSource.IMPORTED if title else TitleSource.DERIVED),
            "derived_title": title or derived, "abstract": rec.abstract,
            "abstract_text": plain, "venue": rec.venue or "",
            "year": rec.year, "authors": _json_list(rec.authors),
            "links": _json_list(links), "code_links": _json_list(code), "method": method,
            "collection": self.collection or self.stem,
            "sources": self._sources, "added_at": self.ts,
            "updated_at": self.ts, "read": 0, "starred": 0, "skipped": 0, "seq": self.seq,
            "citation_key": rec.citation_key or "", "entry_type": rec.entry_type or "",
            "doi": keys.doi, "arxiv": keys.arxiv, "openreview": keys.openreview, "status": rec.status or "",
            "abstract_key": keys.abstract,
            "title_key": keys.title, "ident_key": keys.ident,
            "venue_key": venue_name(rec.venue).key if rec.venue else "",
        }


def _fresh_jobs(records: list[Record], new: _NewRows, resolver: _Resolver
                ) -> Iterator[tuple[_NewRows, list[tuple[str, Record, Keys]]]]:
    """Worker jobs of the records not seen before in the file, resolving them as it goes
    (as store_parsed does at once for a library with papers)."""
    for start in range(0, len(records), _JOB):
        items = []
        for rec in records[start:start + _JOB]:
            pid = resolver.resolve(rec)
            if pid is not None:
                items.append((pid, rec, resolver.fresh[pid][1]))
        if items:
            yield new, items


def _json_list(items: list[str]) -> str:
    # Most imported papers have no authors, links or code: skip the encoder for those.
    return json.dumps(items, ensure_ascii=False) if items else "[]"


def prepare_new(payload: tuple[_NewRows, list[tuple[str, Record, Keys]]]) -> tuple[list[dict], list[dict]]:
    """In an index worker: the papers-table rows of new papers and their search documents
    (the same documents a rebuild reads back from those rows)."""
    new, items = payload
    rows = [new.row(pid, rec, keys) for pid, rec, keys in items]
    docs = [paper_doc([r[c] for c in DOC_COLUMNS], [], "", []) for r in rows]
    return rows, docs


def _merge_backup(conn: sqlite3.Connection, pid: str, backup: dict[str, Any], seq: int) -> None:
    """A backup of a paper we already hold: keep both sides' stars, tags, notes and highlights."""
    current = q.papers_full(conn, [pid])[0]
    other = Paper.from_dict({**backup, "id": pid})
    merged = dataclasses.replace(
        current,
        starred=current.starred or other.starred,
        read=current.read or other.read,
        skipped=current.skipped or other.skipped,
        tags=clean_tags([*current.tags, *other.tags]),
    )
    if not current.note.strip():
        merged.note = other.note
        merged.note_updated_at = other.note_updated_at
    spans = {(h.start, h.end) for h in current.highlights}
    merged.highlights = current.highlights + [
        dataclasses.replace(h, id=None) for h in other.highlights if (h.start, h.end) not in spans
    ]
    if current.title_source != TitleSource.EDITED and other.title_source == TitleSource.EDITED and other.title:
        merged.title, merged.title_source = other.title, TitleSource.EDITED
    q.write_paper_state(conn, merged, seq, abstract_plain(merged.abstract))
