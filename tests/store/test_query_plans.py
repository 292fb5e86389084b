"""The reads the window makes after each decision use an index, never a scan of the papers table
(issue 31: at 100k papers each scan cost 57-67 ms on a worker, beside the window's own work, and
beside two busy processes the way back from triage stalled over 100 ms)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from reader.library import Library
from reader.store import papers, venues
from reader.store.views import View

BIB = "".join(
    f"@inproceedings{{k{i},\n  title = {{Paper number {i} on sparse attention}},\n  author = {{Smith, Ann}},\n"
    f"  booktitle = {{{venue}}}, year = {{2017}},\n"
    f"  abstract = {{An abstract long enough to be kept, about sparse attention in transformers, number {i}.}},\n}}\n"
    for i, venue in enumerate(["UIST '13: Proceedings of the 26th Annual ACM Symposium", "NeurIPS", "ICML"] * 4))


def _plans(lib: Library, read: Callable[[object], object]) -> list[str]:
    conn = lib.read_connection()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        read(conn)
    finally:
        conn.set_trace_callback(None)
    assert statements
    return [" | ".join(str(r[-1]) for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}")) for sql in statements]


@pytest.fixture
def lib(tmp_path: Path):
    src = tmp_path / "refs.bib"
    src.write_text(BIB, encoding="utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        [summary] = lib.import_files([src], index=False)
        ids = summary.new_ids
        lib.set_starred(ids[:2], True)
        lib.set_skipped(ids[2:3], True)
        lib.set_read(ids[3:5], True)
        yield lib


def _scans_papers(plan: str) -> bool:
    return bool(re.search(r"SCAN (papers|p)\b(?! USING (COVERING )?INDEX)", plan))


def test_triage_signals_come_from_the_decided_papers_index(lib: Library) -> None:
    plans = _plans(lib, lambda conn: papers.signals(conn))
    assert "INDEX papers_decided" in plans[0] and not _scans_papers(plans[0]), plans[0]
    signals = lib.triage_signals()
    ids = lib.paper_ids(View(), descending=False)
    assert signals["starred"] == ids[:2] and signals["skipped"] == ids[2:3] and signals["read"] == ids[3:5]


def test_the_starred_list_uses_the_decided_papers_index(lib: Library) -> None:
    from reader.store.views import paper_ids

    [plan] = _plans(lib, lambda conn: paper_ids(conn, View("starred")))
    assert "INDEX papers_decided" in plan and not _scans_papers(plan), plan


def test_venue_spellings_are_counted_from_an_index(lib: Library) -> None:
    [plan] = _plans(lib, lambda conn: venues.spellings(conn))
    assert "COVERING INDEX papers_venue_key" in plan, plan
