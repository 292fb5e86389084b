"""Turn one parsed import file into finished rows (text derived here) and write them via the store."""

from __future__ import annotations

import dataclasses
import functools
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from .models import ImportSummary, Paper, ParseResult, Record, TitleSource, paper_id_for
from .store import import_log, searches
from .store import papers as q
from .store.citekeys import KeyAllocator
from .store.index_docs import DOC_COLUMNS, paper_doc
from .store.tags import clean_tags
from .text import abstract_plain
from .text.batch import Analysis, analyze, analyze_many
from .text.clean import clean_text
from .text.extract import title_method

# Imports with at least this many new papers analyse and index them in worker processes:
# starting them costs ~1 s, adding 1,000 papers to an index one by one (Whoosh's writer) ~5 s.
PARALLEL_MIN = 1000
_JOB = 500  # records per worker job


class ParallelIndex(Protocol):
    """Worker processes that run `prepare_new` on payloads and index the documents (see
    search.parallel.SegmentBuilder); `map` yields each payload's rows in order."""

    def map(self, payloads: Iterable[Any]) -> Iterator[Any]: ...

    def cancel(self) -> None: ...


StartIndex = Callable[[Callable[[Any], tuple[Any, list[dict]]]], ParallelIndex | None]


def store_parsed(
    conn: sqlite3.Connection, parsed: ParseResult, summary: ImportSummary, seq: int,
    progress: Callable[[int, int], None], start_index: StartIndex | None = None,
) -> bool:
    """Insert new papers, merge backups, note duplicates' sources and log the import.

    Runs inside the caller's transaction; `progress` may raise to cancel it. For a big
    file without backups, `start_index(prepare_new)` may give workers that analyse the new
    papers and index them while their rows are stored here; returns True if it was used
    (the index then holds every paper this import added)."""
    summary.skipped = list(parsed.problems)
    summary.notes = list(parsed.notes)
    source = Path(parsed.path).name
    collection = (parsed.collection or "").strip()
    seen: set[str] = set()
    start = start_index if len(parsed.records) >= PARALLEL_MIN and not any(
        r.backup for r in parsed.records) else None
    rows: list[dict[str, Any]] = []
    backups: list[Paper] = []
    dup_ids: list[str] = []
    new = _NewRows(source, collection, Path(parsed.path).stem, q.now_iso(), seq)
    keys = KeyAllocator(conn)
    by_id: list[tuple[str, Record]] = []
    fresh: dict[str, int] = {}
    existing: set[str] = set()
    workers = start(prepare_new) if start is not None and q.count(conn) == 0 else None
    if workers is not None:
        # Into an empty library every record is new but for repeats within the file: the
        # ids are computed a job at a time as the workers take the jobs, so that work (and
        # the workers' start-up) overlaps theirs instead of coming first.
        jobs: Iterable[Any] = _fresh_jobs(parsed.records, new, by_id, fresh)

        def total() -> int:  # the records not known to be repeats yet
            return len(parsed.records) - (len(by_id) - len(fresh))
    else:
        by_id = [(paper_id_for(r.abstract), r) for r in parsed.records]
        existing = q.existing_ids(conn, [pid for pid, _ in by_id])
        for i, (pid, rec) in enumerate(by_id):
            if pid not in existing and pid not in fresh and not rec.backup:
                fresh[pid] = i
        if start is not None and len(fresh) >= PARALLEL_MIN:
            workers = start(prepare_new)
        items = [(pid, by_id[i][1]) for pid, i in fresh.items()]
        jobs = ((new, items[i:i + _JOB]) for i in range(0, len(items), _JOB))

        def total() -> int:
            return len(items)
    if workers is not None:
        for part in workers.map(jobs):
            keys.fill(part)
            q.insert_rows(conn, part)
            rows.extend(part)
            progress(len(rows), total())
        summary.duplicates = len(by_id) - len(rows)
        dup_ids = [pid for pid, _ in by_id if pid in existing]
    else:
        # Only papers new to the library are analysed: re-imports cost a lookup, not a LaTeX parse.
        analyses = dict(zip(fresh, analyze_many([by_id[i][1].abstract for i in fresh.values()],
                                                progress=progress), strict=True))
        for pid, rec in by_id:
            if pid in seen or pid in existing:
                summary.duplicates += 1
                dup_ids.append(pid)
                if rec.backup and pid in existing:
                    _merge_backup(conn, pid, rec.backup, seq)
                continue
            seen.add(pid)
            if rec.backup:
                state = dict(rec.backup)
                state["id"] = pid
                state.setdefault("sources", [source])
                backups.append(Paper.from_dict(state))  # the importer checked it (title, ranges, types)
                continue
            rows.append(new.row(pid, rec, analyses[pid]))
        keys.fill(rows)
        q.insert_rows(conn, rows)
    for paper in backups:
        q.write_paper_state(conn, paper, seq, abstract_plain(paper.abstract), keys)
    q.add_source(conn, [d for d in dup_ids if d in existing], source)
    summary.new_ids = [r["id"] for r in rows] + [b.id for b in backups]
    _log(conn, parsed, summary)
    return workers is not None


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

    def row(self, pid: str, rec: Record, analysis: Analysis) -> dict[str, Any]:
        plain, method, derived, code = analysis
        title = clean_text(" ".join((rec.title or "").split()))  # PDF damage: (cid:12), ﬁ
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
            "collection": self.collection or rec.venue or self.stem,
            "sources": self._sources, "added_at": self.ts,
            "updated_at": self.ts, "read": 0, "starred": 0, "skipped": 0, "seq": self.seq,
            "citation_key": rec.citation_key or "", "entry_type": rec.entry_type or "",
        }


def _fresh_jobs(records: list[Record], new: _NewRows, by_id: list[tuple[str, Record]],
                fresh: dict[str, int]) -> Iterator[tuple[_NewRows, list[tuple[str, Record]]]]:
    """Worker jobs of the records not seen before in the file, computing ids as it goes
    (into `by_id` and `fresh`, as store_parsed does at once for a library with papers)."""
    for start in range(0, len(records), _JOB):
        items = []
        for rec in records[start:start + _JOB]:
            pid = paper_id_for(rec.abstract)
            if pid not in fresh:
                fresh[pid] = len(by_id)
                items.append((pid, rec))
            by_id.append((pid, rec))
        if items:
            yield new, items


def _json_list(items: list[str]) -> str:
    # Most imported papers have no authors, links or code: skip the encoder for those.
    return json.dumps(items, ensure_ascii=False) if items else "[]"


def prepare_new(payload: tuple[_NewRows, list[tuple[str, Record]]]) -> tuple[list[dict], list[dict]]:
    """In an index worker: the papers-table rows of new papers and their search documents
    (the same documents a rebuild reads back from those rows)."""
    new, items = payload
    rows = [new.row(pid, rec, analyze(rec.abstract)) for pid, rec in items]
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
