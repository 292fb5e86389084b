"""Search answers on a quiet and on a loaded machine: held-out titles typed as plain words.

Usage: python benchmarks/bench_load.py --lib DIR --out FILE.json [--sample 200] [--seed 5]
           [--titleless] [--busy N] [--typing]
       python benchmarks/bench_load.py --compare A.json B.json

Runs `--sample` titles of the corpus as plain-word queries through Library.search (limit 10;
with --typing also as typed, the last word a prefix) and writes each query's top 10, with
the wall and CPU time and the load average. `--busy N` starts N CPU-bound processes for the
run (and stops them after). The reciprocal rank of the paper whose title was typed gives
MRR@10: with --titleless the library is the title-less import of papers.jsonl
(bench_quality.py's known-item test), else the 12.7k CSV with its titles.
`--compare` prints how many top-10 lists (and top hits) two runs share. Run the same
command with PYTHONPATH pointing at another checkout (from a folder outside this one) for
the old code's figures in the same run. Not a test: prints figures.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing as mp
import os
import random
import re
import statistics
import time
from pathlib import Path

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ml_conference_corpus"
_WORD = re.compile(r"\w+")


def _spin() -> None:
    while True:
        pass


def _records(titleless: bool) -> list[dict]:
    if titleless:
        with (CORPORA / "papers.jsonl").open(encoding="utf-8") as f:
            return [json.loads(line) for line in f]
    with (CORPORA / "papers_neurips_icml_iclr.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def run(args: argparse.Namespace) -> None:
    from reader.models import paper_id_for

    try:
        from reader.library import Library
    except ImportError:  # an older checkout (PYTHONPATH): reader.services
        from reader.services import Library  # type: ignore[no-redef]

    rng = random.Random(args.seed)
    picked = rng.sample([r for r in _records(args.titleless) if r.get("title")], args.sample)
    lib = Library.open(args.lib, seed_if_empty=False)
    lib.warm_search()
    busy = [mp.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for p in busy:
        p.start()
    try:
        time.sleep(1.0 if busy else 0.0)
        load0 = os.getloadavg()[0]
        out: dict[str, list[str]] = {}
        rr: list[float] = []
        wall, cpu = [], []
        for r in picked:
            q = " ".join(_WORD.findall(r["title"]))
            t, c = time.perf_counter(), time.process_time()
            got = lib.search(q, limit=10).ids[:10]
            wall.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            out[q] = got
            target = paper_id_for(r["abstract"])
            rr.append(1 / (got.index(target) + 1) if target in got else 0.0)
            if args.typing:
                out["typed: " + q[:-2]] = lib.search(q[:-2], limit=10, as_you_type=True).ids[:10]
        load1 = os.getloadavg()[0]
    finally:
        for p in busy:
            p.terminate()
        for p in busy:
            p.join()
    lib.close()
    result = {"queries": out, "mrr10": statistics.mean(rr), "wall_s": sum(wall), "cpu_s": sum(cpu),
              "p95_ms": sorted(wall)[int(0.95 * (len(wall) - 1))] * 1000, "load": [load0, load1],
              "busy": args.busy}
    Path(args.out).write_text(json.dumps(result, indent=0))
    print(f"{args.sample} queries, busy {args.busy}, load {load0:.1f}-{load1:.1f}: MRR@10 {result['mrr10']:.3f}, "
          f"wall {result['wall_s']:.1f} s, CPU {result['cpu_s']:.1f} s, p95 {result['p95_ms']:.0f} ms")


def compare(a: str, b: str) -> None:
    x = json.loads(Path(a).read_text())["queries"]
    y = json.loads(Path(b).read_text())["queries"]
    keys = [k for k in x if k in y]
    same = sum(x[k] == y[k] for k in keys)
    top = sum(x[k][:1] == y[k][:1] for k in keys)
    print(f"{a} vs {b}: {same} of {len(keys)} top-10 lists identical, {top} of {len(keys)} top hits")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", type=Path)
    ap.add_argument("--out")
    ap.add_argument("--sample", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--titleless", action="store_true")
    ap.add_argument("--typing", action="store_true")
    ap.add_argument("--busy", type=int, default=0)
    ap.add_argument("--compare", nargs=2)
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    else:
        run(args)


if __name__ == "__main__":
    main()
