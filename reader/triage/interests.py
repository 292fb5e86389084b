"""Interests, not one blend: a model per tag the user triages with (and one for starred papers
without a tag), trained on the user's decisions; best first interleaves them so none starves,
and each paper says why it is there.

Signals: a star, a note or a highlight is a positive of the general interest; a tag is a
positive of that tag's interest (and not of the general one); "not for me" (triage X) is a
negative of every interest; a paper moved past without a decision is neutral by default
(`MOVED_ON_WEIGHT`, measured in benchmarks/bench_triage_learning.py)."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from reader.text import title_plain
from reader.triage.features import FRAGMENTS, Features
from reader.triage.learner import (
    UNLABELLED,
    Model,
    Part,
    centroid_model,
    combine,
    interest_parts,
    reject_part,
)

GENERAL = ""  # the interest of starred (noted, highlighted) papers without a tag
MAX_TAG_INTERESTS = 9  # the tags of the legend: more interests would each get too few slots
MIN_TO_TRAIN = 1  # positives an interest needs to get a model
MOVED_ON_WEIGHT = 0.0  # "moved on" is neutral: a weak negative did not help (see the benchmark)
INTEREST_HEAD = 2000  # papers whose interest a ranking names (the next ones shown)
WHY_TITLES = 2
WHY_WORDS = 3
TITLE_CHARS = 48
# Ask where unsure: every ASK_EVERY-th paper shown (0: never) is the one the model is least
# sure about, the paper nearest its boundary between the positives and the skipped papers.
ASK_EVERY = 0
ASK_AHEAD = 3  # asked papers placed ahead in one ranking (the next ASK_AHEAD x ASK_EVERY papers)
ASKED = "asked: the model is unsure"


@dataclass
class Decisions:
    """What the user told triage so far: the store's signals with this session's overlaid."""

    starred: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    tags: dict[str, list[str]] = field(default_factory=dict)  # tag -> papers, oldest first
    noted: set[str] = field(default_factory=set)
    moved_on: set[str] = field(default_factory=set)  # read without a star, tag or skip
    recent_tags: list[str] = field(default_factory=list)  # tags used this session, newest last

    @classmethod
    def from_signals(cls, signals: Mapping[str, object]) -> Decisions:
        tagged = signals.get("tagged") or {}
        assert isinstance(tagged, Mapping)
        return cls(set(_ids(signals, "starred")), set(_ids(signals, "skipped")),
                   {str(t): list(ids) for t, ids in tagged.items()}, set(_ids(signals, "noted")),
                   set(_ids(signals, "read")))

    def star(self, pid: str, on: bool) -> None:
        (self.starred.add if on else self.starred.discard)(pid)

    def skip(self, pid: str, on: bool) -> None:
        (self.skipped.add if on else self.skipped.discard)(pid)

    def tag(self, pid: str, tag: str, on: bool) -> None:
        key = next((t for t in self.tags if t.casefold() == tag.casefold()), tag)
        members = self.tags.setdefault(key, [])
        if on and pid not in members:
            members.append(pid)
            self.recent_tags = [t for t in self.recent_tags if t.casefold() != key.casefold()] + [key]
        elif not on and pid in members:
            members.remove(pid)

    def interests(self) -> dict[str, list[str]]:
        """Interest name -> its positives: the session's tags and the most-used ones, then the
        general interest (starred or annotated papers with none of those tags)."""
        ranked = sorted(self.tags, key=lambda t: (-len(self.tags[t]), t.casefold()))
        chosen = list(dict.fromkeys([*reversed(self.recent_tags), *ranked]))
        chosen = [t for t in chosen if self.tags.get(t)][:MAX_TAG_INTERESTS]
        out = {t: list(dict.fromkeys(self.tags[t])) for t in chosen}
        in_tags = {pid for ids in out.values() for pid in ids}
        general = [pid for pid in sorted(self.starred | self.noted) if pid not in in_tags]
        if general:
            out[GENERAL] = general
        return out

    def decided(self) -> set[str]:
        return self.starred | self.skipped | self.noted | {p for ids in self.tags.values() for p in ids}


def _ids(signals: Mapping[str, object], key: str) -> Iterable[str]:
    value = signals.get(key) or ()
    assert isinstance(value, Iterable)
    return (str(v) for v in value)


@dataclass
class InterestRanking:
    """A best-first order of candidates, the interest that placed each and the models."""

    order: list[str]
    interest_of: dict[str, str]
    models: dict[str, Model]
    asked: set[str] = field(default_factory=set)  # placed because the model is unsure of them


class Learner:
    """Models over one library's features; `rank` after each decision (tens of ms at 50k)."""

    def __init__(self, features: Features, moved_on_weight: float = MOVED_ON_WEIGHT) -> None:
        self.features = features
        self.moved_on_weight = moved_on_weight
        self.models: dict[str, Model] = {}
        self.positives: dict[str, list[str]] = {}
        self.negatives = np.zeros(0, np.int64)  # rows of the skipped papers of the last fit
        self._parts: dict[tuple[str, bytes], Part] = {}
        # Presumed negatives: one fixed sample of the library (an interest's own positives left
        # out), so an interest's model changes only when its positives do.
        self._unlabelled = _sample(np.arange(len(features.ids), dtype=np.int64))

    def fit(self, decisions: Decisions) -> dict[str, Model]:
        """A model per interest from `decisions` (kept for `why`). What depends on an
        interest's positives alone is kept between calls: a skip trains nothing."""
        f = self.features
        interests = decisions.interests()
        liked = {pid for ids in interests.values() for pid in ids}
        negatives = f.rows(sorted(decisions.skipped - liked))  # a star outweighs an X
        weak = f.rows(sorted(decisions.moved_on - decisions.decided())) if self.moved_on_weight else None
        rejected = reject_part(f, negatives)
        models: dict[str, Model] = {}
        cache: dict[tuple[str, bytes], Part] = {}
        for name, pids in interests.items():
            pos = np.unique(f.rows(pids))
            if len(pos) < MIN_TO_TRAIN:
                continue
            key = (name, pos.tobytes() + (weak.tobytes() if weak is not None else b""))
            part = self._parts.get(key)
            if part is None:
                part = interest_parts(f, pos, np.setdiff1d(self._unlabelled, pos, assume_unique=True),
                                      name=name, weak=weak, weak_weight=self.moved_on_weight)
            cache[key] = part
            models[name] = combine(part, rejected, pos)
        if not models and len(negatives):
            models[GENERAL] = centroid_model(f, np.zeros(0, np.int64), negatives)  # rejects push similar down
        self._parts = cache
        self.models, self.positives, self.negatives = models, interests, negatives
        return models

    def rank(self, candidates: Sequence[str], decisions: Decisions, *, ask_every: int = ASK_EVERY,
             shown: int = 0) -> InterestRanking:
        """`candidates` best first: each interest's own order, interleaved one paper each in
        turn; papers the features lack (or without an abstract) follow in their given order.
        With `ask_every`, the papers that will be the ask_every-th, 2 x ask_every-th… shown
        (`shown` papers were shown before these) are the ones the model is least sure about."""
        self.fit(decisions)
        ranking = self.order(candidates)
        if ask_every > 0:
            self.ask(ranking, ask_every, shown)
        return ranking

    def ask(self, ranking: InterestRanking, every: int, shown: int) -> None:
        """Move the least sure papers to the asked slots of `ranking`: the papers scored most
        like the skipped ones (the level where the model was wrong; the positives' own scores are
        inflated by training on them). None before a skip."""
        f = self.features
        if not len(self.negatives) or not self.models:
            return
        order = ranking.order
        rows = _rows_of(f, order)
        known = np.flatnonzero(rows >= 0)
        if not len(known):
            return
        margin = np.full(len(known), -np.inf)
        for model in self.models.values():
            s = model.scores(f)
            margin = np.maximum(margin, s[rows[known]] - float(np.median(s[self.negatives])))
        doubt = np.full(len(order), np.inf)
        doubt[known] = np.abs(margin)  # nearest any interest's boundary
        slots = [p for p in range(min(len(order), every * ASK_AHEAD)) if (shown + p + 1) % every == 0]
        for p in slots:
            pick = p + int(np.argmin(doubt[p:]))
            if not np.isfinite(doubt[pick]):
                break
            order.insert(p, order.pop(pick))
            doubt = np.insert(np.delete(doubt, pick), p, np.inf)
            ranking.asked.add(order[p])

    def order(self, candidates: Sequence[str]) -> InterestRanking:
        f = self.features
        candidates = list(dict.fromkeys(candidates))
        rows = _rows_of(f, candidates)
        known = rows >= 0
        if known.any():
            known &= ~f.empty[np.where(known, rows, 0)]  # no words (a title-only paper): last
        if not self.models or not known.any():
            return InterestRanking(candidates, {}, self.models)
        names = list(self.models)
        at = np.flatnonzero(known)
        sub = rows[at]
        best_key = np.full(len(at), np.iinfo(np.int64).max, np.int64)
        owner = np.zeros(len(at), np.int64)
        for i, name in enumerate(names):
            s = self.models[name].scores(f)[sub]
            place = np.empty(len(at), np.int64)
            place[np.argsort(-s, kind="stable")] = np.arange(len(at))
            key = place * len(names) + i  # round robin: each interest's next best in turn
            better = key < best_key
            best_key[better], owner[better] = key[better], i
        sorter = np.argsort(best_key, kind="stable")
        ranked = at[sorter]
        pick = candidates.__getitem__
        order = list(map(pick, ranked.tolist()))
        order += map(pick, np.flatnonzero(~known).tolist())
        head = sorter[:INTEREST_HEAD]  # a dict of all 50k would cost more than the ranking
        interest_of = dict(zip(order, (names[i] for i in owner[head].tolist()), strict=False))
        return InterestRanking(order, interest_of, self.models)

    def why(self, pid: str, interest: str | None = None) -> str:
        """One line from the model: "like “A” and “B” you starred · graph, molecule"."""
        f = self.features
        row = f.index.get(pid)
        if row is None or not self.models:
            return ""
        if interest is None or interest not in self.models:
            interest = max(self.models, key=lambda n: self.models[n].score_row(f, row))
        model = self.models[interest]
        cols, vals = f.row_terms(row)
        parts = []
        pos = np.array([r for r in model.positives if r != row], dtype=np.int64)
        if len(pos):
            dense = np.zeros(f.n_terms, np.float32)
            dense[cols] = vals
            local, pcols, pvals = f.sub(pos)
            sims = np.bincount(local, weights=pvals * dense[pcols], minlength=len(pos))
            near = [int(pos[i]) for i in np.argsort(-sims)[:WHY_TITLES] if sims[i] > 0]
            if near:
                titles = " and ".join(f"“{_short(f.titles[r])}”" for r in near)
                parts.append(f"like {titles} " + (f"you tagged {interest}" if interest else "you starred"))
        contrib = model.weights[cols] * vals
        top = [c for c in (int(cols[i]) for i in np.argsort(-contrib) if contrib[i] > 0)
               if f.vocab[c] not in FRAGMENTS][:WHY_WORDS]  # "multi" of multi-goal says nothing
        if top:
            parts.append(", ".join(f.vocab[c] for c in top))
        if not parts and not len(model.positives):
            parts.append("unlike the papers you skipped")
        return " · ".join(parts)


def _rows_of(f: Features, ids: Sequence[str]) -> np.ndarray:
    """The feature row of each id (-1 for one the features lack), at C speed."""
    return np.fromiter(map(f.index.get, ids, repeat(-1)), dtype=np.int64, count=len(ids))


def _sample(pool: np.ndarray) -> np.ndarray:
    """Up to UNLABELLED of `pool` (sorted), the same for the same pool size."""
    if len(pool) <= UNLABELLED:
        return pool
    rng = np.random.default_rng(zlib.crc32(f"unlabelled:{len(pool)}".encode()))
    return np.sort(rng.choice(pool, UNLABELLED, replace=False))


def _short(title: str) -> str:
    title = " ".join(title_plain(title).split())  # as the list shows it: "Cu₂O", not "Cu$_2$O"
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1].rstrip() + "…"
