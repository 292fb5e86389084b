"""Nearest neighbours by cosine of unit vectors: exact in blocks for small libraries, through
k-means cells (an inverted file: each paper compared with the papers of its nearest cells)
for large ones, where the exact n x n products would take most of the layout's time."""

from __future__ import annotations

import numpy as np

from .features import CancelCheck, check

EXACT_MAX = 15_000  # above: the cell search (bench_map.py --scale: recall of the 15 nearest ≈ 0.9)
BLOCK = 512
BLOCK_FLOATS = 2_000_000  # similarities computed at once by the cell search (8 MB)
PROBES = 6  # cells searched per paper
SEED = 20


def _top(sims: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the k largest (column, similarity), most similar first."""
    k = min(k, sims.shape[1])
    part = np.argpartition(sims, sims.shape[1] - k, axis=1)[:, -k:]  # no negated copy
    vals = np.take_along_axis(sims, part, axis=1)
    order = np.argsort(-vals, axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1), np.take_along_axis(vals, order, axis=1)


def exact(vectors: np.ndarray, k: int, *, queries: np.ndarray | None = None,
          skip_self: bool = True, cancelled: CancelCheck = None) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest of each query (default: each vector, itself left out) among `vectors`."""
    q = vectors if queries is None else queries
    n = len(vectors)
    kk = min(k + (1 if skip_self else 0), n)
    idx = np.zeros((len(q), kk), dtype=np.int32)
    sim = np.zeros((len(q), kk), dtype=np.float32)
    for start in range(0, len(q), BLOCK):
        check(cancelled)
        block = q[start:start + BLOCK] @ vectors.T
        if skip_self:
            rows = np.arange(len(block))
            block[rows, rows + start] = -np.inf
        idx[start:start + len(block)], sim[start:start + len(block)] = _top(block, kk)
    if skip_self:
        idx, sim = idx[:, :k], sim[:, :k]
    return idx, sim


def kmeans(vectors: np.ndarray, cells: int, *, iterations: int = 8, seed: int = SEED,
           cancelled: CancelCheck = None) -> np.ndarray:
    """Spherical k-means centres (cells x d) from a deterministic start."""
    rng = np.random.default_rng(seed)
    centres = vectors[rng.choice(len(vectors), cells, replace=False)].copy()
    for _ in range(iterations):
        check(cancelled)
        assign = assign_cells(vectors, centres, 1)[:, 0]
        sums = np.zeros_like(centres)
        np.add.at(sums, assign, vectors)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        empty = norms[:, 0] == 0
        sums[empty] = centres[empty]
        centres = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return centres.astype(np.float32)


def assign_cells(vectors: np.ndarray, centres: np.ndarray, probes: int) -> np.ndarray:
    out = np.zeros((len(vectors), probes), dtype=np.int32)
    for start in range(0, len(vectors), 4096):
        out[start:start + 4096] = _top(vectors[start:start + 4096] @ centres.T, probes)[0]
    return out


def approximate(vectors: np.ndarray, k: int, *, cancelled: CancelCheck = None) -> tuple[np.ndarray, np.ndarray]:
    """Each vector's k nearest others among the papers of its PROBES nearest k-means cells."""
    n = len(vectors)
    cells = max(8, int(np.sqrt(n)))
    centres = kmeans(vectors, cells, cancelled=cancelled)
    probes = assign_cells(vectors, centres, PROBES)
    home = probes[:, 0]
    members = [np.flatnonzero(home == c) for c in range(cells)]
    idx = np.zeros((n, k), dtype=np.int32)
    sim = np.full((n, k), -np.inf, dtype=np.float32)
    # Papers with the same probe list share the candidates; group by home cell and search
    # the union of the group's probed cells (a few thousand candidates each).
    for c in range(cells):
        check(cancelled)
        who = members[c]
        if len(who) == 0:
            continue
        near = np.unique(probes[who].ravel())  # holds c: a paper's first probe is its home
        cand = np.concatenate([members[j] for j in near])
        # Each paper's own column: the home cell's members sit in cand as one run, in order
        # (not a who x cand comparison, as big as the block).
        at = sum(len(members[j]) for j in near if j < c)
        cand_vectors = vectors[cand]
        # A big cell's rows in slices: a block stays under BLOCK_FLOATS (an uneven cell of
        # 2,000 papers x 10,000 candidates was an 80 MB block).
        step = max(1, BLOCK_FLOATS // max(1, len(cand)))
        for s0 in range(0, len(who), step):
            part = who[s0:s0 + step]
            block = vectors[part] @ cand_vectors.T
            block[np.arange(len(part)), at + s0 + np.arange(len(part))] = -np.inf
            top, vals = _top(block, k)
            got = top.shape[1]
            idx[part, :got] = cand[top]
            sim[part, :got] = vals
    return idx, sim


def knn(vectors: np.ndarray, k: int, *, cancelled: CancelCheck = None) -> tuple[np.ndarray, np.ndarray]:
    if len(vectors) <= EXACT_MAX:
        return exact(vectors, k, cancelled=cancelled)
    return approximate(vectors, k, cancelled=cancelled)
