"""Best first must never lose to the centroid (issue 30, last bullet): simulated readers with one
hidden interest (an author keyword of a pool) tag "interest" the papers bearing it as they are
shown best first and skip the others; the learning finds at least as many in the first 60 shown
as the centroid of their positives (plain, and the consensus centroid of the old best first,
`rank_like`), within a tolerance. The readers and pools are those of
`benchmarks/bench_triage_learning.py --issue` (seed 1), which gives the figures
(benchmarks/RESULTS-30-learning.md): on every keyword pool the learning is level with the better
centroid on average; single pool x setting cells swing by about ±0.5 paper with 16 readers, so
the tolerance is a noise-level 0.75 paper over 8 readers (rejects weighed 3.0 instead of 0.3
fail it by 4.75). Here the two cells where the learning was furthest behind (COLM 2024 and CoRL
2022, starting from 5 papers, re-ranked every 10)."""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from reader.triage.features import Features, build
from reader.triage.interests import Decisions, Learner
from reader.triage.learner import consensus_centroid

JSONL = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
SHOWN, READERS, SEED, TOLERANCE = 60, 8, 1, 0.75

Rank = Callable[[list[int], list[int], list[int]], list[int]]


def pools(names: set[str]) -> dict[str, tuple[list[str], list[set[str]]]]:
    """Each venue-year's keyworded abstracts (an abstract twice kept once), in file order."""
    out: dict[str, tuple[list[str], list[set[str]]]] = {}
    seen: set[str] = set()
    with JSONL.open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            name = f"{r['venue']} {r['year']}"
            kws = {k.strip().lower() for k in r.get("keywords") or () if k.strip()}
            flat = " ".join((r.get("abstract") or "").split())
            if name in names and kws and flat and (name, flat) not in seen:
                seen.add((name, flat))
                abstracts, keywords = out.setdefault(name, ([], []))
                abstracts.append(r["abstract"])
                keywords.append(kws)
    return out


def readers(name: str, keywords: list[set[str]], start: int) -> list[tuple[str, list[int]]]:
    """A keyword of 10 papers up to 15% of the pool and `start` of its papers, per reader."""
    rng = random.Random(f"{name}:{SEED}")
    freq = Counter(k for ks in keywords for k in ks)
    fit = sorted(k for k, c in freq.items() if 10 <= c <= 0.15 * len(keywords))
    rng.shuffle(fit)
    out = []
    for keyword in (fit * (READERS // max(len(fit), 1) + 1))[:READERS]:
        out.append((keyword, rng.sample([i for i, ks in enumerate(keywords) if keyword in ks], start)))
    return out


def found(rank: Rank, keywords: list[set[str]], keyword: str, start: list[int], every: int) -> int:
    """Papers bearing `keyword` among the first SHOWN, re-ranked after every `every` decisions."""
    want = {i for i, ks in enumerate(keywords) if keyword in ks}
    positives, skipped = list(start), []
    candidates = [i for i in range(len(keywords)) if i not in set(start)]
    hits = shown = 0
    while shown < SHOWN:
        batch = rank(candidates, positives, skipped)[:min(every, SHOWN - shown)]
        for pick in batch:
            shown += 1
            candidates.remove(pick)
            if pick in want:
                hits += 1
                positives.append(pick)
            else:
                skipped.append(pick)
    return hits


def by_weights(features: Features, weights: Callable[[np.ndarray], np.ndarray]) -> Rank:
    def rank(candidates: list[int], positives: list[int], skipped: list[int]) -> list[int]:
        s = features.scores(weights(np.asarray(positives)))
        c = np.asarray(candidates)
        return c[np.argsort(-s[c], kind="stable")].tolist()

    return rank


def learned(features: Features) -> Rank:
    learner = Learner(features)

    def rank(candidates: list[int], positives: list[int], skipped: list[int]) -> list[int]:
        ids = features.ids
        d = Decisions(skipped={ids[i] for i in skipped}, tags={"interest": [ids[i] for i in positives]})
        return [features.index[p] for p in learner.rank([ids[i] for i in candidates], d).order]

    return rank


def methods(features: Features) -> dict[str, Callable[[], Rank]]:
    return {
        "ours": lambda: learned(features),
        "plain centroid": lambda: by_weights(features, features.dense_weights),
        "consensus centroid": lambda: by_weights(features, lambda p: consensus_centroid(features, p)),
    }


CASES = [("CORL 2022", 5, 10), ("COLM 2024", 5, 10)]  # pool, starting positives, re-rank every


@pytest.mark.skipif(not JSONL.exists(), reason="shared corpus not available")
def test_the_learning_finds_as_many_as_the_centroid_of_the_positives() -> None:
    data = pools({name for name, _, _ in CASES})
    for name, start, every in CASES:
        abstracts, keywords = data[name]
        features = build([(f"p{n}", "", a, False) for n, a in enumerate(abstracts)])
        got = {m: [found(make(), keywords, k, s, every) for k, s in readers(name, keywords, start)]
               for m, make in methods(features).items()}
        mean = {m: statistics.mean(v) for m, v in got.items()}
        best = max(mean["plain centroid"], mean["consensus centroid"])
        assert mean["ours"] >= best - TOLERANCE, (name, start, every, got)
