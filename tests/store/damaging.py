"""Test helpers: a library with many papers, notes and tags, a B-tree page walker, and page damage."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from reader.library import Library

WORDS = ("sparse attention diffusion kernel graph transformer bandit policy gradient convex "
         "manifold spectral contrastive retrieval tokenizer quantized federated causal").split()


def make_library(root: Path, n: int = 600, seed: int = 7) -> dict:
    """A library of n synthetic papers; a third have notes, half have tags, some highlights.

    Returns what was stored, read back before any damage: papers by id, notes, tags per paper,
    highlights per paper and rowids per paper id."""
    rnd = random.Random(seed)
    src = root.parent / f"{root.name}-papers.jsonl"
    with src.open("w", encoding="utf-8") as f:
        for i in range(n):
            words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(40, 120)))
            f.write(json.dumps({"title": f"Paper {i} on {rnd.choice(WORDS)}", "abstract": f"We study {i}. {words}.",
                                "authors": [f"Author {i % 37}"], "year": 2000 + i % 25, "venue": "TestConf"}) + "\n")
    with Library.open(root, seed_if_empty=False) as lib:
        [summary] = lib.import_files([src], index=False)
        assert summary.new == n, summary
        lib._index_changes = lambda: None  # type: ignore[method-assign]  # the index is not under test: skip its upkeep
        ids = lib.paper_ids(sort="added", descending=False)
        for pid in rnd.sample(ids, n // 3):
            lib.set_note(pid, f"note for {pid}: " + " ".join(rnd.choice(WORDS) for _ in range(30)))
        for tag in ("to-read", "method", "baseline", "survey"):
            lib.add_tags(rnd.sample(ids, n // 4), [tag])
        for pid in rnd.sample(ids, n // 10):
            lib.add_highlight(pid, 0, 5, "#ffe066", "first words")
        lib.save_search("attention", "attention")
        full = {p.id: p.to_dict() for p in lib.papers(ids)}
    conn = sqlite3.connect(root / "library.sqlite3")
    try:
        rowids = {r[1]: r[0] for r in conn.execute("SELECT rowid, id FROM papers")}
        note_rowids = {r[1]: r[0] for r in conn.execute("SELECT rowid, paper_id FROM notes")}
    finally:
        conn.close()
    assert not (root / "library.sqlite3-wal").exists()  # closed cleanly: everything is in the main file
    return {"papers": full, "rowids": rowids, "note_rowids": note_rowids}


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    v = 0
    for k in range(9):
        b = buf[i + k]
        if k == 8:
            return (v << 8) | b, i + 9
        v = (v << 7) | (b & 0x7F)
        if b < 0x80:
            return v, i + k + 1
    raise AssertionError("unreachable")


def table_leaves(db_file: Path, table: str) -> list[tuple[int, list[int]]]:
    """(page number, rowids on it) for each leaf page of a table's B-tree, in key order.

    Read from the file's bytes (the SQLite file format), not through SQLite itself."""
    data = db_file.read_bytes()
    page_size = int.from_bytes(data[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    conn = sqlite3.connect(db_file)
    try:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?", [table]).fetchone()[0]
    finally:
        conn.close()
    leaves: list[tuple[int, list[int]]] = []

    def walk(pageno: int) -> None:
        off = (pageno - 1) * page_size
        hdr = off + (100 if pageno == 1 else 0)
        kind, ncells = data[hdr], int.from_bytes(data[hdr + 3 : hdr + 5], "big")
        if kind == 13:  # table leaf: cell = payload size varint, rowid varint, ...
            rowids = []
            for c in range(ncells):
                ptr = int.from_bytes(data[hdr + 8 + 2 * c : hdr + 10 + 2 * c], "big")
                _, i = _varint(data, off + ptr)
                rowid, _ = _varint(data, i)
                rowids.append(rowid)
            leaves.append((pageno, rowids))
        elif kind == 5:  # table interior: cell = 4-byte left child, key varint; right-most child in header
            for c in range(ncells):
                ptr = int.from_bytes(data[hdr + 12 + 2 * c : hdr + 14 + 2 * c], "big")
                walk(int.from_bytes(data[off + ptr : off + ptr + 4], "big"))
            walk(int.from_bytes(data[hdr + 8 : hdr + 12], "big"))
        else:
            raise AssertionError(f"page {pageno} of {table} has type {kind}")

    walk(root)
    return leaves


def overwrite_page(db_file: Path, pageno: int, seed: int = 1) -> None:
    """Fill one page with random bytes (its first byte made an invalid page type, so SQLite must notice)."""
    data = bytearray(db_file.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    rnd = random.Random(seed)
    garbage = bytearray(rnd.randrange(256) for _ in range(page_size))
    garbage[0] = 0xEE
    data[(pageno - 1) * page_size : pageno * page_size] = garbage
    db_file.write_bytes(bytes(data))
