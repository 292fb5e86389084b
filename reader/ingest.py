"""Turn one parsed import file into finished rows (text derived here) and write them via the store."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .models import ImportSummary, Paper, ParseResult, TitleSource, paper_id_for
from .store import import_log, searches
from .store import papers as q
from .store.tags import clean_tags
from .text import abstract_plain
from .text.batch import analyze_many


def store_parsed(
    conn: sqlite3.Connection, parsed: ParseResult, summary: ImportSummary, seq: int,
    progress: Callable[[int, int], None],
) -> None:
    """Insert new papers, merge backups, note duplicates' sources and log the import.

    Runs inside the caller's transaction; `progress` may raise to cancel it."""
    summary.skipped = list(parsed.problems)
    source = Path(parsed.path).name
    collection = (parsed.collection or "").strip()
    seen: set[str] = set()
    by_id = [(paper_id_for(r.abstract), r) for r in parsed.records]
    existing = q.existing_ids(conn, [pid for pid, _ in by_id])
    rows: list[dict[str, Any]] = []
    backups: list[Paper] = []
    dup_ids: list[str] = []
    ts = q.now_iso()
    fresh: dict[str, int] = {}
    for i, (pid, rec) in enumerate(by_id):
        if pid not in existing and pid not in fresh and not rec.backup:
            fresh[pid] = i
    # Only papers new to the library are analysed: re-imports cost a lookup, not a LaTeX parse.
    analyses = dict(zip(fresh, analyze_many([by_id[i][1].abstract for i in fresh.values()], progress=progress),
                        strict=True))
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
        plain, method, derived, code = analyses[pid]
        title = " ".join((rec.title or "").split())
        links = list(dict.fromkeys([*([rec.url] if rec.url else []), *rec.links]))
        code = code + [u for u in links if "github.com/" in u and u not in code]
        rows.append({
            "id": pid, "title": title or derived,
            "title_source": str(TitleSource.IMPORTED if title else TitleSource.DERIVED),
            "derived_title": title or derived, "abstract": rec.abstract,
            "abstract_text": plain, "venue": rec.venue or "",
            "year": rec.year, "authors": json.dumps(rec.authors, ensure_ascii=False),
            "links": json.dumps(links, ensure_ascii=False),
            "code_links": json.dumps(code, ensure_ascii=False), "method": method,
            "collection": collection or rec.venue or Path(parsed.path).stem,
            "sources": json.dumps([source], ensure_ascii=False), "added_at": ts, "updated_at": ts,
            "read": 0, "starred": 0, "seq": seq,
        })
    q.insert_rows(conn, rows)
    for paper in backups:
        q.write_paper_state(conn, paper, seq, abstract_plain(paper.abstract))
    q.add_source(conn, [d for d in dup_ids if d in existing], source)
    summary.new = len(rows) + len(backups)
    summary.new_ids = [r["id"] for r in rows] + [b.id for b in backups]
    for s in parsed.saved_searches:
        if s.get("name") and s.get("query"):
            searches.add_if_absent(conn, s["name"], s["query"])
    import_log.log_import(conn, str(parsed.path), parsed.format, summary.new, summary.duplicates, summary.skipped)


def _merge_backup(conn: sqlite3.Connection, pid: str, backup: dict[str, Any], seq: int) -> None:
    """A backup of a paper we already hold: keep both sides' stars, tags, notes and highlights."""
    current = q.papers_full(conn, [pid])[0]
    other = Paper.from_dict({**backup, "id": pid})
    merged = dataclasses.replace(
        current,
        starred=current.starred or other.starred,
        read=current.read or other.read,
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
