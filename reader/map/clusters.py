"""Regions of the map and the words that tell them apart.

Clusters are k-means cells of the 2-D places (what the eye sees as a region), at two levels: a
coarse one labelled at every zoom and a fine one shown as the user zooms in. A cluster's label is
up to MAX_WORDS of its distinguishing words: each in at least MIN_SHARE of the cluster's
abstracts and, elsewhere, in at most RATIO of that share (a word of the whole field is no label).
Abstracts, not titles: a title carries words its abstract lacks, so a title word could label a
region whose abstracts mostly never say it (a paper without an abstract counts its title). A
cluster without such a word is left unlabelled rather than given a misleading one. A label
names each word form once ("attacks · attack" says "attacks"), and within a level a word form
labels only the region it tells apart best (two regions never both say "language"), unless
that region has other words and another region none but this one."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .features import Sparse

MIN_SHARE = 0.4
RATIO = 0.25
MAX_WORDS = 3
ITERATIONS = 25
SEED = 20
ASSIGN_BLOCK = 8_192
_LABEL_WORD = re.compile(r"^[^\W\d_][\w-]{2,}$")  # no numbers, no two-letter fragments
# Words of how papers are written, not of what they are about (they pass the share test in a
# small library by chance: "present", "compared", "achieving" labelled seed regions).
BOILERPLATE = frozenset("""
    achieve achieved achieves achieving approach approaches art based compared demonstrate
    demonstrates effective effectively existing experiments improve improved improves method
    methods novel paper performance present presents problem problems propose proposed
    proposes results show shows significantly state studies study using work""".split())


@dataclass(frozen=True)
class Cluster:
    """One region: its number within its level and its label words (empty: unlabelled)."""

    id: int
    level: int  # 0 coarse, 1 fine
    words: tuple[str, ...]

    @property
    def label(self) -> str:
        return " · ".join(self.words)


def counts_for(n: int) -> tuple[int, int]:
    """(coarse, fine) numbers of clusters for n papers."""
    # A small library still gets a few regions (56 seed papers: 3 and 6).
    coarse = int(np.clip(round(np.sqrt(n / 8)), min(3, max(1, n // 10)), 24))
    fine = int(np.clip(round(np.sqrt(n / 1.5)), coarse, 150))
    return min(coarse, max(1, n)), min(fine, max(1, n))


def _nearest_centre(pts: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Each point's nearest centre, in row blocks (50k points x 150 centres at once: 180 MB)."""
    out = np.empty(len(pts), dtype=np.int64)
    c2 = (c ** 2).sum(1)[None, :]
    for start in range(0, len(pts), ASSIGN_BLOCK):
        p = pts[start:start + ASSIGN_BLOCK]
        out[start:start + len(p)] = ((p ** 2).sum(1)[:, None] - 2 * p @ c.T + c2).argmin(axis=1)
    return out


def kmeans_2d(xy: np.ndarray, k: int, *, seed: int = SEED) -> np.ndarray:
    """Cluster numbers (0..k-1, the biggest first) of 2-D points; farthest-point start."""
    n = len(xy)
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    k = max(1, min(k, n))
    pts = xy.astype(np.float64)
    rng = np.random.default_rng(seed)
    centres = [pts[rng.integers(n)]]
    dist = ((pts - centres[0]) ** 2).sum(axis=1)
    for _ in range(1, k):
        centres.append(pts[int(dist.argmax())])
        dist = np.minimum(dist, ((pts - centres[-1]) ** 2).sum(axis=1))
    c = np.array(centres)
    labels = np.zeros(n, dtype=np.int64)
    for _ in range(ITERATIONS):
        new = _nearest_centre(pts, c)
        if np.array_equal(new, labels) and _ > 0:
            break
        labels = new
        sizes = np.bincount(labels, minlength=k)
        for dim in range(2):
            sums = np.bincount(labels, weights=pts[:, dim], minlength=k)
            c[:, dim] = np.where(sizes > 0, sums / np.maximum(sizes, 1), c[:, dim])
    # Renumber by size (ties by the old number): cluster 0 is the biggest.
    sizes = np.bincount(labels, minlength=k)
    order = np.lexsort((np.arange(k), -sizes))
    rank = np.empty(k, dtype=np.int32)
    rank[order] = np.arange(k, dtype=np.int32)
    return rank[labels]


def label_words(x: Sparse, words: list[str], labels: np.ndarray, k: int) -> list[tuple[str, ...]]:
    """Each cluster's distinguishing words (see the module docstring), best first."""
    # Each (cluster, word) pair that occurs, with its paper count: sparse (a dense clusters x
    # words table at 50k papers was 150 x 80k counts, 100 MB).
    key = np.repeat(labels.astype(np.int64) * x.cols, np.diff(x.indptr))
    key += x.indices
    pairs, df_c = np.unique(key, return_counts=True)
    del key
    of_cluster, word = pairs // x.cols, (pairs % x.cols).astype(np.int64)
    del pairs
    bounds = np.searchsorted(of_cluster, np.arange(k + 1))
    df = np.bincount(x.indices, minlength=x.cols)
    sizes = np.bincount(labels, minlength=k).astype(np.float64)
    n = float(len(labels))
    usable = np.array([usable_word(w) for w in words], dtype=bool)
    ranked: list[list[tuple[float, int]]] = []  # each cluster's usable words, best first
    for c in range(k):
        w = word[bounds[c]:bounds[c + 1]]  # in word order
        inside = df_c[bounds[c]:bounds[c + 1]] / max(sizes[c], 1.0)
        rest = n - sizes[c]
        outside = (df[w] - df_c[bounds[c]:bounds[c + 1]]) / rest if rest > 0 else np.zeros_like(inside)
        ok = usable[w] & (inside >= MIN_SHARE) & (outside <= RATIO * inside)
        if sizes[c] < 3 or not ok.any():
            ranked.append([])
            continue
        cand = w[ok]
        # In many of the cluster's papers, and far more often than elsewhere.
        score = inside[ok] * np.log((inside[ok] + 1e-3) / (outside[ok] + 1e-3))
        order = np.lexsort((cand, -score))
        ranked.append([(float(score[i]), int(cand[i])) for i in order])
    # A word form labels the region it tells apart best (ties: the lower number, the bigger one).
    owner: dict[str, tuple[float, int]] = {}
    for c, found in enumerate(ranked):
        for score, j in found:
            form = word_form(words[j])
            if form not in owner or score > owner[form][0]:
                owner[form] = (score, -c)

    def pick(c: int) -> tuple[str, ...]:
        chosen: list[str] = []
        forms: set[str] = set()
        for _score, j in ranked[c]:
            form = word_form(words[j])
            if form in forms or owner[form][1] != -c:
                continue
            forms.add(form)
            chosen.append(words[j])
            if len(chosen) == MAX_WORDS:
                break
        return tuple(chosen)

    out = [pick(c) for c in range(k)]
    # A region left bare while a region owning one of its words has more than that one: the
    # word goes to the bare region (a label for each region where a word qualifies).
    for c, found in enumerate(ranked):
        if out[c]:
            continue
        for score, j in found:
            form = word_form(words[j])
            other = -owner[form][1]
            if len(out[other]) > 1 and form in {word_form(w) for w in out[other]}:
                owner[form] = (score, -c)
                out[other], out[c] = pick(other), pick(c)
                break
    return out


def usable_word(word: str) -> bool:
    """Whether `word` may label a region at all (no number, no fragment, no boilerplate)."""
    return bool(_LABEL_WORD.match(word)) and word not in BOILERPLATE


def word_form(word: str) -> str:
    """The word with a plural ending taken off: "attacks" and "attack", "gans" and "gan",
    "studies" and "study", "boxes" and "box" share one form ("loss", "focus", "analysis" keep theirs)."""
    w = word.casefold()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith("es") and w[:-2].endswith(("ss", "x", "z", "ch", "sh")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def presence(docs: Iterable[Sequence[str] | None], words: list[str], fallback: Sparse) -> Sparse:
    """Which of `words` each paper's label text holds (rows of ones, word order), from its
    tokens; a None doc takes its row of `fallback` (its label text is the text `fallback` was
    counted from: no title, or no abstract)."""
    index = {w: j for j, w in enumerate(words)}
    indptr = [0]
    indices: list[int] = []
    for row, doc in enumerate(docs):
        if doc is None:
            indices.extend(fallback.indices[fallback.indptr[row]:fallback.indptr[row + 1]].tolist())
        else:
            indices.extend(sorted({j for j in map(index.get, doc) if j is not None}))
        indptr.append(len(indices))
    if len(indptr) != fallback.rows + 1:
        raise ValueError(f"label texts of {len(indptr) - 1} papers for {fallback.rows} rows")
    return Sparse(np.array(indptr, dtype=np.int64), np.array(indices, dtype=np.int32),
                  np.ones(len(indices), dtype=np.float32), len(words))


def without(x: Sparse, words: list[str], lacking: Sequence[str]) -> Sparse:
    """Which of `words` each paper's label text holds (rows of ones): x's words less the
    paper's `lacking` ones (space-separated: its title's words its abstract lacks)."""
    index = {w: j for j, w in enumerate(words)}
    drop = [row * x.cols + j for row, extra in enumerate(lacking) if extra
            for j in map(index.get, extra.split()) if j is not None]
    row_of = np.repeat(np.arange(x.rows, dtype=np.int64), np.diff(x.indptr))
    keep = ~np.isin(row_of * x.cols + x.indices, np.array(drop, dtype=np.int64))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(row_of[keep], minlength=x.rows))]).astype(np.int64)
    return Sparse(indptr, x.indices[keep], np.ones(int(keep.sum()), dtype=np.float32), x.cols)


def cluster(xy: np.ndarray, x: Sparse, words: list[str],
            own: Sparse | None = None) -> tuple[np.ndarray, np.ndarray, list[Cluster]]:
    """(coarse numbers, fine numbers, every cluster with its label) of the laid-out papers;
    `own`: the words of each paper's label text (presence), x's when None."""
    k0, k1 = counts_for(len(xy))
    coarse = kmeans_2d(xy, k0)
    fine = kmeans_2d(xy, k1)
    held = x if own is None else own
    found = [Cluster(c, 0, w) for c, w in enumerate(label_words(held, words, coarse, k0))]
    found += [Cluster(c, 1, w) for c, w in enumerate(label_words(held, words, fine, k1))]
    return coarse, fine, found
