"""A query's answer never depends on the machine's load: every budget is counted work (postings
read, terms expanded, words looked up), and the only clock is a last-resort backstop far above
any normal query, which says so in the answer when it fires. Checked by making the clock jump:
a machine so slow that each look at the clock finds a quarter of a second gone."""

from __future__ import annotations

import csv
import itertools
import time
from collections.abc import Iterator

import pytest
from whoosh.reading import SegmentReader

from reader.search import SearchIndex, terms
from reader.search.rank import rank

from .helpers import CORPUS, doc

CSV = CORPUS / "ml_conference_corpus" / "papers_neurips_icml_iclr.csv"
N_PAPERS = 300

# Plain words (ranked), typed queries (prefix), typos, and strict parts: phrase, prefix,
# fuzzy, wildcard, ranges over words and years, fields.
QUERIES = [
    "sparse attention for transformers", "deep reinforcement learning with policy gradients",
    "generative adversarial networks image", "stochastic gradient descent convergence analysis",
    "bayesian optimization of hyperparameters", "graph neural networks", "variational inference",
    "atention mechanisms", "reinforcment lerning exploration", "convex optimization", "kernel methods",
    '"neural network"', '"gradient descent" convex', "optim*", "learn~", "lerning~2", "ne*rk",
    "[a TO b]", "author:>2019", "abstract:>2019", "[a TO z]", "year:>2015", "year:2010-2016 learning",
    "title:(deep OR sparse) AND abstract:model", "-learning network", "network -learning", "+deep model",
]
TYPOS = ["atention mechanisms", "reinforcment lerning exploration", "sparce atention", "convx optimisation"]
TYPED = ["reinforcement lear", "sparse att", "graph neural netw", "bayesian opt", "the conv"]


def _corpus() -> list[dict]:
    if not CSV.exists():
        pytest.skip("the shared corpus is not here")
    with CSV.open(encoding="utf-8", newline="") as f:
        rows = list(itertools.islice(csv.DictReader(f), N_PAPERS))
    return [doc(i + 1, r["title"], r["abstract"], year=int(r["year"]) if r["year"].isdigit() else None,
                authors=r["authors"], venue=r["venue"]) for i, r in enumerate(rows)]


@pytest.fixture(scope="module")
def ix(tmp_path_factory: pytest.TempPathFactory, fast_path: str) -> Iterator[SearchIndex]:
    index = SearchIndex.open(tmp_path_factory.mktemp("load") / "ix")
    docs = _corpus()
    index.rebuild(docs[:240], stamp=1)
    index.update(docs[240:], stamp=2)  # more than one segment, as a library that grew
    index.warm()
    yield index
    index.close()


def _answer(ix: SearchIndex) -> list[tuple]:
    out = []
    for q in QUERIES:
        r = ix.search(q, limit=20)
        out.append((q, [(h.id, round(h.score, 9)) for h in r.hits], r.total, r.problem))
    for q in TYPED:
        r = ix.search(q, limit=20, as_you_type=True)
        out.append((q, [(h.id, round(h.score, 9)) for h in r.hits], r.total, r.problem))
    out += [(q, ix.suggest(q)) for q in TYPOS]
    pid = ix.search("learning", limit=1).hits[0].id
    out.append(("related", ix.related(pid, limit=15)))
    return out


class JumpingClock:
    """time.perf_counter / time.monotonic that move on `step` seconds at every look."""

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.fixture
def slow_clock(monkeypatch: pytest.MonkeyPatch):
    def install(step: float) -> JumpingClock:
        clock = JumpingClock(step)
        monkeypatch.setattr(time, "perf_counter", clock)
        monkeypatch.setattr(time, "monotonic", clock)
        return clock

    return install


def test_answers_are_the_same_when_every_look_at_the_clock_finds_time_gone(ix: SearchIndex, slow_clock) -> None:
    quiet = _answer(ix)
    assert quiet == _answer(ix)  # and the same again on a quiet machine
    clock = slow_clock(0.25)
    loaded = _answer(ix)
    assert clock.now > 1000.0 + 0.25  # the clock was read (the backstop) and jumped
    for a, b in zip(quiet, loaded, strict=True):
        assert a == b, a[0]


def test_the_last_resort_backstop_says_so_when_it_fires(ix: SearchIndex, slow_clock) -> None:
    quiet = ix.search("deep reinforcement learning with policy gradients")
    assert quiet.problem is None
    slow_clock(terms.BACKSTOP_SECONDS)  # each look at the clock: the whole backstop gone
    r = ix.search("deep reinforcement learning with policy gradients")
    assert r.problem is not None and "last-resort time limit" in r.problem
    assert r.hits and len(r.hits) <= len(quiet.hits)  # what it found by then
    budget = terms.WorkBudget()
    spent = [budget.spend(1) for _ in range(terms._CLOCK_EVERY * 2)]
    assert not all(spent) and budget.cut and budget.backstop.fired


def test_plain_words_are_bounded_by_postings_read_not_time(ix: SearchIndex) -> None:
    with ix._read_lock:
        s = ix._s()
        words = "deep reinforcement learning with policy gradients network model".split()
        whole = rank(s, words)
        assert whole.note is None
        cut = rank(s, words, max_postings=whole.postings_read // 2)
    assert cut.postings_read < whole.postings_read  # the rarest word is read whatever it costs
    assert cut.note is not None and "work budget" in cut.note and "left out" in cut.note


@pytest.mark.fast_path_only
@pytest.mark.parametrize("query", ["[a TO z]", "author:>2019", "abstract:>2019", "[a TO b]"])
def test_word_ranges_read_the_lexicon_and_raw_postings(ix: SearchIndex, monkeypatch: pytest.MonkeyPatch,
                                                       query: str) -> None:
    """A range over words takes a slice of each segment's sorted lexicon and reads its postings
    raw: no Whoosh matcher per term (~70 us each: at load 17 `[a TO b]` took 9 s at 12.7k)."""
    expected = ix.search(query, limit=None)
    calls = []
    real = SegmentReader.postings

    def counted(self, *a, **kw):
        calls.append(a)
        return real(self, *a, **kw)

    monkeypatch.setattr(SegmentReader, "postings", counted)
    monkeypatch.setattr(SegmentReader, "terms_from", None)  # no term-by-term walk either
    r = ix.search(query, limit=None)
    assert [h.id for h in r.hits] == [h.id for h in expected.hits]
    assert len(calls) == 0
    assert terms.last_budget() is not None and terms.last_budget().used <= terms.WORK_LIMIT
