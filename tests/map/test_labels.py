"""Region labels are words of the region's abstracts (issue 30): a title's words label nothing.

The pools test lays out real conference pools (titles and abstracts, as a user imports them) and
checks every label word of both levels against the abstracts alone, independently of Reader's
own label code (the words are read back from the store and counted here)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from reader.library import Library
from reader.map import clusters, mapfile
from reader.search.schema import similarity_words
from reader.store.papers import PLAIN_SQL

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "ml_conference_corpus"
# ICLR 2018 and IJCAI 2022: the held-out pools of the independent check; two more beside them.
POOLS = ("ICLR 2018", "IJCAI 2022", "ICLR 2017", "IJCAI 2021")


def _pool(name: str) -> list[dict]:
    venue, year = name.split()
    if name == "ICLR 2018":
        raw = json.loads((CORPUS / "raw_paperlists" / "iclr2018.json").read_text("utf-8"))
        return [{"title": p["title"], "abstract": p["abstract"]} for p in raw if (p.get("abstract") or "").strip()]
    out = []
    with (CORPUS / "papers.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if f'"venue": "{venue}"' not in line:
                continue
            r = json.loads(line)
            if r["venue"] == venue and str(r["year"]) == year:
                out.append({"title": r["title"], "abstract": r["abstract"]})
    return out


def _shares(conn, data: mapfile.MapData, cluster: clusters.Cluster) -> dict[str, float]:
    """Each label word's share of its region's papers whose abstract (else title) holds it."""
    numbers = data.coarse if cluster.level == 0 else data.fine
    ids = [pid for pid, c in zip(data.ids, numbers, strict=True) if c == cluster.id]
    marks = ",".join("?" * len(ids))
    rows = conn.execute(f"SELECT title, {PLAIN_SQL} FROM papers WHERE id IN ({marks})", ids).fetchall()
    assert len(rows) == len(ids)
    held = [set(similarity_words(a if (a or "").strip() else (t or ""))) for t, a in rows]
    return {w: sum(w in h for h in held) / len(held) for w in cluster.words}


@pytest.mark.corpus
@pytest.mark.skipif(not (CORPUS / "papers.jsonl").exists(), reason="the corpus is not beside the repo")
@pytest.mark.parametrize("name", POOLS)
def test_every_label_word_is_in_40_percent_of_its_regions_abstracts(name: str, tmp_path: Path):
    papers = _pool(name)
    assert len(papers) > 300
    src = tmp_path / "pool.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in papers), "utf-8")
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    try:
        lib.import_files([src], index=False)
        conn = lib.read_connection()
        data = mapfile.build(conn)
        short = []
        for c in data.clusters:
            for word, share in _shares(conn, data, c).items():
                if share < clusters.MIN_SHARE:
                    short.append(f"level {c.level} region {c.id} '{word}' in {share:.0%} of its abstracts")
        assert not short, "\n".join(short)
        for level in (0, 1):
            labels = [c for c in data.clusters if c.level == level]
            forms = [clusters.word_form(w) for c in labels for w in c.words]
            assert len(forms) == len(set(forms)), labels  # one word form, one region
        # Not bought by leaving regions bare: every big region where some word passes both rules
        # on the abstracts (>= 40% inside, at most a quarter of that share outside) is labelled.
        coarse = [c for c in data.clusters if c.level == 0]
        held = {pid: set(similarity_words(a if (a or "").strip() else (t or "")))
                for pid, t, a in conn.execute(f"SELECT id, title, {PLAIN_SQL} FROM papers")}
        df = Counter(w for pid in data.ids for w in held[pid])
        bare = []
        for c in coarse:
            inside = [pid for pid, k in zip(data.ids, data.coarse, strict=True) if k == c.id]
            size, rest = len(inside), len(data.ids) - len(inside)
            df_in = Counter(w for pid in inside for w in held[pid])
            possible = size >= 3 and rest and any(
                clusters.usable_word(w) and k / size >= clusters.MIN_SHARE and (df[w] - k) / rest <= 0.25 * k / size
                for w, k in df_in.items())
            if possible and not c.words:
                bare.append(c.id)
        assert sum(bool(c.words) for c in coarse) >= 3 and len(bare) <= 1, (bare, coarse)
    finally:
        lib.close()


def test_a_word_of_the_titles_alone_labels_no_region(tmp_path: Path):
    # Three groups (three coarse regions); the first group's titles all say "attention", its
    # abstracts never do.
    rows = [{"title": f"Attention for graphs {i}", "abstract": f"Graph node message passing embeddings study {i}."}
            for i in range(20)]
    rows += [{"title": f"Images {i}", "abstract": f"Image pixel diffusion noise sampling study {i}."} for i in range(20)]
    rows += [{"title": f"Agents {i}", "abstract": f"Reward policy agent bandit regret study {i}."} for i in range(20)]
    src = tmp_path / "two.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    try:
        lib.import_files([src], index=False)
        data = mapfile.build(lib.read_connection())
        said = {w for c in data.clusters for w in c.words}
        assert "attention" not in said, data.clusters
        assert said & {"graph", "node", "message", "passing", "embeddings"}, data.clusters
    finally:
        lib.close()


def test_a_refit_subsets_labels_count_abstracts_too(tmp_path: Path):
    from reader.map import subset

    # Three groups of 20; the refit shows all but five papers of the third (a list of 55).
    rows = [{"title": f"Attention for graphs {i}", "abstract": f"Graph node message passing embeddings study {i}."}
            for i in range(20)]
    rows += [{"title": f"Images {i}", "abstract": f"Image pixel diffusion noise sampling study {i}."} for i in range(20)]
    rows += [{"title": f"Agents {i}", "abstract": f"Reward policy agent bandit regret study {i}."} for i in range(20)]
    src = tmp_path / "three.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    lib = Library.open(tmp_path / "lib", seed_if_empty=False)
    try:
        lib.import_files([src], index=False)
        conn = lib.read_connection()
        data = mapfile.build(conn)
        shown = subset.refit(data, conn, data.ids[5:])
        said = {w for s in shown.spots for w in s.label.split(" · ") if w}
        assert said and "attention" not in said, shown.spots
    finally:
        lib.close()


def test_presence_takes_the_fallback_row_for_a_paper_without_its_own_label_text():
    from reader.map.features import tfidf, tokens

    vocab, x = tfidf(tokens(["graph node title", "graph node", "image pixel", "image pixel title"]))
    own = clusters.presence([["graph", "node"], None, None, ["image"]], vocab.words, x)
    rows = [{vocab.words[j] for j in own.indices[own.indptr[i]:own.indptr[i + 1]]} for i in range(4)]
    assert rows == [{"graph", "node"}, {"graph", "node"}, {"image", "pixel"}, {"image"}]
    assert np.all(own.data == 1)
    with pytest.raises(ValueError):
        clusters.presence([None], vocab.words, x)


def test_a_region_whose_only_word_another_region_owns_with_others_gets_that_word():
    from reader.map.features import tfidf, tokens

    # "alpha" tells A apart best, but A also has "beta"; B has "alpha" and nothing else of its own.
    texts = [f"alpha beta {i}" for i in range(10)]
    texts += [f"alpha image {i}" for i in range(6)] + [f"image pixel {i}" for i in range(4)]
    texts += [f"image pixel diffusion noise {i}" for i in range(60)]
    vocab, x = tfidf(tokens(texts))
    words = clusters.label_words(x, vocab.words, np.array([0] * 10 + [1] * 10 + [2] * 60), 3)
    assert words[0] == ("beta",) and words[1] == ("alpha",), words


def test_without_takes_each_papers_title_only_words_out():
    from reader.map.features import tfidf, tokens

    vocab, x = tfidf(tokens(["graph node title", "graph node", "image pixel", "image pixel title"]))
    own = clusters.without(x, vocab.words, ["title", "", "", "pixel unknown"])
    rows = [{vocab.words[j] for j in own.indices[own.indptr[i]:own.indptr[i + 1]]} for i in range(4)]
    assert rows == [{"graph", "node"}, {"graph", "node"}, {"image", "pixel"}, {"image", "title"}]
    assert np.all(own.data == 1) and own.cols == x.cols


def test_the_maps_words_read_title_and_abstract_apart_are_the_texts_words(tmp_path: Path):
    # build reads a paper's title and abstract apart (for the labels): its vectors must be those
    # of the paper's whole text, which placing a new paper (project) uses.
    from reader.map.features import features
    from reader.store import map_rows

    lib = Library.open(tmp_path / "lib")  # the seeds: titles and abstracts
    try:
        conn = lib.read_connection()
        data = mapfile.build(conn)
        texts = dict(map_rows.all_texts(conn))
        whole = features([texts[pid] for pid in data.ids])
        assert whole.vocab.words == data.vocab.words
        assert np.allclose(whole.vectors, data.vectors.astype(np.float32), atol=2e-3)
    finally:
        lib.close()
