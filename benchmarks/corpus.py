"""Shared helpers for the benchmarks: the 100k corpus, CPU time and the machine's load.

`corpus_100k(path)` writes the 50k conference corpus twice into one JSONL file; the second copy
is altered so that Reader's identity rules (same DOI / arXiv id; same abstract with a compatible
title; same title + first author + year) keep it as other papers: its title words and abstract
sentences are reversed and its ids and links are dropped. About 100,045 papers survive an
import (a one-word title reads the same reversed, and a few abstracts are one sentence).
Every benchmark that claims a size prints the number of papers the library really holds.

`clock()` / `Clock` give wall and CPU seconds side by side (CPU of this process and its
finished children: index workers, a CLI run by subprocess); `load()` is /proc/loadavg's first
three figures, so a reader of the output knows how busy the machine was.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = ROOT.parent / "shared" / "corpora"
CORPUS = CORPORA / "ml_conference_corpus" / "papers.jsonl"
CSV_12K = CORPORA / "ml_conference_corpus" / "papers_neurips_icml_iclr.csv"
LINK_KEYS = ("doi", "url", "pdf", "pdf_url", "arxiv", "openreview")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def altered(rec: dict) -> dict:
    """The record as a different paper to the identity rules: title words and abstract
    sentences reversed, its id suffixed, ids and links dropped."""
    rec = dict(rec)
    rec["title"] = " ".join(reversed(str(rec.get("title") or "").split()))
    rec["abstract"] = " ".join(reversed(_SENTENCE.split(str(rec.get("abstract") or "").strip())))
    rec["id"] = f"{rec.get('id', '')}~2"
    for key in LINK_KEYS:
        rec.pop(key, None)
    return rec


def corpus_100k(path: Path, source: Path = CORPUS) -> Path:
    """The corpus and its altered copy in one JSONL file at path (written once, reused)."""
    if path.exists() and path.stat().st_size > source.stat().st_size:
        return path
    if not source.exists():
        raise SystemExit(f"corpus not found: {source}")
    tmp = path.with_name(f"{path.name}.{os.getpid()}.partial")
    with source.open(encoding="utf-8") as f:
        lines = [line for line in f if line.strip()]
    with tmp.open("w", encoding="utf-8") as out:
        out.writelines(line if line.endswith("\n") else line + "\n" for line in lines)
        for line in lines:
            out.write(json.dumps(altered(json.loads(line))) + "\n")
    os.replace(tmp, path)
    return path


def corpus_for(size: str, workdir: Path) -> Path:
    """'50k' → the corpus itself; '100k' → the doubled one (made in workdir); '12k' → the CSV."""
    if size == "12k":
        return CSV_12K
    if size == "50k":
        return CORPUS
    if size == "100k":
        return corpus_100k(workdir / "papers-100k.jsonl")
    raise ValueError(f"unknown corpus size {size!r} (12k, 50k or 100k)")


def cpu_seconds() -> float:
    """CPU seconds of this process and its finished (waited-for) children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def load() -> str:
    """The load averages (1, 5, 15 min) as /proc/loadavg gives them."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass
class Clock:
    """Wall and CPU seconds since it was made (or since restart())."""

    wall0: float = field(default_factory=time.perf_counter)
    cpu0: float = field(default_factory=cpu_seconds)

    def restart(self) -> None:
        self.wall0, self.cpu0 = time.perf_counter(), cpu_seconds()

    @property
    def wall(self) -> float:
        return time.perf_counter() - self.wall0

    @property
    def cpu(self) -> float:
        return cpu_seconds() - self.cpu0

    def __str__(self) -> str:
        return f"{self.wall:.2f} s wall, {self.cpu:.2f} s CPU (load {load()})"


def library_count(data_dir: Path) -> int:
    """How many papers the library in data_dir holds (read straight from its file)."""
    import sqlite3

    conn = sqlite3.connect(f"file:{data_dir / 'library.sqlite3'}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM papers").fetchone()[0])
    finally:
        conn.close()
