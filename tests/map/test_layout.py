"""The layout's optimisation: how much repulsion work it counts, and that topics stay apart."""

from __future__ import annotations

import numpy as np
import pytest

from reader.map import layout
from reader.map.features import unit_rows


def _topics(per: int = 200, topics: int = 3, dims: int = 16) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(topics, dims)) * 3
    vectors = np.concatenate([c + rng.normal(size=(per, dims)) for c in centres])
    return unit_rows(vectors.astype(np.float32)), np.repeat(np.arange(topics), per)


def _same_topic_share(xy: np.ndarray, topic: np.ndarray, k: int = 10) -> float:
    d = ((xy[:, None, :] - xy[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d, np.inf)
    near = np.argsort(d, axis=1)[:, :k]
    return float((topic[near] == topic[:, None]).mean())


def _counting_pairs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pairs: list[int] = []
    real = layout._repel

    def spy(*args):  # the last argument: the (draws x heads) block of random papers
        pairs.append(int(args[-1].size))
        return real(*args)

    monkeypatch.setattr(layout, "_repel", spy)
    return pairs


def test_up_to_large_each_point_draws_a_fixed_block_of_negatives(monkeypatch: pytest.MonkeyPatch):
    # 600 papers, 30 epochs: the repulsion is 128 draws per point and epoch (counted work, whatever
    # the graph), not NEGATIVES per pulled edge (~6.6 pulls a point an epoch here: ~66 draws).
    vectors, topic = _topics()
    monkeypatch.setattr(layout, "SMALL", 100)  # 600 papers count as more than a small map
    pairs = _counting_pairs(monkeypatch)
    layout.layout(vectors, epochs=30)
    assert sum(pairs) == 128 * len(vectors) * 30
    assert _same_topic_share(layout.layout(vectors), topic) > 0.95  # the topics stay apart


def test_a_small_map_draws_its_negatives_per_pull(monkeypatch: pytest.MonkeyPatch):
    # Up to SMALL papers (cheap either way) the draws follow the pulls, as UMAP's do: the
    # 56-paper sample kept 1 labelled region of 3 with the per-point blocks.
    vectors, topic = _topics(per=60)
    pairs = _counting_pairs(monkeypatch)
    xy = layout.layout(vectors, epochs=30)
    assert len(vectors) <= layout.SMALL and len(pairs) == 30
    assert all(p % layout.negatives_for(len(vectors)) == 0 for p in pairs)
    assert sum(pairs) != 128 * len(vectors) * 30
    assert xy.shape == (len(vectors), 2)


def test_above_large_the_negatives_are_drawn_per_pull(monkeypatch: pytest.MonkeyPatch):
    vectors, topic = _topics()
    monkeypatch.setattr(layout, "LARGE", 100)  # 600 papers count as a large library
    pairs = _counting_pairs(monkeypatch)
    xy = layout.layout(vectors)
    epochs = layout.epochs_for(len(vectors))
    assert epochs == 100 and len(pairs) == epochs
    assert min(pairs) > layout.negatives_for(len(vectors)) * len(vectors)  # more pulls than papers
    assert _same_topic_share(xy, topic) > 0.95
    assert np.array_equal(xy, layout.layout(vectors))  # deterministic


def test_the_repulsion_pushes_apart_and_ignores_a_paper_drawn_as_its_own_negative():
    x = np.array([0.0, 1.0, 5.0], np.float32)
    y = np.zeros(3, np.float32)
    heads = np.array([0, 1], np.int32)
    gx, gy = layout._repel(x, y, heads, np.array([[0, 0], [1, 0]], np.int32))
    # Paper 0: itself (no push) and paper 1 (pushes it left); paper 1: paper 0 pushes it right.
    assert gx[0] < 0 < gx[1] and np.all(gy == 0) and np.isfinite(gx).all()
    alone, _ = layout._repel(x, y, heads[:1], np.array([[0]], np.int32))
    assert alone[0] == 0
