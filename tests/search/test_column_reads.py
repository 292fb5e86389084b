"""The index's per-document columns (each field's lengths, the paper ids) are read at once, not
one document at a time through Whoosh's column readers (~70 ms per field per 50k papers, on the
first keystroke after a start and after every merge), with the same values."""

from __future__ import annotations

from whoosh.codec.whoosh3 import LENGTHS_COLUMN, _lenfield
from whoosh.filedb.structfile import StructFile

from reader.search import SearchIndex
from reader.search.paper_ids import _read_id_column
from reader.search.segments.rawread import length_bytes

from .helpers import doc

FIELDS = ("title", "abstract", "authors", "venue", "method", "tags")


def _docs(first: int, n: int) -> list[dict]:
    # The last papers have no abstract, venue or authors: a column then ends before the
    # segment does, and the documents past its end take its default.
    return [doc(i, f"Paper {i} on sparse attention", "" if i >= first + n - 5 else f"Abstract {i} " * (i % 7 + 1),
                authors="" if i % 4 == 0 or i >= first + n - 3 else f"Ann Smith; Wei Chen {i}",
                venue="" if i >= first + n - 5 else "ICML", tags=["RL"] if i % 3 == 0 else [])
            for i in range(first, first + n)]


def length_bytes_slow(leaf, fieldname: str) -> bytes:
    """length_bytes one document at a time, through Whoosh's column reader (the old reads)."""
    n = leaf.doc_count_all()
    col = leaf._perdoc._cached_reader(_lenfield(fieldname), LENGTHS_COLUMN)
    return bytes(n) if col is None else bytes(col[i] for i in range(n))


def _counting(monkeypatch) -> list[int]:
    calls = [0]
    real = StructFile.get

    def counted(self, position, length):
        calls[0] += 1
        return real(self, position, length)

    monkeypatch.setattr(StructFile, "get", counted)
    return calls


def test_columns_read_at_once_equal_whooshs_reads(tmp_path, monkeypatch) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(_docs(1, 60), stamp=1)  # the bulk writer's segment
    index.update(_docs(100, 20), deleted=[doc(7, "", "")["id"]], stamp=2)  # Whoosh's writer, a deletion
    try:
        leaves = index._s().reader().leaf_readers()
        assert len(leaves) == 2
        calls = _counting(monkeypatch)
        for leaf, _ in leaves:
            n = leaf.doc_count_all()
            for field in FIELDS:
                calls[0] = 0
                fast = length_bytes(leaf, field)
                assert calls[0] <= 1  # one read of the column, or none for a field without one
                assert fast == length_bytes_slow(leaf, field) and len(fast) == n
            assert any(length_bytes(leaf, "abstract")[-5:]) is False  # the column's default past its end
            calls[0] = 0
            ids = _read_id_column(leaf)
            assert calls[0] <= 3  # the offsets, the lengths, the values (Whoosh: one per paper)
            assert ids == list(leaf.column_reader("id")) and len(ids) == n
    finally:
        index.close()
