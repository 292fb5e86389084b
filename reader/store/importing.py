"""Write one parsed import file into the store (inside the caller's transaction)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..models import ImportSummary, ParseResult, paper_id_for
from ..text.batch import analyze_many
from . import papers as q
from .papers import now_iso


def store_parsed(
    conn: sqlite3.Connection, parsed: ParseResult, summary: ImportSummary, seq: int,
    progress: Callable[[int, int], None],
) -> None:
    """Insert new papers, merge backups, note duplicates' sources and log the import."""
    summary.skipped = list(parsed.problems)
    source = Path(parsed.path).name
    collection = (parsed.collection or "").strip()
    seen: set[str] = set()
    by_id = [(paper_id_for(r.abstract), r) for r in parsed.records]
    existing = q.existing_ids(conn, [pid for pid, _ in by_id])
    rows: list[dict] = []
    backups: list[dict] = []
    dup_ids: list[str] = []
    ts = now_iso()
    fresh: dict[str, int] = {}
    for i, (pid, rec) in enumerate(by_id):
        if pid not in existing and pid not in fresh and not rec.backup:
            fresh[pid] = i
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
            backups.append(state)
            continue
        plain, method, derived, code = analyses[pid]
        title = " ".join((rec.title or "").split())
        links = list(dict.fromkeys([*([rec.url] if rec.url else []), *rec.links]))
        code = code + [u for u in links if "github.com/" in u and u not in code]
        rows.append({
            "id": pid, "title": title or derived, "title_source": "imported" if title else "derived",
            "derived_title": title or derived, "abstract": rec.abstract,
            "abstract_text": plain, "venue": rec.venue or "",
            "year": rec.year, "authors": json.dumps(rec.authors, ensure_ascii=False),
            "links": json.dumps(links, ensure_ascii=False),
            "code_links": json.dumps(code, ensure_ascii=False), "method": method,
            "collection": collection or rec.venue or Path(parsed.path).stem,
            "sources": json.dumps([source], ensure_ascii=False), "added_at": ts, "updated_at": ts,
            "read": 0, "starred": 0, "seq": seq,
        })
    if rows:
        # executemany over a fixed column list: ~5x faster than sqlite-utils' insert_all for 50k rows
        cols = list(rows[0])
        conn.executemany(
            f"INSERT INTO papers ({', '.join(cols)}) VALUES ({q.marks(len(cols))})",
            (tuple(r[c] for c in cols) for r in rows),
        )
    for state in backups:
        q.write_paper_state(conn, state, seq)
    _add_source(conn, dup_ids, existing, source)
    summary.new = len(rows) + len(backups)
    summary.new_ids = [r["id"] for r in rows] + [b["id"] for b in backups]
    for s in parsed.saved_searches:
        if s.get("name") and s.get("query"):
            conn.execute(
                "INSERT OR IGNORE INTO saved_searches (name, query, created_at) VALUES (?, ?, ?)",
                [s["name"], s["query"], now_iso()],
            )
    conn.execute(
        "INSERT INTO imports (path, format, imported_at, new, duplicates, skipped, problems) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [str(parsed.path), parsed.format, now_iso(), summary.new, summary.duplicates,
         len(summary.skipped), json.dumps([str(p) for p in summary.skipped], ensure_ascii=False)],
    )


def _add_source(conn: sqlite3.Connection, dup_ids: list[str], existing: set[str], source: str) -> None:
    """Remember that a paper also came from this file (not a searchable change)."""
    for pid in dict.fromkeys(d for d in dup_ids if d in existing):
        row = conn.execute("SELECT sources FROM papers WHERE id = ?", [pid]).fetchone()
        sources = json.loads(row[0])
        if source not in sources:
            sources.append(source)
            conn.execute("UPDATE papers SET sources = ? WHERE id = ?", [json.dumps(sources), pid])


def _merge_backup(conn: sqlite3.Connection, pid: str, backup: dict, seq: int) -> None:
    """A backup of a paper we already hold: keep both sides' stars, tags, notes and highlights."""
    current = q.papers_full(conn, [pid])[0]
    merged = dict(current)
    merged["starred"] = current["starred"] or bool(backup.get("starred"))
    merged["read"] = current["read"] or bool(backup.get("read"))
    merged["tags"] = q.clean_tags([*current["tags"], *(backup.get("tags") or [])])
    if not current["note"].strip():
        merged["note"] = backup.get("note") or ""
        merged["note_updated_at"] = backup.get("note_updated_at")
    spans = {(h["start"], h["end"]) for h in current["highlights"]}
    merged["highlights"] = current["highlights"] + [
        {k: v for k, v in h.items() if k != "id"}
        for h in backup.get("highlights") or []
        if (h.get("start"), h.get("end")) not in spans
    ]
    if current["title_source"] != "edited" and backup.get("title_source") == "edited":
        merged["title"], merged["title_source"] = backup["title"], "edited"
    q.write_paper_state(conn, merged, seq)
