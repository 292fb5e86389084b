"""Best first on real data: after 5 stars sharing an ICLR 2018 author keyword, the next 10 hold
at least as many papers with that keyword as a TF-IDF centroid ranking (the issue's acceptance)."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

import pytest

from reader.library import Library, View
from reader.triage.queue import BEST_FIRST
from reader.triage.source import order_ids

ICLR = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "ml_conference_corpus" / "raw_paperlists" \
    / "iclr2018.json"
SEEDS, TOP = 5, 10
TOKEN = re.compile(r"\b\w\w+\b")  # scikit-learn's default token pattern


def keywords(paper: dict) -> set[str]:
    return {k.strip().lower() for k in (paper.get("keywords") or "").split(";") if k.strip()}


def tfidf_centroid_rank(texts: dict[str, str], seeds: list[str], candidates: list[str]) -> list[str]:
    """The baseline: smooth-idf TF-IDF, L2-normalised, candidates by dot product with the seeds' mean."""
    counts = {pid: Counter(TOKEN.findall(text.lower())) for pid, text in texts.items()}
    df: Counter[str] = Counter()
    for c in counts.values():
        df.update(c.keys())
    n = len(counts)
    idf = {t: math.log((1 + n) / (1 + d)) + 1 for t, d in df.items()}

    def vector(pid: str) -> dict[str, float]:
        v = {t: c * idf[t] for t, c in counts[pid].items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {t: x / norm for t, x in v.items()}

    centroid: Counter[str] = Counter()
    for pid in seeds:
        for t, x in vector(pid).items():
            centroid[t] += x / len(seeds)
    return sorted(candidates, key=lambda pid: -sum(centroid.get(t, 0.0) * x for t, x in vector(pid).items()))


@pytest.fixture(scope="module")
def iclr(tmp_path_factory: pytest.TempPathFactory) -> tuple[Library, list[dict], dict[str, str]]:
    if not ICLR.exists():
        pytest.skip("shared corpus not available")
    if not hasattr(Library, "more_like"):
        pytest.skip("Library.more_like (the search issue's 'more like these') is not there yet")
    papers = [p for p in json.loads(ICLR.read_text(encoding="utf-8")) if p.get("title") and p.get("abstract")]
    source = tmp_path_factory.mktemp("iclr") / "iclr2018.jsonl"
    source.write_text("".join(json.dumps({"id": f"iclr2018:{p['id']}", "title": p["title"],
                                          "abstract": p["abstract"], "year": 2018, "venue": "ICLR"}) + "\n"
                              for p in papers), encoding="utf-8")
    lib = Library.open(tmp_path_factory.mktemp("lib"), seed_if_empty=False)
    lib.import_files([source])
    rows = lib.rows(lib.paper_ids(View()))
    by_title = {r.title: pid for pid, r in rows.items()}
    ids = {p["id"]: by_title[p["title"]] for p in papers if p["title"] in by_title}
    yield lib, [p for p in papers if p["id"] in ids], ids
    lib.close()


def test_best_first_beats_or_matches_a_tfidf_centroid(iclr: tuple[Library, list[dict], dict[str, str]]) -> None:
    lib, papers, ids = iclr
    pool = [ids[p["id"]] for p in papers]
    texts = {ids[p["id"]]: f"{p['title']} {p['abstract']}" for p in papers}
    tags = {ids[p["id"]]: keywords(p) for p in papers}
    freq = Counter(k for p in papers for k in keywords(p))
    chosen = sorted(k for k, c in freq.items() if 15 <= c <= 0.05 * len(pool))
    assert len(chosen) >= 10
    best, base = [], []
    for keyword in chosen:
        seeds = [pid for pid in pool if keyword in tags[pid]][:SEEDS]
        candidates = [pid for pid in pool if pid not in seeds]
        lib.set_starred(seeds, True)
        try:
            ranked = order_ids(lib, candidates, BEST_FIRST)[:TOP]  # the queue's own "best first" path
        finally:
            lib.set_starred(seeds, False)
        best.append(sum(keyword in tags[pid] for pid in ranked) / TOP)
        base.append(sum(keyword in tags[pid] for pid in tfidf_centroid_rank(texts, seeds, candidates)[:TOP]) / TOP)
    p_best, p_base = sum(best) / len(best), sum(base) / len(base)
    print(f"P@10 over {len(chosen)} keywords: best first {p_best:.3f}, TF-IDF centroid {p_base:.3f}")
    assert p_best >= p_base
