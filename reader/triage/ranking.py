"""Best first: order candidate papers by similarity to the papers the user starred or tagged."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reader.triage.ports import Similar


def rank_like(library: Similar, seed_ids: Iterable[str], candidate_ids: Sequence[str]) -> list[str]:
    """`candidate_ids` most similar to `seed_ids` first; without seeds, the list order.

    Uses the search layer's `library.more_like(ids, limit=, exclude=)`, which ranks the whole
    library; candidates it does not return keep their list order at the end. Seeds that are
    themselves candidates (starred before the queue reached them) come first."""
    candidates = list(dict.fromkeys(candidate_ids))
    seeds = list(dict.fromkeys(seed_ids))
    if not seeds or not candidates:
        return candidates
    wanted = set(candidates)
    seed_set = set(seeds)
    front = [pid for pid in candidates if pid in seed_set]
    # more_like may rank every paper, so a small candidate pool is fully ordered.
    limit = max(library.counts().total, len(candidates)) + len(seeds)
    placed = set(front)
    ranked = list(front)
    for pid, _score in library.more_like(seeds, limit=limit, exclude=[s for s in seeds if s not in wanted]):
        if pid in wanted and pid not in placed:
            placed.add(pid)
            ranked.append(pid)
    ranked.extend(pid for pid in candidates if pid not in placed)
    return ranked

