"""The 2-D layout: a UMAP-like optimisation of the papers' nearest-neighbour graph, in numpy.

1. Each paper's K nearest (cosine of the reduced TF-IDF vectors) become fuzzy edges: weight
   exp(-(d - d_nearest) / sigma), sigma set so a paper's weights sum to log2(K); the two
   directions are joined as a + b - ab (UMAP's fuzzy union).
2. Start from the first two principal axes of the vectors (deterministic, and the big
   topics already apart), scaled to [0, 10].
3. Epochs of attraction along the edges (an edge of weight w is pulled in a share w/max of the
   epochs) and repulsion worth NEGATIVES random papers per pull (up to LARGE papers: the mean
   push of SAMPLES random papers per point, scaled to its pulls), with UMAP's curve
   1 / (1 + a d^2b) and a learning rate falling to 0. One epoch moves every point at once
   (vectorised), not one edge at a time as UMAP's numba loop does; bench_map.py measures the
   result against umap-learn on the same vectors.

Deterministic: a fixed seed, and new papers placed later (`place`) never move the others."""

from __future__ import annotations

import numpy as np

from .features import CancelCheck, Progress, check
from .memory import give_back
from .neighbours import exact, knn

K = 15
NEGATIVES = 10
# UMAP's a, b for min_dist 0 (spread 1): tight topics; bench_map.py: better P@10 and
# trustworthiness than min_dist 0.1 (the default), as are 10 negatives over 5.
A, B = 1.929, 0.7915
SEED = 20
CLIP = 4.0
SCALE = 10.0
# Above this many papers, fewer epochs and negatives: 50k papers in about a minute.
LARGE = 10_000
SMALL = 1_000  # up to this, NEGATIVES draws per pull as above LARGE: cheap, and a small map's
# regions stay apart (per point, the 56-paper sample kept 1 labelled region of 3)
# Up to LARGE papers, each point's pushes in an epoch are the mean push of SAMPLES random papers
# times its pulls x NEGATIVES (the expected sum of NEGATIVES draws per pull): ~2x the pairs of
# one draw per pull (~6.6 pulls a point an epoch: ~66 x n), but each far cheaper (one gather per
# point, contiguous blocks in place, no scatter of pairs). bench_map.py's pools: 128 keeps P@10
# and trustworthiness within the old code's seed spread; 64 lost 0.009 of P@10 on ICLR 2018 and
# 0.004 on IJCAI, 16 ~0.03 of trustworthiness.
SAMPLES = 128
NEGATIVE_BATCH = 1_000_000  # above LARGE: repulsion pairs computed at once (memory: ~40 bytes each)


def epochs_for(n: int) -> int:
    return 300 if n <= LARGE else 100  # 200 up to LARGE: trustworthiness -0.007 on the pools


def negatives_for(n: int) -> int:
    return NEGATIVES if n <= LARGE else 5


def fuzzy_graph(idx: np.ndarray, sim: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Symmetric edges (heads, tails, weights) of the kNN graph, each pair once per direction."""
    n, k = idx.shape
    dist = np.maximum(0.0, 1.0 - sim.astype(np.float64))
    dist[~np.isfinite(dist)] = np.inf
    rho = dist[:, 0:1]
    target = np.log2(max(k, 2))
    lo, hi = np.zeros(n), np.full(n, np.inf)
    sigma = np.ones(n)
    gaps = np.maximum(dist - rho, 0.0)
    for _ in range(64):  # a binary search of each paper's sigma, all at once
        total = np.exp(-gaps / sigma[:, None]).sum(axis=1)
        over = total > target
        hi = np.where(over, sigma, hi)
        lo = np.where(over, lo, sigma)
        sigma = np.where(np.isinf(hi), sigma * 2, (lo + hi) / 2)
    sigma = np.maximum(sigma, 1e-3 * max(float(np.mean(dist[np.isfinite(dist)])) if np.isfinite(dist).any() else 1.0, 1e-6))
    w = np.exp(-gaps / sigma[:, None])
    heads = np.repeat(np.arange(n, dtype=np.int64), k)
    tails = idx.ravel().astype(np.int64)
    w = w.ravel()
    keep = np.isfinite(w) & (w > 0) & (heads != tails)
    heads, tails, w = heads[keep], tails[keep], w[keep]
    # Fuzzy union of the two directions: a + b - ab.
    # One sort; the runs of equal pairs read off it (np.unique would sort a second copy).
    both = np.concatenate([heads * n + tails, tails * n + heads])
    del heads, tails
    order = np.argsort(both, kind="stable")
    both = both[order]
    ws = np.concatenate([w, w])[order]
    del order
    start = np.flatnonzero(np.concatenate([[True], both[1:] != both[:-1]]))
    uniq = both[start]
    count = np.diff(np.append(start, len(both)))
    del both
    first = ws[start]
    second = np.where(count > 1, ws[np.minimum(start + 1, len(ws) - 1)], 0.0)
    weight = first + second - first * second
    return (uniq // n).astype(np.int32), (uniq % n).astype(np.int32), weight.astype(np.float32)


def initial(vectors: np.ndarray) -> np.ndarray:
    """The first two principal axes, signs fixed, scaled into [0, SCALE]."""
    centred = vectors - vectors.mean(axis=0)
    cov = centred.T @ centred
    vals, vecs = np.linalg.eigh(cov.astype(np.float64))
    axes = vecs[:, ::-1][:, :2]
    axes *= np.sign(axes[np.abs(axes).argmax(axis=0), [0, 1]])
    return fit_box((centred @ axes).astype(np.float32))


def fit_box(xy: np.ndarray) -> np.ndarray:
    if len(xy) == 0:
        return xy.astype(np.float32)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    return ((xy - lo) / span * SCALE).astype(np.float32)


def _attract(x: np.ndarray, y: np.ndarray, heads: np.ndarray, tails: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pull along each edge (on its head; the tail gets the opposite), clipped."""
    dx = x[heads] - x[tails]
    dy = y[heads] - y[tails]
    d2 = dx * dx + dy * dy + np.float32(1e-12)
    d2b = np.exp(np.float32(B) * np.log(d2))  # d2 ** B, cheaper than pow
    coeff = np.float32(-2 * A * B) * d2b / d2 / (1 + np.float32(A) * d2b)
    return (np.clip(coeff * dx, -CLIP, CLIP, out=dx), np.clip(coeff * dy, -CLIP, CLIP, out=dy))


def _repel(x: np.ndarray, y: np.ndarray, heads: np.ndarray, others: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean push on each head from its column of `others` (c x m), each push clipped.
    float32 throughout, x and y apart (no einsum over a trailing axis of 2), and in place: three
    c x m temporaries, not a dozen (the arithmetic, and so the result, is the same)."""
    dx = x[others]
    np.subtract(x[heads][None, :], dx, out=dx)
    dy = y[others]
    np.subtract(y[heads][None, :], dy, out=dy)
    d2 = dx * dx
    d2 += dy * dy
    curve = d2 + np.float32(1e-12)
    np.log(curve, out=curve)
    curve *= np.float32(B)
    np.exp(curve, out=curve)  # d2 ** B
    curve *= np.float32(A)
    curve += 1
    d2 += np.float32(0.001)
    curve *= d2
    coeff = np.divide(np.float32(2 * B), curve, out=curve)
    # A paper drawn as its own negative pushes by coeff * 0 = 0: no mask needed.
    dx *= coeff
    dy *= coeff
    gx = np.clip(dx, -CLIP, CLIP, out=dx).mean(axis=0)
    gy = np.clip(dy, -CLIP, CLIP, out=dy).mean(axis=0)
    return gx, gy


def optimise(xy: np.ndarray, heads: np.ndarray, tails: np.ndarray, weights: np.ndarray, *,
             epochs: int, seed: int = SEED, movable: np.ndarray | None = None,
             progress: Progress = None, cancelled: CancelCheck = None) -> np.ndarray:
    """Move the points along the graph's forces; only `movable` points move when given.

    Up to LARGE papers the repulsion is drawn per point, not per pull: a point pulled along c
    edges this epoch is pushed c x NEGATIVES times the mean push of SAMPLES random papers (the
    expected push of c x NEGATIVES draws; ~2x the pairs, each far cheaper). Above, NEGATIVES draws per
    pull, in rounds of at most NEGATIVE_BATCH pairs."""
    n = len(xy)
    x = np.ascontiguousarray(xy[:, 0], dtype=np.float32).copy()
    y = np.ascontiguousarray(xy[:, 1], dtype=np.float32).copy()
    rng = np.random.default_rng(seed)
    share = weights / max(float(weights.max()), 1e-12) if len(weights) else weights
    negatives = negatives_for(n)
    keep = None if movable is None else np.asarray(movable, dtype=bool)
    everyone = np.arange(n, dtype=np.int32)
    for epoch in range(epochs):
        if epoch % 10 == 0:
            check(cancelled)
            if progress:
                progress(epoch, epochs, "Laying out the map")
        lr = np.float32(1.0 - epoch / epochs)
        # An edge of share s is pulled at the epochs where floor(s * e) steps (s of them).
        fire = np.floor(share * (epoch + 1)) > np.floor(share * epoch)
        h, t = heads[fire], tails[fire]
        if len(h) == 0:
            continue
        px, py = _attract(x, y, h, t)
        sx = np.bincount(h, weights=px, minlength=n) - np.bincount(t, weights=px, minlength=n)
        sy = np.bincount(h, weights=py, minlength=n) - np.bincount(t, weights=py, minlength=n)
        if SMALL < n <= LARGE:
            # One block of SAMPLES draws for every point; a point not pulled this epoch weighs 0.
            times = np.bincount(h, minlength=n).astype(np.float32) * np.float32(negatives)
            rx, ry = _repel(x, y, everyone, rng.integers(0, n, size=(SAMPLES, n), dtype=np.int32))
            sx += rx * times
            sy += ry * times
        else:
            rounds = max(1, min(negatives, len(h) * negatives // NEGATIVE_BATCH))
            for r in range(rounds):
                count = negatives // rounds + (r < negatives % rounds)
                rx, ry = _repel(x, y, h, rng.integers(0, n, size=(len(h), count)).T)
                sx += np.bincount(h, weights=rx * np.float32(count), minlength=n)
                sy += np.bincount(h, weights=ry * np.float32(count), minlength=n)
        if keep is not None:
            sx[~keep] = 0
            sy[~keep] = 0
        x += lr * sx.astype(np.float32)
        y += lr * sy.astype(np.float32)
    return np.stack([x, y], axis=1).astype(np.float32)


def layout(vectors: np.ndarray, *, seed: int = SEED, epochs: int | None = None,
           progress: Progress = None, cancelled: CancelCheck = None) -> np.ndarray:
    """2-D places (n x 2, float32, within about [0, SCALE]) for unit vectors."""
    n = len(vectors)
    if n == 0:
        return np.zeros((0, 2), dtype=np.float32)
    if n <= 2:
        return np.array([[0.0, 0.0], [SCALE, SCALE]][:n], dtype=np.float32)
    # A small library's 15 nearest are a quarter of it, and its map a uniform cloud: fewer.
    idx, sim = knn(vectors, min(K, n - 1, max(5, n // 8)), cancelled=cancelled)
    heads, tails, weights = fuzzy_graph(idx, sim)
    del idx, sim
    give_back()
    xy = initial(vectors)
    xy = optimise(xy, heads, tails, weights, epochs=epochs or epochs_for(n), seed=seed,
                  progress=progress, cancelled=cancelled)
    return fit_box(xy)


def place(new_vectors: np.ndarray, vectors: np.ndarray, xy: np.ndarray, *, k: int = 5,
          seed: int = SEED, seeds: list[int] | None = None) -> np.ndarray:
    """Places for new papers from their k nearest laid-out papers (similarity-weighted mean,
    pulled a little apart so two copies do not sit on one pixel); nothing else moves. With
    `seeds` (one per paper) each paper's nudge depends on that paper alone, not on how many
    were placed with it."""
    if len(new_vectors) == 0:
        return np.zeros((0, 2), dtype=np.float32)
    if len(vectors) == 0:
        return fit_box(np.random.default_rng(seed).random((len(new_vectors), 2)))
    idx, sim = exact(vectors, min(k, len(vectors)), queries=new_vectors, skip_self=False)
    w = np.maximum(sim, 0.0) + 1e-6
    spot = (xy[idx] * w[:, :, None]).sum(axis=1) / w.sum(axis=1, keepdims=True)
    if seeds is None:
        jitter = np.random.default_rng(seed).normal(0, 0.02, size=spot.shape)
    else:
        jitter = np.array([np.random.default_rng(s).normal(0, 0.02, size=2) for s in seeds])
    return (spot + jitter).astype(np.float32)
