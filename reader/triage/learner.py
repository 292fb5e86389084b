"""One interest's linear model: L2-regularised logistic regression on the library's TF-IDF.

Positives are the interest's papers; negatives the papers the user said "not for me" to,
and a sample of the papers not yet decided as weak, presumed negatives (most papers of a
conference are not what one reader wants: without them the first rounds, with two stars and
no skips, have nothing to contrast with, and the judged negatives alone are the hard ones the
ranking already put near the top). Measured in `benchmarks/bench_triage_learning.py`.

The interest's name (a tag's) is read as a query too (`name_part`): the one signal the
keyword pools hold beyond the abstracts, and the one that lifted the model past the references
(1.04x -> 1.12x; with tags named "to read", "thesis"..., 1.04x: the name adds nothing then).
On five venues never used in tuning (COLM 2024, CoRL 2022-25, 3DV 2025, 142-392 papers):
1.12x with the name, 1.01x without.

Trained by Nesterov's accelerated gradient on the few hundred rows involved, in the columns
those rows use (a few thousand): a few ms.

Variants measured (found at 50 shown / the better reference, 20 readers a pool; "2 pools":
ICLR 2018 and COLM 2025, where this model is 1.03x; "tuned": ICLR 2018, COLM 2025, IJCAI 2020
and 2022 x 2 reader seeds, "held out": ICLR 2017, IJCAI 2021, 2023 and 2024 x 2 seeds, given as
the change against this model, without the name, on the same readers and references). None beat this model by
more than the noise (a pool's figure moves by ±0.1 between reader seeds), so none is used:
- the consensus centroid alone 1.03x (share ** 0.25: 1.04, ** 1: 1.01; rejects' mean less: 1.00) (2 pools)
- the plain centroid 0.97x; kNN (mean of the 3 nearest positives) 0.93x; two-hop similarity 0.97x (2 pools)
- LSA (randomized SVD, map/features.svd) centroid alone, 128 dims: 0.95x; added at weight 1 with
  64/128/256 dims: 1.03/0.97/1.01x (2 pools); added at 0.3, 128 dims: +0.4% (tuned)
- LSA 64-dim kNN (the 3 nearest positives) added at 0.3: +1.2% tuned, +1.4% held out (12 of 16
  pool x seed better): the most promising, not adopted (an SVD per library, within the noise)
- personalised PageRank on the kNN graph (k 10-20, restart 0.2-0.5): 0.87-0.90x, skipped papers as
  negative sources 0.83x, added to this model 1.00-1.01x (2 pools)
- BM25 document weights for the consensus query 1.00-1.02x; Robertson-Sparck Jones relevance
  weights (20-100 terms) 0.82-0.92x; word pairs in the centroid 1.01-1.02x (2 pools)
- skipped papers as local negatives (their nearest neighbours' similarity less): 1.00-1.02x (2 pools)
- reciprocal-rank fusion of this model, the consensus centroid, BM25 and LSA: -0.3% (3 tuned pools);
  pseudo-relevance feedback (the top 3 unjudged as positives at 0.3, first two rounds): +1.1% (tuned)
- this model's weights: centroid 0.5 / 2: -0.2 / +0.2%; presumed negatives' weight 4 / 16:
  +0.1 / -0.4%; no rejects -0.8%; features without words in over 30% of papers -1.5% (tuned)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.triage.features import Features

L2 = 0.03  # ridge penalty (per unit of total sample weight)
ITERATIONS = 30
UNLABELLED = 400  # presumed negatives sampled from the undecided papers
UNLABELLED_WEIGHT = 8.0  # their total weight, against the positives' 1 (and the negatives' 1)
NEGATIVE_WEIGHT = 0.0  # skipped papers in the regression: they are the hard ones, and it overfits them
# The interest's score: z(regression) + CENTROID_WEIGHT x z(consensus centroid of the positives)
# - REJECT_WEIGHT x z(centroid of the skipped papers), each z over the library: one linear model.
# The first two depend on the interest's positives only, so a skip re-ranks without training.
# Keyword pools (ICLR 2018, IJCAI 2022, COLM 2025, 20 readers, found at 50 shown): the regression
# alone 9.35 / 8.3 / 7.05, with the centroid 9.6 / 8.35 / 7.5, and the rejects 9.6 / 8.4 / 7.4.
CENTROID_WEIGHT = 1.0
REJECT_WEIGHT = 0.3
CONSENSUS = 0.5  # a centroid term weighs its mean x (share of the positives having it) ** 0.5 ...
CONTRAST = 1.0  # ... less the library's mean weight (as search/similar.py's "more like these")
# A tag's name is a query too: its words, idf-weighted, added at NAME_WEIGHT x NAME_PRIOR /
# (NAME_PRIOR + positives) x the share of the positives having one of them. A prior worth a few
# papers, which the tagged papers replace; a name none of them bears ("to read") adds nothing.
# Keyword pools, 8 x 20 readers: found at 50 shown 1.04x -> 1.12x the better reference; with
# the tags renamed to such words ("important", "thesis"...), 1.04x (the name adds nothing).
NAME_WEIGHT = 1.2
NAME_PRIOR = 4.0


@dataclass
class Model:
    """Weights over the vocabulary (and a bias); `positives` are the rows it learned from."""

    weights: np.ndarray
    bias: float
    positives: np.ndarray
    all_scores: np.ndarray | None = None  # every paper's score, when the parts had them

    def scores(self, features: Features) -> np.ndarray:
        if self.all_scores is not None:
            return self.all_scores
        return features.scores(self.weights) + np.float32(self.bias)

    def score_row(self, features: Features, row: int) -> float:
        cols, vals = features.row_terms(row)
        return float(vals @ self.weights[cols]) + self.bias


def _local(features: Features, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(local row, local column, value) of `rows` and the vocabulary column of each local one."""
    local_rows, cols, vals = features.sub(rows)
    used, local_cols = np.unique(cols, return_inverse=True)
    return local_rows, local_cols.astype(np.int32), vals, used


def _segment_sums(values: np.ndarray, starts: np.ndarray, empty: np.ndarray | None) -> np.ndarray:
    """The sum of each segment of `values` beginning at `starts` (0 for the `empty` ones)."""
    if not len(starts):
        return np.zeros(0, np.float64)
    out = np.add.reduceat(np.append(values, 0.0), starts)
    if empty is not None:
        out[empty] = 0.0  # reduceat gives an empty segment the next one's first value
    return out


def train(features: Features, positives: np.ndarray, negatives: np.ndarray, unlabelled: np.ndarray,
          *, weak: np.ndarray | None = None, weak_weight: float = 0.0, unlabelled_weight: float | None = None,
          l2: float | None = None, iterations: int | None = None) -> Model:
    """A model of `positives` against `negatives`, `unlabelled` (presumed negatives) and `weak`
    (papers moved past without a decision, at `weak_weight`); each group's weights sum to its
    share, so 3 positives weigh as much as 300 skipped papers."""
    weak = np.zeros(0, np.int64) if weak is None else weak
    unlabelled_weight = UNLABELLED_WEIGHT if unlabelled_weight is None else unlabelled_weight
    l2 = L2 if l2 is None else l2
    iterations = ITERATIONS if iterations is None else iterations
    groups = [(positives, 1.0, 1.0), (negatives, -1.0, NEGATIVE_WEIGHT),
              (unlabelled, -1.0, unlabelled_weight), (weak, -1.0, weak_weight)]
    groups = [(g, y, w) for g, y, w in groups if len(g) and w > 0]
    rows = np.concatenate([g for g, _, _ in groups]).astype(np.int64)
    y = np.concatenate([np.full(len(g), y, np.float32) for g, y, _ in groups])
    sw = np.concatenate([np.full(len(g), w / len(g), np.float32) for g, _, w in groups])
    local_rows, local_cols, vals, used = _local(features, rows)
    n, k = len(rows), len(used)
    lam = l2 * float(sw.sum())
    # Both products as segmented sums (numpy's reduceat: ~10x bincount): by row as stored, and
    # by column through one sort of the values.
    row_starts = np.concatenate(([0], np.cumsum(np.bincount(local_rows, minlength=n))[:-1]))
    row_empty = np.bincount(local_rows, minlength=n) == 0
    by_col = np.argsort(local_cols, kind="stable")
    col_starts = np.concatenate(([0], np.cumsum(np.bincount(local_cols, minlength=k))[:-1]))
    col_vals, col_rows = vals[by_col], local_rows[by_col]

    def margins(w: np.ndarray, b: float) -> np.ndarray:
        return _segment_sums(vals * w[local_cols], row_starts, row_empty) + b

    def gradient(w: np.ndarray, b: float) -> tuple[np.ndarray, float]:
        z = y * margins(w, b)
        g = -sw * y / (1.0 + np.exp(np.clip(z, -30, 30)))  # d loss / d margin
        return _segment_sums(col_vals * g[col_rows], col_starts, None) + lam * w, float(g.sum())

    # Rows have unit norm, so the loss's curvature is at most 1/4 of the total sample weight.
    step = 1.0 / (0.25 * float(sw.sum()) * 2 + lam)
    w = np.zeros(k, np.float64)
    b = 0.0
    w_prev, b_prev = w, b
    for t in range(1, iterations + 1):
        momentum = (t - 1) / (t + 2)
        v, c = w + momentum * (w - w_prev), b + momentum * (b - b_prev)
        gw, gb = gradient(v, c)
        w_prev, b_prev = w, b
        w, b = v - step * gw, c - step * gb
    full = np.zeros(features.n_terms, np.float32)
    full[used] = w
    return Model(full, float(b), np.asarray(positives, np.int64))


def consensus_centroid(features: Features, positives: np.ndarray) -> np.ndarray:
    """The positives' mean, each term times the share of them that has it ** CONSENSUS, less
    CONTRAST x the library's mean weight of the term (kept >= 0): what they share, not one's words."""
    _, cols, vals = features.sub(positives)
    n = max(len(positives), 1)
    mean = np.bincount(cols, weights=vals, minlength=features.n_terms) / n
    share = np.bincount(cols, minlength=features.n_terms) / n
    q = mean * share**CONSENSUS - CONTRAST * features.mean_row() * (mean > 0)
    return np.maximum(q, 0).astype(np.float32)


@dataclass
class Part:
    """One linear scorer scaled to unit spread over the library: weights and every paper's score."""

    weights: np.ndarray
    scores: np.ndarray

    @classmethod
    def of(cls, features: Features, weights: np.ndarray, raw: np.ndarray | None = None) -> Part:
        """`raw`: every paper's score by `weights`, when the caller has it already."""
        raw = features.scores(weights) if raw is None else raw
        mean, spread = float(raw.mean()), float(raw.std()) or 1.0
        return cls(weights / np.float32(spread), (raw - np.float32(mean)) / np.float32(spread))


def interest_parts(features: Features, positives: np.ndarray, unlabelled: np.ndarray, name: str = "",
                   **kwargs: object) -> Part:
    """The regression plus the positives' centroid and the interest's name: what depends on the
    positives only (cached between decisions by the caller; `train` takes the keyword arguments)."""
    lr = Part.of(features, train(features, positives, np.zeros(0, np.int64), unlabelled,
                                 **kwargs).weights)  # type: ignore[arg-type]
    centroid = Part.of(features, consensus_centroid(features, positives))
    part = Part(lr.weights + CENTROID_WEIGHT * centroid.weights, lr.scores + CENTROID_WEIGHT * centroid.scores)
    named = name_part(features, name, positives)
    if named is None:
        return part
    weight, words = named
    return Part(part.weights + weight * words.weights, part.scores + weight * words.scores)


def name_part(features: Features, name: str, positives: np.ndarray) -> tuple[float, Part] | None:
    """The words of an interest's name as a scorer, and its weight (None when no positive bears
    any of them: a name like "to read" or "project x" says nothing about the papers' words)."""
    cols = features.columns_of(name) if name else np.zeros(0, np.int64)
    if not len(cols) or not len(positives):
        return None
    query = np.zeros(features.n_terms, np.float32)
    query[cols] = features.idf()[cols]
    raw = features.scores(query)
    bearing = float(np.mean(raw[positives] > 0))
    if not bearing:
        return None
    weight = NAME_WEIGHT * NAME_PRIOR / (NAME_PRIOR + len(positives)) * bearing
    return weight, Part.of(features, query, raw)


def reject_part(features: Features, negatives: np.ndarray) -> Part | None:
    """The skipped papers' centroid (None without any)."""
    if not len(negatives) or not REJECT_WEIGHT:
        return None
    return Part.of(features, features.dense_weights(negatives) / len(negatives))


def combine(liked: Part, rejected: Part | None, positives: np.ndarray) -> Model:
    """One interest's model: its parts less the rejects' (one linear model; scores kept)."""
    if rejected is None:
        return Model(liked.weights, 0.0, positives, liked.scores)
    return Model(liked.weights - REJECT_WEIGHT * rejected.weights, 0.0, positives,
                 liked.scores - REJECT_WEIGHT * rejected.scores)


def centroid_model(features: Features, positives: np.ndarray, negatives: np.ndarray) -> Model:
    """Rocchio: the positives' mean less half the negatives' (when there is too little to train)."""
    w = np.zeros(features.n_terms, np.float32)
    if len(positives):
        w += features.dense_weights(positives) / len(positives)
    if len(negatives):
        w -= 0.5 * features.dense_weights(negatives) / len(negatives)
    return Model(w, 0.0, np.asarray(positives, np.int64))
