"""The indexing analysis (schema.analyze, with its fast word patterns) yields exactly what the query-time analyzer does."""

from __future__ import annotations

import random
import re

import pytest

from reader.search.schema import (
    _WORD_RE,
    PLAIN,
    POSSESSIVE,
    analyze,
    possessive_groups_work,
    stem_analyzer,
)

TEXTS = [
    "We propose GraphNet-2, i.e. a model for e.g. U.S. data_sets (v1.2.3) at 3.5x speed.",
    "Énergie libre: Müller's α-divergence and the KL… ÜBER 2.0.",
    "a..b .c d. e.f. x_y__z 12.34.56 Kelvin \u212a and dotless \u0131 Straße",
    "",
    "...",
]


def _reference(text: str) -> list[str]:
    return [t.text for t in stem_analyzer()(text)]


@pytest.mark.parametrize("text", TEXTS)
def test_analyze_matches_the_query_analyzer(text: str) -> None:
    assert analyze(text) == _reference(text)


@pytest.mark.parametrize("patterns", ["possessive", "plain"])
def test_fast_word_patterns_find_the_same_words(patterns: str) -> None:
    """Both sets of fast patterns: the possessive ones where this Python runs them right (on
    3.11.0-3.11.4 they found "speed." with its dot), the plain ones everywhere."""
    if patterns == "possessive" and not possessive_groups_work():
        pytest.skip("this Python's re gets possessive groups wrong: Reader uses the plain patterns")
    fast, ascii_only = (re.compile(p) for p in (POSSESSIVE if patterns == "possessive" else PLAIN))
    rng = random.Random(7)
    alphabet = "ab.Z_9 .-,\n.éß"
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))).lower()
        assert fast.findall(s) == _WORD_RE.findall(s), s
        if s.isascii():
            assert ascii_only.findall(s) == _WORD_RE.findall(s), s


@pytest.mark.parametrize("title", TEXTS)
@pytest.mark.parametrize("abstract", TEXTS)
def test_similarity_words_of_title_and_abstract_are_each_ones_in_turn(title: str, abstract: str) -> None:
    """What lets the bulk writer reuse the title's and abstract's words for `words`."""
    from reader.search.schema import similarity_words

    assert similarity_words(f"{title} {abstract}") == similarity_words(title) + similarity_words(abstract)


def test_the_bulk_writer_splits_an_abstract_and_analyses_a_venue_once(tmp_path, monkeypatch) -> None:
    """`words` (title + abstract) is made from the words already split for the title and the
    abstract, and a venue shared by papers is analysed by Whoosh once: the same index."""
    from whoosh.filedb.filestore import FileStorage
    from whoosh.query import Term

    from reader.search import schema
    from reader.search.documents import doc_fields
    from reader.search.segments import BulkWriter, bulk_codec
    from reader.search.segments import writer as writer_module

    docs = [doc_fields({"id": f"p{i}", "title": f"Sparse Models {i}", "venue": "NeurIPS 2021",
                        "abstract": f"We study sparse attention number {i}; Zürich's models.", "year": 2021})
            for i in range(3)]
    split: list[str] = []
    real_similarity = writer_module.similarity_words
    monkeypatch.setattr(writer_module, "similarity_words", lambda t: split.append(t) or real_similarity(t))
    venue = schema.build_schema()["venue"]
    analysed: list[object] = []
    real_index = type(venue).index
    monkeypatch.setattr(type(venue), "index", lambda self, v, **kw: analysed.append(v) or real_index(self, v, **kw))
    ix = FileStorage(str(tmp_path)).create_index(schema.build_schema())
    w = BulkWriter(ix, codec=bulk_codec())
    for d in docs:
        w.add_document(**d)
    w.commit()
    assert all(d["words"] not in split for d in docs) and docs[0]["abstract"] in split
    assert analysed.count("NeurIPS 2021") == 1
    with ix.searcher() as s:
        for word in ("sparse", "zurich", "attention", "models"):
            assert len(s.search(Term("words", word)).docs()) == 3, word
        assert len(s.search(Term("venue", "neurips")).docs()) == 3
