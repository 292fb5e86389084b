"""Best first: order candidate papers by similarity to the papers the user starred or tagged."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def rank_like(library: Any, seed_ids: Iterable[str], candidate_ids: Sequence[str]) -> list[str]:
    """`candidate_ids` most similar to `seed_ids` first; without seeds, the list order.

    Uses the search layer's `library.more_like(ids, limit=, exclude=)`, which ranks the whole
    library; candidates it does not return keep their list order at the end. Seeds that are
    themselves candidates (starred before the queue reached them) come first."""
    candidates = list(dict.fromkeys(candidate_ids))
    seeds = list(dict.fromkeys(seed_ids))
    more_like = getattr(library, "more_like", None)
    if not seeds or not candidates or more_like is None:
        # Fallback while Library has no more_like (the search issue adds it): the list order.
        return candidates
    wanted = set(candidates)
    seed_set = set(seeds)
    front = [pid for pid in candidates if pid in seed_set]
    limit = max(_library_size(library), len(candidates)) + len(seeds)
    placed = set(front)
    ranked = list(front)
    for pid, _score in more_like(seeds, limit=limit, exclude=[s for s in seeds if s not in wanted]):
        if pid in wanted and pid not in placed:
            placed.add(pid)
            ranked.append(pid)
    ranked.extend(pid for pid in candidates if pid not in placed)
    return ranked


def _library_size(library: Any) -> int:
    """How many papers more_like may rank: all of them, so a small candidate pool is fully ordered."""
    counts = getattr(library, "counts", None)
    try:
        return int(counts().total) if counts is not None else 0
    except (AttributeError, TypeError, ValueError):
        return 0
