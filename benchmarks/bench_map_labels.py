"""The map's region labels on real pools imported as a user imports them (titles and abstracts).

Usage: python benchmarks/bench_map_labels.py [--pools "ICLR 2018,IJCAI 2022,ICLR 2017,IJCAI 2021"]

Per pool and level (coarse: shown at every zoom; fine: zoomed in), counted here from the store,
independently of Reader's label code:
- labels: regions labelled / regions (coverage), and label words;
- rule: label words in >= 40% of their region's abstracts (a paper without one: its title);
- apart: label words that are also in at most a quarter of that share among the other papers;
- possible: regions where some usable word passes both on the abstracts (what a labeller that
  gives each region its own best word could at most label), so coverage is read against it;
- middle: the region nearest the map's centre (the dense middle) and its label.
Pools: ICLR 2018 from raw_paperlists/iclr2018.json, the others "<venue> <year>" of papers.jsonl.
Not a test: prints figures (CPU beside wall, and the load).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPORA = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus"
SHARE, RATIO = 0.4, 0.25


def load_pool(name: str) -> list[dict]:
    if name == "ICLR 2018":
        raw = json.loads((CORPORA / "raw_paperlists" / "iclr2018.json").read_text("utf-8"))
        return [{"title": p["title"], "abstract": p["abstract"]} for p in raw if (p.get("abstract") or "").strip()]
    venue, year = name.rsplit(" ", 1)
    out = []
    with (CORPORA / "papers.jsonl").open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["venue"] == venue and str(r["year"]) == year:
                out.append({"title": r["title"], "abstract": r["abstract"]})
    return out


def level_figures(data, level: int, held: dict[str, set[str]], usable) -> dict:
    numbers = data.coarse if level == 0 else data.fine
    regions = [c for c in data.clusters if c.level == level]
    n = len(data.ids)
    df = Counter(w for pid in data.ids for w in held[pid])
    words = rule = apart = possible = 0
    for c in regions:
        inside = [pid for pid, k in zip(data.ids, numbers, strict=True) if k == c.id]
        df_in = Counter(w for pid in inside for w in held[pid])
        size, rest = len(inside), n - len(inside)

        def share_out(w: str, df_in: Counter = df_in, rest: int = rest) -> float:
            return (df[w] - df_in[w]) / rest if rest else 0.0

        for w in c.words:
            s_in = df_in[w] / max(size, 1)
            words += 1
            rule += s_in >= SHARE
            apart += s_in >= SHARE and share_out(w) <= RATIO * s_in
        possible += size >= 3 and any(usable(w) and k / size >= SHARE and share_out(w) <= RATIO * k / size
                                      for w, k in df_in.items())
    centre = data.xy.mean(axis=0)
    middle = numbers[int(np.argmin(((data.xy - centre) ** 2).sum(axis=1)))]
    label = next(c.label for c in regions if c.id == middle)
    return {"regions": len(regions), "labelled": sum(bool(c.words) for c in regions), "words": words,
            "rule": rule, "apart": apart, "possible": possible, "middle": label or "(none)"}


def run_pool(name: str, tmp: Path) -> None:
    from reader.library import Library
    from reader.map import clusters, mapfile
    from reader.search.schema import similarity_words
    from reader.store.papers import PLAIN_SQL

    papers = load_pool(name)
    src = tmp / "pool.jsonl"
    src.write_text("".join(json.dumps(p) + "\n" for p in papers), "utf-8")
    lib = Library.open(tmp / "lib", seed_if_empty=False)
    lib.import_files([src], index=False)
    conn = lib.read_connection()
    t, cpu = time.perf_counter(), time.process_time()
    data = mapfile.build(conn)
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    held = {pid: set(similarity_words(a if (a or "").strip() else (title or "")))
            for pid, title, a in conn.execute(f"SELECT id, title, {PLAIN_SQL} FROM papers")}
    for level in (0, 1):
        f = level_figures(data, level, held, clusters.usable_word)
        print(f"  {name:<11} {len(data.ids):>5} {'coarse' if level == 0 else 'fine  '}  labelled "
              f"{f['labelled']:>3}/{f['regions']:<3} (possible {f['possible']:>3})  words {f['words']:>3}, "
              f">=40% of abstracts {f['rule']:>3}, and apart {f['apart']:>3}"
              + (f"  middle: {f['middle']}" if level == 0 else ""), flush=True)
    print(f"  {name:<11} build {wall:.1f} s ({cpu:.1f} s CPU)", flush=True)
    lib.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pools", default="ICLR 2018,IJCAI 2022,ICLR 2017,IJCAI 2021")
    a = ap.parse_args()
    print(f"[labels] titled pools, load average {os.getloadavg()[0]:.1f} at start")
    for name in a.pools.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            run_pool(name.strip(), Path(tmp))
    print(f"  load average {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
