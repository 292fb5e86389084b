"""Two indexes built in one process after the same `random.seed` get different segment names, so
the read caches keyed by segment id never mix their data up."""

from __future__ import annotations

import random

from reader.search import SearchIndex

from .helpers import doc


def _index(path, title: str, abstract: str) -> SearchIndex:
    ix = SearchIndex.open(path)
    random.seed(1234)  # as hypothesis does before each example
    ix.rebuild([doc(1, title, abstract)], stamp=1)
    return ix


def test_seeded_random_does_not_repeat_segment_names(tmp_path) -> None:
    a = _index(tmp_path / "a", "Graph neural networks", "Message passing on graphs of molecules for chemistry.")
    b = _index(tmp_path / "b", "Protein folding", "Predicting protein structures from their amino acid sequences.")
    try:
        ids_a = {leaf.segment().segment_id() for leaf, _ in a._s().reader().leaf_readers()}
        ids_b = {leaf.segment().segment_id() for leaf, _ in b._s().reader().leaf_readers()}
        assert ids_a and ids_b and not ids_a & ids_b
        # The caches keyed by segment: each index finds its own paper, not the other's.
        assert [h.id for h in a.search("graph").hits] == [h.id for h in a.search("molecules").hits] != []
        assert b.search("graph").hits == [] and b.search("protein").hits
    finally:
        a.close()
        b.close()
