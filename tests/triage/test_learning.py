"""Best first that learns: interests, rejects, interleaving and why-lines (triage/interests.py)."""

from __future__ import annotations

import numpy as np

from reader.triage.features import build
from reader.triage.interests import GENERAL, Decisions, Learner

GRAPH = "graph neural network molecule property prediction message passing atoms bonds"
SPEECH = "speech recognition acoustic model audio spectrogram phoneme transcription"
VISION = "image segmentation convolutional pixels object masks semantic scenes"
PROOF = "theorem proving formal logic lemma proof search verification"
FILLER = ["we study", "our results show", "experiments demonstrate", "a simple method", "we propose"]


def papers() -> list[tuple[str, str, str, bool]]:
    """60 papers on four subjects (15 each), every abstract a different mix of its subject's words."""
    out = []
    for s, subject in enumerate((GRAPH, SPEECH, VISION, PROOF)):
        words = subject.split()
        for n in range(15):
            picked = [words[(n + k) % len(words)] for k in range(6)]
            text = f"{FILLER[n % 5]} {' '.join(picked)} {FILLER[(n + 2) % 5]} result {n} topic{s}"
            out.append((f"{'gsvp'[s]}{n:02d}", f"Paper {'GSVP'[s]}{n}", text, True))
    return out


def learner() -> tuple[Learner, list[str]]:
    texts = papers()
    return Learner(build(texts)), [t[0] for t in texts]


def test_features_are_unit_rows_and_tolerate_an_empty_abstract() -> None:
    f = build([*papers(), ("e00", "", "", True), ("e01", "Only a title", "", True)])
    norms = np.sqrt(np.bincount(f.row_of, weights=f.data * f.data, minlength=len(f.ids)))
    assert np.allclose(norms[~f.empty], 1.0, atol=1e-5)
    assert f.empty[f.index["e00"]]
    assert np.isfinite(f.scores(np.ones(f.n_terms, np.float32))).all()


def test_a_star_brings_its_subject_first() -> None:
    lrn, ids = learner()
    d = Decisions(starred={"g00", "g01"})
    tail = [p for p in ids if p not in d.starred]
    order = lrn.rank(tail, d).order
    assert all(p.startswith("g") for p in order[:10])


def test_a_reject_moves_similar_papers_down() -> None:
    lrn, ids = learner()
    d = Decisions(starred={"g00", "g01"})
    tail = [p for p in ids if p not in {"g00", "g01", "s00"}]
    before = lrn.rank(tail, d).order
    d.skip("s00", True)
    after = lrn.rank(tail, d).order
    speech = [p for p in tail if p.startswith("s")]
    assert np.mean([after.index(p) for p in speech]) > np.mean([before.index(p) for p in speech])
    # With no star at all, rejects still push their like down.
    only = Decisions(skipped={"s00", "s01"})
    order = lrn.rank(tail, only).order
    assert all(not p.startswith("s") for p in order[:20])


def test_two_interests_both_appear_in_the_next_ten() -> None:
    lrn, ids = learner()
    d = Decisions(tags={"graphs": ["g00", "g01", "g02", "g03", "g04", "g05"], "proofs": ["p00"]})
    tail = [p for p in ids if p not in d.decided()]
    ranking = lrn.rank(tail, d)
    head = ranking.order[:10]
    assert sum(p.startswith("g") for p in head) >= 4 and sum(p.startswith("p") for p in head) >= 4
    assert {ranking.interest_of[p] for p in head} == {"graphs", "proofs"}


def test_untagged_stars_are_the_general_interest_and_tags_their_own() -> None:
    d = Decisions(starred={"g00", "v00"}, tags={"vision": ["v00", "v01"]}, noted={"p03"})
    assert d.interests() == {"vision": ["v00", "v01"], GENERAL: ["g00", "p03"]}


def test_why_names_a_starred_paper_and_the_words_that_weighed() -> None:
    lrn, ids = learner()
    d = Decisions(starred={"g00", "g01", "g02"})
    ranking = lrn.rank([p for p in ids if p not in d.starred], d)
    first = ranking.order[0]
    why = lrn.why(first, ranking.interest_of[first])
    assert "you starred" in why and any(f"“Paper G{n}”" in why for n in range(3))
    words = why.split(" · ")[-1].split(", ")
    assert words and all(w in GRAPH.split() or w.startswith("topic") for w in words)
    tagged = Decisions(tags={"graphs": ["g00"]})
    r2 = lrn.rank([p for p in ids if p != "g00"], tagged)
    assert "you tagged graphs" in lrn.why(r2.order[0], "graphs")


def test_papers_without_words_or_features_come_last_in_their_order() -> None:
    texts = [*papers(), ("e00", "", "", True)]
    lrn = Learner(build(texts))
    d = Decisions(starred={"g00"})
    order = lrn.rank(["zz-new", "e00", *[t[0] for t in texts[1:60]]], d).order
    assert order[-2:] == ["zz-new", "e00"]


def test_ask_where_unsure_places_the_least_sure_paper_and_says_so() -> None:
    from reader.triage.best import BestFirst
    from reader.triage.interests import ASKED

    lrn, ids = learner()
    d = Decisions(starred={"g00", "g01"}, skipped={"s00"})
    tail = [p for p in ids if p not in d.decided()]
    plain = lrn.rank(tail, d)
    assert not plain.asked
    asked = lrn.rank(tail, d, ask_every=4, shown=1)  # the 4th paper shown is the 3rd of the tail
    assert len(asked.asked) == 3 and asked.order[2] in asked.asked and asked.order[6] in asked.asked
    assert sorted(asked.order) == sorted(plain.order)
    # The asked papers are the ones nearest the boundary, not the best: not from the top of the plain order.
    assert not asked.asked & set(plain.order[:3])
    best = BestFirst.__new__(BestFirst)
    best.learner = lrn
    _ranking, lines = best.rank(tail, d, ask_every=4, shown=1, why=8)
    assert lines[asked.order[2]].startswith(ASKED)
    assert not lines[asked.order[0]].startswith(ASKED)
    # Before any skip there is no boundary: nothing asked.
    assert not lrn.rank(tail, Decisions(starred={"g00", "g01"}), ask_every=4).asked


def test_a_tags_name_lifts_the_papers_bearing_its_words() -> None:
    lrn, ids = learner()
    tail = [p for p in ids if p not in {"g00", "g05"}]
    bearing = [p for p in tail if p.startswith("g") and "molecule" in papers()[ids.index(p)][2]]
    assert 4 <= len(bearing) <= 10

    def places(name: str) -> float:
        order = lrn.rank(tail, Decisions(tags={name: ["g00", "g05"]})).order  # g00 has "molecule", g05 not
        return float(np.mean([order.index(p) for p in bearing]))

    assert places("molecule") < places("reading list") - 1
    # A name none of the tagged papers bears says nothing about their words: the same order as none.
    opaque = lrn.rank(tail, Decisions(tags={"reading list": ["g00", "g05"]})).order
    assert lrn.rank(tail, Decisions(tags={"speech": ["g00", "g05"]})).order == opaque
    # The name's words weigh in the why-line like the papers' own.
    ranking = lrn.rank(tail, Decisions(tags={"molecule": ["g00", "g05"]}))
    assert "molecule" in lrn.why(ranking.order[0], "molecule").split(" · ")[-1]


def test_a_names_words_are_found_as_the_papers_words_are() -> None:
    f = build(papers())
    cols = f.columns_of("Graph-Neural_network, zzz unknown")
    assert [f.vocab[c] for c in cols] == ["graph", "network", "neural"]
    assert [f.vocab[c] for c in f.columns_of("GraphNetwork")] == ["graph", "network"]
    assert not len(f.columns_of("")) and not len(f.columns_of("the of"))


def test_why_shows_a_titles_math_as_the_list_does() -> None:
    texts = [(pid, "Oxidation of Cu$_2$O films" if pid == "g00" else title, text, own)
             for pid, title, text, own in papers()]
    lrn = Learner(build(texts))
    d = Decisions(starred={"g00"})
    ranking = lrn.rank([t[0] for t in texts[1:]], d)
    assert "“Oxidation of Cu₂O films”" in lrn.why(ranking.order[0], ranking.interest_of[ranking.order[0]])


def test_a_part_of_a_compound_word_is_no_word_of_its_own() -> None:
    """A multi-goal paper was offered for a tag named multi-agent "because of" multi: the
    hyphenated words split into "multi" and "goal" / "agent". Such a part is neither a
    why-line's word nor a tag name's word."""
    agents = [(f"a{n:02d}", f"Agents {n}", f"multi-agent cooperation agent policies emergent communication {n}", True)
              for n in range(6)]
    goals = [(f"m{n:02d}", f"Goals {n}", f"multi-goal reaching robot arm goals conditioned policy {n}", True)
             for n in range(6)]
    texts = papers() + agents + goals
    f = build(texts)
    assert "multi" in f.vocab and "agent" in f.vocab
    assert [f.vocab[c] for c in f.columns_of("multi-agent")] == ["agent"]
    lrn = Learner(f)
    tail = [t[0] for t in texts if t[0] not in {"a00", "a01"}]
    ranking = lrn.rank(tail, Decisions(tags={"multi-agent": ["a00", "a01"]}))
    order = ranking.order
    assert max(order.index(p) for p in ("a02", "a03", "a04", "a05")) < min(order.index(f"m{n:02d}") for n in range(6))
    for pid in order[:12]:
        assert "multi" not in lrn.why(pid, ranking.interest_of.get(pid)).split(" · ")[-1].split(", ")


def test_best_first_explains_the_paper_on_screen_too() -> None:
    """The first card of a session is on screen before the first ranking: it is seen, so not
    ranked again, and had no why-line; the ranking now gives it one."""
    from reader.triage.best import BestFirst

    best = BestFirst.__new__(BestFirst)
    best.learner = Learner(build(papers()))
    ids = [t[0] for t in papers()]
    d = Decisions(starred={"g00", "g01"})
    ranking, lines = best.rank(ids[3:], d, why=5, also=["g02"])
    assert "g02" not in ranking.order and "you starred" in lines["g02"]
    assert len(lines) == 6
