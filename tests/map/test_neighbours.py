"""The cell (inverted-file) nearest-neighbour search: never a paper's own row, most similar
first, and close to the exact search."""

from __future__ import annotations

import numpy as np

from reader.map import neighbours as nb


def _clustered(n: int, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(12, 24))
    v = centres[rng.integers(0, 12, n)] + rng.normal(size=(n, 24)) * 0.7
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def test_approximate_leaves_each_paper_out_and_finds_most_of_the_exact_nearest():
    v = _clustered(3000)
    idx, sim = nb.approximate(v, 10)
    assert not (idx == np.arange(len(v))[:, None]).any()  # a paper is not its own neighbour
    assert (np.diff(sim, axis=1) <= 0).all()
    assert np.allclose(sim, np.einsum("id,ijd->ij", v, v[idx]), atol=1e-5)
    exact_idx, _ = nb.exact(v, 10)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(idx.tolist(), exact_idx.tolist(), strict=True)])
    assert recall > 0.9
