"""More like this is the TF-IDF cosine (sublinear tf, smooth idf, min df 2) of papers' words to the
seeds' centroid (weighted by consensus, less the library's mean); one paper's related list adds its
nearest neighbours' mean cosine."""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from reader.search import SearchIndex, similar
from reader.search.schema import similarity_words

from .helpers import doc, num

VOCAB = ("graph neural network sparse attention policy gradient robot mode connectivity generation "
         "regularization transformer diffusion kernel bandit causal inference molecule protein").split()


def corpus(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    return [doc(i, "",
                " ".join(rng.choice(VOCAB[: 4 + i % 16]) for _ in range(rng.randint(3, 25))) + f" only{i}")
            for i in range(1, n + 1)]


def brute(docs: list[dict], seeds: list[str]) -> dict[str, float]:
    """The reference: every paper's exact cosine to the mean of the seeds' unit vectors; for
    one seed, plus NEIGHBOUR_WEIGHT x its mean cosine to the NEIGHBOURS papers nearest the seed;
    for several, each term x (share of seeds with it) ** CONSENSUS, less CONTRAST x the
    estimated library mean (c x idf x df / n, c the seeds' mean weight / idf)."""
    tfs = {d["id"]: Counter(similarity_words(f"{d.get('title', '')} {d['abstract']}")) for d in docs}
    df: Counter[str] = Counter(t for c in tfs.values() for t in c)
    n = len(docs)

    def idf(t: str) -> float:
        return math.log((1 + n) / (1 + df[t])) + 1

    def unit(pid: str) -> dict[str, float]:
        v = {t: (1 + math.log(c)) * idf(t) for t, c in tfs[pid].items() if df[t] >= 2}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {t: x / norm for t, x in v.items()}

    k = len(seeds)
    cen: Counter[str] = Counter()
    have: Counter[str] = Counter()
    for s in seeds:
        for t, x in unit(s).items():
            cen[t] += x / k
            have[t] += 1
    if k > 1:
        entries = [x / idf(t) for s in seeds for t, x in unit(s).items()]
        c = similar.CONTRAST * sum(entries) / len(entries) / n
        cen = Counter({t: x * (have[t] / k) ** similar.CONSENSUS - c * idf(t) * df[t]
                       for t, x in cen.items()})
        cen = Counter({t: x for t, x in cen.items() if x > 0})
    def dot(a: dict[str, float], b: dict[str, float]) -> float:
        return sum(x * b.get(t, 0.0) for t, x in a.items())

    out = {pid: dot(unit(pid), cen) for pid in tfs if pid not in seeds}
    out = {pid: sc for pid, sc in out.items() if sc > 0}
    if len(seeds) == 1:
        near = sorted(out, key=out.__getitem__, reverse=True)[:similar.NEIGHBOURS]
        w = similar.NEIGHBOUR_WEIGHT / len(near)
        out = {pid: sc + w * sum(dot(unit(pid), unit(j)) for j in near if j != pid)
               for pid, sc in out.items()}
    return out


def test_scores_are_the_exact_cosine_with_neighbours(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(similar, "MAX_DF_SHARE", 1.0)  # walk every term (a 20-word vocabulary)
    monkeypatch.setattr(similar, "MAX_DF_SHARE_ONE", 1.0)
    docs = corpus(120, 1)
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(docs, stamp=1)
    for seeds in ([num(1)], [num(2), num(7), num(30)]):
        want = brute(docs, seeds)
        got = index.more_like(seeds, limit=200)
        best = sorted(want.values(), reverse=True)
        # The top 30 get their exact norm: same scores (up to the query's norm) and order.
        scale = got[0][1] / best[0]
        for (pid, sc), ref in zip(got[:20], best[:20], strict=True):
            assert math.isclose(sc / scale, want[pid], rel_tol=1e-6)
            assert math.isclose(want[pid], ref, rel_tol=1e-6)
        assert {p for p, _ in got} == set(want)
    index.close()


def test_updates_in_small_segments_rank_as_a_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(similar, "MAX_DF_SHARE", 1.0)
    monkeypatch.setattr(similar, "MAX_DF_SHARE_ONE", 1.0)
    docs = corpus(150, 2)
    a = SearchIndex.open(tmp_path / "a")
    a.rebuild(docs, stamp=1)
    b = SearchIndex.open(tmp_path / "b")
    b.rebuild(docs[:100], stamp=1)
    for i in range(100, 150, 5):  # ten small segments
        b.update(docs[i:i + 5], stamp=i)
    seeds = [num(4), num(120), num(140)]
    assert [p for p, _ in a.more_like(seeds, limit=15)] == [p for p, _ in b.more_like(seeds, limit=15)]
    assert a.related(num(3), limit=5) == b.related(num(3), limit=5)
    b.update([dict(docs[2], abstract="graph attention")], stamp=200)  # num(3) replaced
    text = {d["id"]: d["abstract"] for d in docs}
    got = b.related(num(3), limit=150)
    assert got and all({"graph", "attention"} & set(text[p].split()) for p, _ in got)
    a.close()
    b.close()


@pytest.mark.fast_path_only
def test_whole_lexicon_and_postings_read_in_one_piece_match_the_public_api(tmp_path: Path) -> None:
    from reader.search.segments.internals import doc_frequencies, lexicon, postings_at

    docs = corpus(60, 3) + [doc(100 + i, "", "graph " * (i % 7 + 1)) for i in range(300)]  # many blocks
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(docs[:40], stamp=1)
    index.update(docs[40:], stamp=2)
    with index._read_lock:
        leaves = [leaf for leaf, _ in index._s().reader().leaf_readers()]
        assert len(leaves) > 1
        seen: list[tuple[int, int, int]] = []
        for leaf in leaves:
            for field in ("abstract", "title", "authors", "tags"):
                public = {}
                if field in leaf.schema:
                    public = {b.decode(): i.doc_frequency() for b, i in leaf.iter_field(field)}
                assert doc_frequencies(leaf, field) == public
            assert doc_frequencies(leaf, "abstract")  # not vacuous
            assert doc_frequencies(leaf, "nosuchfield") == {}
            for term, entry in lexicon(leaf, "abstract").items():
                m = leaf.postings("abstract", term)
                public = []
                while m.is_active():
                    public.append((m.id(), m.weight()))
                    m.next()
                assert list(zip(*postings_at(leaf, "abstract", term, entry), strict=True)) == public
            seen += lexicon(leaf, "abstract").values()
        assert max(e[0] for e in seen) > 128  # several posting blocks
        # Read in one piece (blocks, or postings inlined in the terms table: offset below -1),
        # not through the fallback (-1).
        assert all(e[1] != -1 for e in seen) and any(e[1] < -1 for e in seen) and any(e[1] >= 0 for e in seen)
    index.close()


def test_words_field_holds_the_unstemmed_words_of_title_and_abstract(tmp_path: Path) -> None:
    from reader.search.segments.internals import lexicon

    text = "However, the generating networks generate Générations within several graphs."
    assert similarity_words(text) == ["generating", "networks", "generate", "generations", "graphs"]
    docs = [doc(1, "Graph networks", text), doc(2, "", "Graphs of networks, however sparse."),
            dict(doc(3, "Derived opening", "networks again"), title_source="derived")]
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(docs, stamp=1)
    with index._read_lock:
        (leaf, _), = index._s().reader().leaf_readers()
        words = {t: e[0] for t, e in lexicon(leaf, "words").items()}  # term -> df
    # A real title counts, a derived one (the abstract's opening) does not; no stems, no
    # "however"/"within"/"several"/"of"/"again".
    assert words == {"graph": 1, "networks": 3, "generating": 1, "generate": 1, "generations": 1,
                     "graphs": 2, "sparse": 1}
    index.close()


def test_warm_up_of_an_empty_index_is_quiet(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    index = SearchIndex.open(tmp_path / "ix")
    with caplog.at_level("WARNING"):
        index.warm()  # a fresh library: no segment yet
    assert not caplog.records
    index.rebuild(corpus(20, 4), stamp=1)
    with caplog.at_level("WARNING"):
        index.warm()
    assert not caplog.records
    assert index.related(num(1), limit=3)
    index.close()


def test_a_busy_machine_gets_the_same_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The postings budget bounds the walk, not the clock: with each look at the clock a second
    later (a loaded machine) the list is the same. At a 0.15 s budget the walk stopped after a few terms, so
    best-first triage and "like these" got worse with the load."""
    monkeypatch.setattr(similar, "MAX_DF_SHARE", 1.0)
    docs = corpus(120, 3)
    index = SearchIndex.open(tmp_path / "ix")
    index.rebuild(docs, stamp=1)
    seeds = [num(3), num(9), num(40)]
    quiet = index.more_like(seeds, limit=30)

    now = [0.0]

    def slow() -> float:  # every look at the clock finds a second gone
        now[0] += 1.0
        return now[0]

    monkeypatch.setattr(time, "perf_counter", slow)
    monkeypatch.setattr(time, "monotonic", slow)
    assert index.more_like(seeds, limit=30) == quiet
    index.close()
