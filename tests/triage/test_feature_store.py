"""Triage's word counts: the fast tokenizer finds the words similarity does, the counts weigh into
the features the plain way would make, and the stored counts follow the library's changes."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from reader.search.schema import lower_words, similarity_words
from reader.triage import feature_store
from reader.triage import features as tf

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
TRICKY = ["e.g. the 3.14.15 model... a..b .5 x. end.", "Ünïcode café naïve résumé; ß and İ", "tab\tand\nnew-line",
          "snake_case_word and v2.0-beta (see: Fig. 3.a)", "", "...", "a.b.c. d.e"]


def reference(texts: list[tuple[str, str, str, bool]]) -> tuple[list[str], list[dict[str, float]]]:
    """The features the straightforward way: Counters, the df cut, (1 + ln tf) x idf, unit rows."""
    counts = [Counter(similarity_words(tf.paper_text(t, a, own))) for _pid, t, a, own in texts]
    df = Counter(w for c in counts for w in c)
    n = len(texts)
    vocab = sorted(w for w, d in df.items() if tf.MIN_DF <= d <= max(tf.MIN_DF, tf.MAX_DF_SHARE * n))
    keep = set(vocab)
    rows = []
    for c in counts:
        w = {t: (1 + math.log(k)) * (math.log((1 + n) / (1 + df[t])) + 1) for t, k in c.items() if t in keep}
        norm = math.sqrt(sum(v * v for v in w.values())) or 1.0
        rows.append({t: v / norm for t, v in w.items()})
    return vocab, rows


def assert_features_equal(f: tf.Features, texts: list[tuple[str, str, str, bool]]) -> None:
    vocab, rows = reference(texts)
    assert f.vocab == vocab and f.ids == [t[0] for t in texts]
    for r, want in enumerate(rows):
        cols, vals = f.row_terms(r)
        got = {f.vocab[c]: float(v) for c, v in zip(cols, vals, strict=True)}
        assert got.keys() == want.keys()
        assert all(abs(got[t] - want[t]) < 1e-5 for t in want)


def test_the_fast_tokenizer_finds_the_words_of_lower_words_on_the_seeds(lib) -> None:
    texts = [tf.paper_text(t, a, own) for _pid, t, a, own in lib.paper_texts()] + TRICKY
    assert texts
    for text in texts:
        assert tf.lowered_words(text) == lower_words(text), text


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not available")
def test_the_fast_tokenizer_agrees_on_the_corpus() -> None:
    with CORPUS.open(encoding="utf-8") as f:
        for n, line in enumerate(f):
            if n >= 3000:
                break
            r = json.loads(line)
            text = f"{r['title']} {r['abstract']}"
            assert tf.lowered_words(text) == lower_words(text), r["id"]


def test_counts_weigh_into_the_plain_tfidf(lib) -> None:
    texts = lib.paper_texts() + [("t0", "Own title words", TRICKY[0], True), ("t1", "derived", TRICKY[1], False),
                                 ("t2", "", "", True)]
    assert_features_equal(tf.build(texts), texts)


def test_stored_counts_are_used_while_nothing_changed(lib, monkeypatch: pytest.MonkeyPatch) -> None:
    root = lib.paths.root
    first = feature_store.current(lib, root)
    assert feature_store.path_for(root).exists()
    monkeypatch.setattr(feature_store, "count", lambda texts: pytest.fail("counted again"))
    again = feature_store.current(lib, root)
    assert again.vocab == first.vocab and np.array_equal(again.data, first.data)


def test_stored_counts_follow_an_edit_an_import_and_a_delete(lib, tmp_path: Path) -> None:
    root = lib.paths.root
    feature_store.current(lib, root)
    ids = [t[0] for t in lib.paper_texts()]
    lib.set_title(ids[0], "Quantum chromodynamics lattice gauge theory")
    lib.delete_papers([ids[1]])
    src = tmp_path / "more.jsonl"
    src.write_text(json.dumps({"title": "Lattice gauge theory on graphs", "abstract": "Gauge fields on a lattice "
                               "of graphs; quantum chromodynamics."}) + "\n", encoding="utf-8")
    lib.import_files([src])
    counted: list[int] = []
    original = feature_store.count

    def spy(texts):  # only the edited and the new paper are counted again
        counted.append(len(texts))
        return original(texts)

    feature_store.count = spy  # type: ignore[assignment]
    try:
        updated = feature_store.current(lib, root)
    finally:
        feature_store.count = original  # type: ignore[assignment]
    assert counted == [2]
    texts = lib.paper_texts()
    assert_features_equal(updated, texts)
    assert ids[1] not in updated.index and "lattice" in updated.vocab
    stored = feature_store.load(feature_store.path_for(root))
    assert stored is not None and stored[0].ids == [t[0] for t in texts]


def test_a_damaged_or_unwritable_store_is_counted_again(lib, monkeypatch: pytest.MonkeyPatch) -> None:
    root = lib.paths.root
    path = feature_store.path_for(root)
    path.write_bytes(b"not a numpy file")
    assert feature_store.load(path) is None
    assert_features_equal(feature_store.current(lib, root), lib.paper_texts())
    assert feature_store.load(path) is not None

    def refuse(*_args, **_kwargs):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(feature_store, "save", refuse)
    lib.set_title(lib.paper_texts()[0][0], "A changed title")
    assert_features_equal(feature_store.current(lib, root), lib.paper_texts())  # still the features
