"""Search quality and latency as a user meets them, against same-run references.

Usage: python benchmarks/bench_quality.py [--lib DIR] [--sample 1000] [--seed 1] [--typed 50]
       [--skip-import] [--parts known,typing,typos,related,pools,import]

- known: titles of a random sample of papers typed as plain-word queries against the
  abstract-only import of papers.jsonl (records without titles, as the seeds are); the
  paper's own abstract is the answer. MRR@10, R@10, zero-hit share, p50/p95 ms, beside
  SQLite FTS5 bm25 (porter) OR over the same abstracts and the same words.
- typing: per-keystroke latency typing queries character by character (as_you_type=True),
  beside FTS5 with the last word as a prefix.
- related: ICLR 2018 papers with author keywords (related = shares a keyword), P@10 of
  Library.related beside TF-IDF cosine; related p50/p95 ms at 50k (and the first call after
  opening) beside scikit-learn's exact TF-IDF cosine over the same words (its ms per paper,
  and the share of its top 10 that Reader's top 10 holds). Runs the like part too.
- pools (with related): related and like on every keyword-labelled pool, not only ICLR 2018:
  each venue of papers.jsonl with >= 300 keyworded papers (IJCAI, CoRL, COLM, ICLR
  2017-18), imported title-less; per pool and the mean, and in how many pools Reader is at
  least as good as each reference.
- like: "more like these" from 5 papers sharing a keyword (labels with 15 papers up to 5% of
  the pool) beside a TF-IDF centroid and a LinearSVC on TF-IDF (arxiv-sanity-lite).
- typos: the known-item titles with 1-2 realistic typos (keyboard neighbour, dropped,
  doubled or swapped letter) in words of 4+ letters: MRR@10 beside the same titles typed
  right, and how often Library.suggest gives back the title exactly, beside symspellpy over
  the library's own words (its document frequencies) as the same-run reference; the size and
  build time of the typo tables. Skips the reference if symspellpy is absent.
- import: Library.import_files on the title-less 50k JSONL (abstracts/s).
scikit-learn (TF-IDF) and symspellpy (typos) are needed for the references only (not Reader
dependencies: `pip install .[bench]`).
Not a test: prints figures. Use another --seed for a held-out sample.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ml_conference_corpus"
PAPERS = CORPORA / "papers.jsonl"
ICLR = CORPORA / "raw_paperlists" / "iclr2018.json"
_WORD = re.compile(r"\w+")
ROUNDS = 3  # draws of 5 papers per keyword in the like-tag test


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else 0.0


def ms(xs: list[float]) -> str:
    return f"p50 {pct(xs, 50):6.1f}  p95 {pct(xs, 95):6.1f}  max {max(xs, default=0):6.1f} ms"


def ratio(a: list[float], b: list[float], p: float = 95) -> str:
    return f"{pct(a, p) / max(pct(b, p), 1e-9):.2f}x"


def words_of(title: str) -> str:
    return " ".join(_WORD.findall(title))


def write_titleless(records: list[dict], path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps({"abstract": r["abstract"]}) + "\n")


def open_library(lib_dir: Path, records: list[dict], label: str, do_import: bool):
    """The library in lib_dir, importing `records` title-less if it is empty."""
    from reader.library import Library

    lib = Library.open(lib_dir, seed_if_empty=False)
    if do_import and lib.counts().total == 0:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / f"{label}.jsonl"
            write_titleless(records, src)
            t = time.perf_counter()
            lib.import_files([src], index=False)
            t_store = time.perf_counter() - t
            lib.sync_index()
            t_all = time.perf_counter() - t
        # Big files are indexed while they are stored; the sync does what is left.
        print(f"[import {label}] {len(records):,} abstracts: import_files {t_store:.1f} s, then "
              f"sync {t_all - t_store:.1f} s: {len(records) / t_all:,.0f} abstracts/s stored and "
              f"searchable")
    return lib


def fts_for(lib) -> sqlite3.Connection:
    """FTS5 (porter) over the library's plain abstracts, keyed by paper id."""
    src = lib._reader()
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE f USING fts5(pid UNINDEXED, body, tokenize='porter unicode61')")
    db.executemany("INSERT INTO f VALUES (?, ?)",
                   src.execute("SELECT id, abstract_text FROM papers"))
    return db


def fts_or(db: sqlite3.Connection, words: list[str], prefix: str | None = None,
           limit: int = 10) -> list[str]:
    terms = [f'"{w}"' for w in words] + ([f'"{prefix}"*'] if prefix else [])
    if not terms:
        return []
    sql = "SELECT pid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT ?"
    return [r[0] for r in db.execute(sql, [" OR ".join(terms), limit])]


def known_item(lib, db, records: list[dict], sample: int, seed: int, page: int | None) -> None:
    from reader.models import paper_id_for

    rng = random.Random(seed)
    picked = rng.sample([r for r in records if r.get("title")], sample)
    stats: dict[str, dict] = {k: {"rr": [], "hit": 0, "zero": 0, "ms": []} for k in ("reader", "fts5")}
    for r in picked:
        target = paper_id_for(r["abstract"])
        q = words_of(r["title"])
        t = time.perf_counter()
        res = lib.search(q, limit=page)
        stats["reader"]["ms"].append((time.perf_counter() - t) * 1000)
        got = res.ids[:10]
        t = time.perf_counter()
        fgot = fts_or(db, q.split())
        stats["fts5"]["ms"].append((time.perf_counter() - t) * 1000)
        for name, ids, total in (("reader", got, res.total), ("fts5", fgot, len(fgot))):
            s = stats[name]
            s["zero"] += total == 0
            if target in ids:
                s["rr"].append(1 / (ids.index(target) + 1))
                s["hit"] += 1
            else:
                s["rr"].append(0.0)
    print(f"[known-item] {sample} titles as plain-word queries, seed {seed}, "
          f"{lib.counts().total:,} title-less abstracts, first page of {page} hits")
    for name, s in stats.items():
        print(f"  {name:7s} MRR@10 {statistics.mean(s['rr']):.3f}  R@10 {s['hit'] / sample:.3f}  "
              f"zero-hit {s['zero'] / sample:.1%}  {ms(s['ms'])}")
    print(f"  reader/fts5 p95 {ratio(stats['reader']['ms'], stats['fts5']['ms'])}, "
          f"p50 {ratio(stats['reader']['ms'], stats['fts5']['ms'], 50)}")


def typing(lib, db, records: list[dict], n: int, seed: int) -> None:
    rng = random.Random(seed + 1000)
    picked = rng.sample([r for r in records if r.get("title")], n)
    mine: list[float] = []
    fts: list[float] = []
    zero = keys = 0
    for r in picked:
        q = words_of(r["title"])
        for i in range(1, len(q) + 1):
            text = q[:i]
            keys += 1
            t = time.perf_counter()
            res = lib.search(text, as_you_type=True, limit=100)
            mine.append((time.perf_counter() - t) * 1000)
            # Every unfinished word here is a prefix of a word of the title.
            zero += res.total == 0
            parts = text.split()
            unfinished = not text.endswith(" ")
            words = parts[:-1] if unfinished else parts
            t = time.perf_counter()
            fts_or(db, words, parts[-1] if unfinished and parts else None, limit=100)
            fts.append((time.perf_counter() - t) * 1000)
    print(f"[as you type] {n} titles typed character by character: {keys} keystrokes")
    print(f"  reader  {ms(mine)}  zero-hit keystrokes {zero / keys:.1%}")
    print(f"  fts5    {ms(fts)}  (last word as prefix)")
    print(f"  reader/fts5 p95 {ratio(mine, fts)}")


# QWERTY neighbours of each letter (a slip of the finger).
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
NEIGHBOURS = {c: "".join(r2[j] for r2i, r2 in enumerate(_ROWS) for j in range(len(r2))
                         if abs(r2i - ri) <= 1 and abs(j - i) <= 1 and (r2i, j) != (ri, i))
              for ri, r in enumerate(_ROWS) for i, c in enumerate(r)}


def typo(word: str, rng: random.Random) -> str:
    """One realistic typo: a keyboard neighbour, a dropped, doubled or swapped letter
    (the first letter kept, as people rarely mistype it)."""
    for _ in range(20):
        kind = rng.choice(("neighbour", "drop", "double", "swap"))
        i = rng.randrange(1, len(word))
        if kind == "neighbour" and word[i] in NEIGHBOURS:
            out = word[:i] + rng.choice(NEIGHBOURS[word[i]]) + word[i + 1:]
        elif kind == "drop":
            out = word[:i] + word[i + 1:]
        elif kind == "double":
            out = word[:i] + word[i] + word[i:]
        elif kind == "swap" and i + 1 < len(word):
            out = word[:i] + word[i + 1] + word[i] + word[i + 2:]
        else:
            continue
        if out != word:
            return out
    return word


def typoed(query: str, rng: random.Random) -> str | None:
    """`query` with 1 or 2 typos in its words of 4+ letters (2 in one word only if it has
    8+ letters); None if it has no such word."""
    from reader.search.schema import plain_words

    words = query.split()
    ok = [i for i, w in enumerate(words) if len(w) >= 4 and w.isalpha() and plain_words(w)]
    if not ok:
        return None
    n = rng.choice((1, 2))
    first = rng.choice(ok)
    words[first] = typo(words[first], rng)
    if n == 2:
        others = [i for i in ok if i != first]
        if len(words[first]) >= 8 and (not others or rng.random() < 0.5):
            words[first] = typo(words[first], rng)
        elif others:
            j = rng.choice(others)
            words[j] = typo(words[j], rng)
    return " ".join(words)


def symspell_for(lib):
    """symspellpy over the library's own words (lowercased, as typed in the abstracts), each
    counted by how many abstracts have it; None if symspellpy is not installed."""
    try:
        from symspellpy import SymSpell
    except ImportError:
        return None
    from reader.search.schema import lower_words

    counts: dict[str, int] = {}
    for (text,) in lib._reader().execute("SELECT abstract_text FROM papers"):
        for w in set(lower_words(text or "")):
            counts[w] = counts.get(w, 0) + 1
    sym = SymSpell(max_dictionary_edit_distance=2, prefix_length=7)
    for w, c in counts.items():
        sym.create_dictionary_entry(w, c)
    return sym


def symspell_fix(sym, query: str) -> str:
    from symspellpy import Verbosity

    out = []
    for w in query.split():
        found = sym.lookup(w, Verbosity.TOP, max_edit_distance=2, include_unknown=True)
        out.append(found[0].term if found else w)
    return " ".join(out)


def typo_tables(lib) -> None:
    from reader.search import typos

    s = lib.index._s()
    typos._tables.clear()
    t, c = time.perf_counter(), time.process_time()
    typos.warm(s)
    took, cpu = time.perf_counter() - t, time.process_time() - c
    tables = list(typos._tables.values())
    print(f"[typo tables] {len(tables)} segments, {sum(len(x.words) for x in tables):,} words, "
          f"{sum(len(x.keys) for x in tables):,} deletion forms, "
          f"{sum(x.nbytes() for x in tables) / 1e6:.1f} MB, built in {took:.2f} s ({cpu:.2f} CPU-s)")


def typo_queries(lib, records: list[dict], sample: int, seed: int, page: int | None) -> None:
    from reader.models import paper_id_for

    typo_tables(lib)
    rng = random.Random(seed)
    picked = rng.sample([r for r in records if r.get("title")], sample)
    trng = random.Random(seed + 7)
    rows = []
    for r in picked:
        clean = words_of(r["title"]).lower()
        bad = typoed(clean, trng)
        if bad is not None and bad != clean:
            rows.append((paper_id_for(r["abstract"]), clean, bad))
    sym = symspell_for(lib)
    rr: dict[str, list[float]] = {"clean": [], "typo": []}
    zero = {"clean": 0, "typo": 0}
    times: dict[str, list[float]] = {"search": [], "suggest": [], "symspell": []}
    right = {"reader": 0, "symspell": 0}
    for target, clean, bad in rows:
        for name, q in (("clean", clean), ("typo", bad)):
            t = time.perf_counter()
            res = lib.search(q, limit=page)
            if name == "typo":
                times["search"].append((time.perf_counter() - t) * 1000)
            ids = res.ids[:10]
            zero[name] += res.total == 0
            rr[name].append(1 / (ids.index(target) + 1) if target in ids else 0.0)
        t = time.perf_counter()
        sug = lib.suggest(bad)
        times["suggest"].append((time.perf_counter() - t) * 1000)
        right["reader"] += (sug.text if sug else bad).lower().split() == clean.split()
        if sym is not None:
            t = time.perf_counter()
            fixed = symspell_fix(sym, bad)
            times["symspell"].append((time.perf_counter() - t) * 1000)
            right["symspell"] += fixed.split() == clean.split()
    n = len(rows)
    c, b = statistics.mean(rr["clean"]), statistics.mean(rr["typo"])
    print(f"[typos] {n} titles with 1-2 typos (seed {seed}), {lib.counts().total:,} title-less abstracts")
    print(f"  MRR@10 clean {c:.3f}  typo'd {b:.3f}  ({b / c:.1%} of clean; target >= 90%)  "
          f"zero-hit clean {zero['clean'] / n:.1%} typo'd {zero['typo'] / n:.1%}")
    print(f"  typo'd search {ms(times['search'])}")
    print(f"  suggestion = the title exactly: reader {right['reader'] / n:.1%}  ({ms(times['suggest'])})")
    if sym is None:
        print("  symspellpy not installed: no reference (pip install symspellpy)")
    else:
        print(f"  symspellpy lookup (TOP, distance <= 2, per word): {right['symspell'] / n:.1%}  "
              f"({ms(times['symspell'])})")


def load_iclr() -> list[dict]:
    data = json.loads(ICLR.read_text("utf-8"))
    out = []
    for p in data:
        kws = {k.strip().lower() for k in (p.get("keywords") or "").split(";") if k.strip()}
        if kws and (p.get("abstract") or "").strip():
            out.append({"abstract": p["abstract"], "title": p.get("title", ""), "kws": kws})
    return out


def tfidf(texts: list[str]):
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(stop_words="english", sublinear_tf=True, min_df=2).fit_transform(texts)


def keyword_pools(records: list[dict]) -> list[tuple[str, list[dict]]]:
    """Pools of papers labelled by author keywords: ICLR 2018 (raw OpenReview list), then
    each venue of papers.jsonl with >= 300 keyworded papers (its years together)."""
    pools = [("ICLR 2018", load_iclr())]
    by_venue: dict[str, list[dict]] = {}
    for r in records:
        kws = {k.strip().lower() for k in r.get("keywords") or () if k.strip()}
        if kws and (r.get("abstract") or "").strip():
            by_venue.setdefault(r["venue"], []).append(
                {"abstract": r["abstract"], "title": r.get("title", ""), "kws": kws})
    pools += [(f"{v} (all years)", ps) for v, ps in sorted(by_venue.items()) if len(ps) >= 300]
    return pools


def related(lib_dir: Path, name: str, papers: list[dict], seed: int) -> dict[str, float]:
    """Related P@10 and like-tag P@10 on one keyword pool, imported title-less."""
    from reader.models import paper_id_for

    lib = open_library(lib_dir, papers, re.sub(r"\W+", "-", name).lower(), True)
    ids = [paper_id_for(p["abstract"]) for p in papers]
    kws: dict[str, set[str]] = {}
    for pid, p in zip(ids, papers, strict=True):  # a repeated abstract is one paper
        kws.setdefault(pid, set()).update(p["kws"])
    ids = list(dict.fromkeys(ids))
    stored = {q.id: q.abstract for q in lib.papers(ids)}
    ids = [i for i in ids if i in stored]
    X = tfidf([stored[i] for i in ids])
    sims = (X @ X.T).toarray()
    pos = {pid: n for n, pid in enumerate(ids)}
    p_mine, p_tfidf, times = [], [], []
    for n, pid in enumerate(ids):
        t = time.perf_counter()
        got = [i for i, _ in lib.related(pid, limit=10)]
        times.append((time.perf_counter() - t) * 1000)
        p_mine.append(sum(bool(kws[pid] & kws.get(g, set())) for g in got) / 10)
        row = sims[n].copy()
        row[n] = -1
        top = row.argsort()[::-1][:10]
        p_tfidf.append(sum(bool(kws[pid] & kws[ids[j]]) for j in top) / 10)
    print(f"[related] {name}, {len(ids)} papers with keywords (related = shares a keyword)")
    print(f"  reader related P@10 {statistics.mean(p_mine):.3f}   TF-IDF cosine "
          f"{statistics.mean(p_tfidf):.3f}   ({ms(times)} at {len(ids)})")
    out = {"related": statistics.mean(p_mine), "related tfidf": statistics.mean(p_tfidf)}
    out.update(like_tag(lib, ids, kws, X, pos, seed))
    lib.close()
    return out


def pools_summary(results: dict[str, dict[str, float]]) -> None:
    print(f"[keyword pools] {len(results)} pools: mean P@10 and pools where Reader is >= the reference")
    for mine, refs in (("related", ("related tfidf",)), ("reader", ("centroid", "svm"))):
        for ref in refs:
            a = [r[mine] for r in results.values()]
            b = [r[ref] for r in results.values()]
            wins = sum(x >= y for x, y in zip(a, b, strict=True))
            print(f"  {mine} {statistics.mean(a):.3f} vs {ref} {statistics.mean(b):.3f}   "
                  f">= in {wins} of {len(a)}")


def related_at_scale(lib, seed: int) -> None:
    """Library.related at 50k beside the exact TF-IDF cosine over the same words (scikit-learn,
    sparse): its time per paper, and how many of its top 10 Reader's holds (Reader adds the
    neighbours' consensus, so the lists differ by design)."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from reader.search.schema import similarity_words

    rng = random.Random(seed)
    all_ids = lib.paper_ids()
    sample = rng.sample(all_ids, min(300, len(all_ids)))
    t = time.perf_counter()
    lib.related(sample[0], limit=10)  # the first call after opening reads the lexicons
    first = (time.perf_counter() - t) * 1000
    mine, found = [], {}
    for pid in sample[1:]:
        t = time.perf_counter()
        found[pid] = [i for i, _ in lib.related(pid, limit=10)]
        mine.append((time.perf_counter() - t) * 1000)
    s = lib.index._s()  # the index's own stored text, in document order
    stored = [s.stored_fields(d) for d in range(s.doc_count_all())]
    order = [st.get("id") for st in stored]
    X = TfidfVectorizer(analyzer=similarity_words, sublinear_tf=True, min_df=2).fit_transform(
        f"{st.get('title', '')} {st.get('abstract', '')}" for st in stored).tocsr()
    pos = {pid: n for n, pid in enumerate(order)}
    ref, agree = [], []
    for pid in sample[1:]:
        t = time.perf_counter()
        sims = (X @ X[pos[pid]].T).toarray().ravel()
        sims[pos[pid]] = -1
        top = np.argpartition(-sims, 10)[:10]
        ref.append((time.perf_counter() - t) * 1000)
        agree.append(len({order[j] for j in top} & set(found[pid])) / 10)
    print(f"  related at {len(all_ids):,}: {ms(mine)} (first call {first:.0f} ms)")
    print(f"  TF-IDF cosine (scikit-learn sparse, same words): {ms(ref)}   reader p95 "
          f"{ratio(mine, ref)}; reader's top 10 holds {statistics.mean(agree):.3f} of its top 10")


def like_tag(lib, ids: list[str], kws: dict[str, set[str]], X, pos: dict[str, int],
             seed: int) -> dict[str, float]:
    import numpy as np
    from sklearn.svm import LinearSVC

    rng = random.Random(seed)
    counts: dict[str, list[str]] = {}
    for pid in ids:
        for k in kws[pid]:
            counts.setdefault(k, []).append(pid)
    labels = sorted(k for k, v in counts.items() if 15 <= len(v) <= 0.05 * len(ids))
    scores: dict[str, list[float]] = {"reader": [], "centroid": [], "svm": []}
    times = []
    for _ in range(ROUNDS):  # one label's P@10 varies a lot with its 5 papers
        for label in labels:
            members = set(counts[label])
            seeds = rng.sample(sorted(members), 5)
            rows = [pos[s] for s in seeds]
            t = time.perf_counter()
            got = [i for i, _ in lib.more_like(seeds, limit=10)]
            times.append((time.perf_counter() - t) * 1000)
            scores["reader"].append(sum(g in members for g in got) / 10)
            cen = np.asarray(X[rows].mean(axis=0)).ravel()
            sim = X @ cen
            sim[rows] = -1e9
            scores["centroid"].append(sum(ids[j] in members for j in np.argsort(-sim)[:10]) / 10)
            y = np.zeros(len(ids))
            y[rows] = 1
            svm = LinearSVC(class_weight="balanced", max_iter=10000, tol=1e-6, C=0.1).fit(X, y)
            d = svm.decision_function(X)
            d[rows] = -1e9
            scores["svm"].append(sum(ids[j] in members for j in np.argsort(-d)[:10]) / 10)
    print(f"[like tag] {len(labels)} keywords with 15..{int(0.05 * len(ids))} papers, "
          f"{ROUNDS} draws of 5 papers each")
    print("  " + "   ".join(f"{k} P@10 {statistics.mean(v):.3f}" for k, v in scores.items())
          + f"   (reader {ms(times)})")
    return {k: statistics.mean(v) for k, v in scores.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", type=Path, help="library folder to reuse (created if missing)")
    ap.add_argument("--sample", type=int, default=1000)
    ap.add_argument("--typed", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--page", type=int, default=100,
                    help="hits fetched at once (the rest come lazily through results.page)")
    ap.add_argument("--limit", type=int, help="use only the first N papers of the corpus")
    ap.add_argument("--parts", default="known,typing,typos,related")
    ap.add_argument("--skip-import", action="store_true", help="use --lib as it is")
    a = ap.parse_args()
    if not PAPERS.exists():
        sys.exit(f"corpus not found: {PAPERS}")
    records = []
    with PAPERS.open(encoding="utf-8") as f:
        for line in f:
            records.append(json.loads(line))
            if a.limit and len(records) >= a.limit:
                break
    parts = set(a.parts.split(","))
    tmp = tempfile.TemporaryDirectory()
    base = a.lib or Path(tmp.name)
    lib = open_library(base / "lib50k" if a.lib is None else a.lib, records, "50k",
                       not a.skip_import)
    if lib.index_needs_sync():
        lib.sync_index()
    db = fts_for(lib)
    t = time.perf_counter()
    lib.warm_search()  # as the window does once the index is ready (off the GUI thread)
    print(f"[warm-up] {(time.perf_counter() - t) * 1000:.0f} ms (background, at start)")
    if "known" in parts:
        known_item(lib, db, records, a.sample, a.seed, a.page)
    if "typing" in parts:
        typing(lib, db, records, a.typed, a.seed)
    if "typos" in parts:
        typo_queries(lib, records, a.sample, a.seed, a.page)
    if "related" in parts:
        related_at_scale(lib, a.seed)
        pools = keyword_pools(records)
        if "pools" not in parts:
            pools = pools[:1]
        results = {name: related(Path(tmp.name) / f"pool{n}", name, papers, a.seed)
                   for n, (name, papers) in enumerate(pools)}
        if len(results) > 1:
            pools_summary(results)
    lib.close()
    tmp.cleanup()


if __name__ == "__main__":
    main()
