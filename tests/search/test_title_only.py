"""Title-only papers in the index (issue 18 item 1): has:abstract / -has:abstract, and "more like
these" leaves them out unless asked (a title alone says too little to rank by)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reader.search import SearchIndex

from .helpers import DOCS, doc, ids, num

BARE = doc(9, "Sparse attention for quantized model inference", "")


@pytest.fixture
def ix(tmp_path: Path):
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild([*DOCS, BARE], stamp=3, total=len(DOCS) + 1)
    yield index
    index.close()


def test_has_abstract_filters(ix: SearchIndex) -> None:
    assert ids(ix.search("-has:abstract")) == [num(9)]
    assert num(9) not in ids(ix.search("has:abstract"))
    assert len(ids(ix.search("has:abstract"))) == len(DOCS)
    assert num(9) in ids(ix.search("sparse attention"))  # a title-only paper is searchable
    assert ids(ix.search("sparse -has:abstract")) == [num(9)]


def test_more_like_leaves_title_only_papers_out_unless_asked(ix: SearchIndex) -> None:
    seeds = [num(1)]
    assert num(9) not in [pid for pid, _ in ix.more_like(seeds, limit=20)]
    assert num(9) in [pid for pid, _ in ix.more_like(seeds, limit=20, title_only=True)]
