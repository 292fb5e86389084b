"""The search worker's CPU per keystroke: titles typed key by key against a big index, for this
working tree and for an older commit (default main 3405232) in the same run, alternately.

Usage: python benchmarks/bench_typing.py INDEX_DIR [--ref 3405232] [--titles 24] [--rounds 2]
           [--no-verify]
INDEX_DIR: a library's `index` folder (e.g. a 100k library made by bench_gui.py --size=100k);
it is only read. Each measurement runs in a child process importing one checkout's `reader`
(the ref's is `git archive`d into a temporary folder), opens the index, warms it as the window
does, then types the titles: each keystroke is `SearchIndex.search(text, limit=200,
as_you_type=True)`, the window's listing of a query being typed, timed in CPU seconds
(time.process_time) and wall. Every other title gets a typo (two neighbouring letters of its
longest word swapped). Printed: CPU and wall ms per key p50 / p95 / mean for each side, their
ratios, and the load. With verification (the default), each keystroke's whole ranking (every
document, its score, the order) is hashed by both sides outside the timing: the answers must be
identical.
Not a test: prints figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
PAGE = 200  # the window's first page (ui/list/search_bar.FIRST_PAGE)


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def titles(source: Path, n: int, seed: int = 7) -> list[str]:
    """n titles of 3-10 words (bench_compare's choice), every other one with its typo."""
    # this folder's compare_child (the script's own folder is first on the path)
    from compare_child import titles as sampled
    from compare_child import typo

    return [typo(t, i) if i % 2 else t for i, t in enumerate(sampled(source, n, seed))]


def child(code: Path, index_dir: Path, typed: list[str], verify: bool) -> dict:
    """One side's run (in its own process: `code` is the checkout whose reader is imported)."""
    sys.path.insert(0, str(code))
    os.environ.setdefault("READER_DAILY_MAINTENANCE", "off")
    import reader
    from reader.search import SearchIndex
    from reader.search import rank as rank_module
    from reader.search.query import plain_query

    assert Path(reader.__file__).resolve().is_relative_to(code.resolve()), reader.__file__
    ix = SearchIndex.open(index_dir)
    try:
        c0 = time.process_time()
        ix.warm()
        warm_cpu = time.process_time() - c0
        n_docs = ix.doc_count
        cpu_ms: list[float] = []
        wall_ms: list[float] = []
        digests: list[str] = []
        for title in typed:
            for i in range(1, len(title) + 1):
                q = title[:i]
                c, w = time.process_time(), time.perf_counter()
                res = ix.search(q, limit=PAGE, as_you_type=True)
                cpu_ms.append((time.process_time() - c) * 1000)
                wall_ms.append((time.perf_counter() - w) * 1000)
                if verify:
                    h = hashlib.blake2b(digest_size=12)
                    h.update(repr((res.total, res.problem, [(x.id, x.score) for x in res.hits])).encode())
                    plain = plain_query(q, as_you_type=True)
                    if plain is not None:  # the whole ranking: every document, score and place
                        with ix._read_lock:
                            r = rank_module.rank(ix._s(), plain.words, prefix=plain.prefix,
                                                 max_postings=rank_module.TYPING_POSTINGS_BUDGET,
                                                 typo_words=3)
                        h.update(repr(r.top(None)).encode())
                    digests.append(h.hexdigest())
        return {"cpu_ms": cpu_ms, "wall_ms": wall_ms, "digests": digests, "docs": n_docs,
                "warm_cpu": warm_cpu, "code": str(code)}
    finally:
        ix.close()


def export_ref(ref: str, where: Path) -> Path:
    """The ref's `reader` package, read from git (the ref's own files, whatever is checked out)."""
    data = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "reader"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(where, filter="data")
    return where


def run_side(code: Path, index_dir: Path, typed: list[str], verify: bool) -> dict:
    env = dict(os.environ, PYTHONPATH="", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(code), str(index_dir), "--typed-json", json.dumps(typed),
         *(["--no-verify"] if not verify else [])],
        check=True, capture_output=True, text=True, env=env, cwd=str(code))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index_dir", type=Path)
    ap.add_argument("--ref", default="3405232")
    ap.add_argument("--titles", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--typed-json", help=argparse.SUPPRESS)
    args, rest = ap.parse_known_args()
    if args.child is not None:
        out = child(args.child, args.index_dir, json.loads(args.typed_json), not args.no_verify)
        print(json.dumps(out))
        return 0
    typed = titles(SOURCE, args.titles)
    keys = sum(len(t) for t in typed)
    print(f"{len(typed)} titles ({len(typed) // 2} with a typo), {keys} keystrokes; index {args.index_dir}")
    print(f"load at start: {load()}")
    results: dict[str, list[dict]] = {"work": [], "ref": []}
    with tempfile.TemporaryDirectory(prefix="bench-typing-") as tmp:
        ref_code = export_ref(args.ref, Path(tmp))
        sides = {"work": ROOT, "ref": ref_code}
        for rnd in range(args.rounds):
            order = ("work", "ref") if rnd % 2 == 0 else ("ref", "work")
            for side in order:
                verify = not args.no_verify and rnd == 0  # one verified round each (outside the timing)
                r = run_side(sides[side], args.index_dir, typed, verify)
                results[side].append(r)
                print(f"  round {rnd + 1} {side:4s}: CPU p50 {pct(r['cpu_ms'], 50):6.1f} p95 "
                      f"{pct(r['cpu_ms'], 95):6.1f} ms/key, {sum(r['cpu_ms']) / 1000:6.2f} CPU-s for "
                      f"{len(r['cpu_ms'])} keys (load {load()})", flush=True)
    docs = results["work"][0]["docs"]
    print(f"\n{docs:,} documents; ref = {args.ref}; load at end: {load()}")
    print(f"{'':10s} {'CPU p50':>8s} {'CPU p95':>8s} {'CPU mean':>9s} {'wall p50':>9s} {'wall p95':>9s}  (ms per key)")
    figures = {}
    for side in ("work", "ref"):
        cpu = [x for r in results[side] for x in r["cpu_ms"]]
        wall = [x for r in results[side] for x in r["wall_ms"]]
        figures[side] = (pct(cpu, 50), pct(cpu, 95), statistics.fmean(cpu), pct(wall, 50), pct(wall, 95))
        name = "this tree" if side == "work" else args.ref
        print(f"{name:10s} " + " ".join(f"{v:8.1f} " for v in figures[side]))
    w, r = figures["work"], figures["ref"]
    print(f"{'ratio':10s} " + " ".join(f"{a / b:7.2f}x " for a, b in zip(w, r, strict=True)))
    if not args.no_verify:
        a, b = results["work"][0]["digests"], results["ref"][0]["digests"]
        same = sum(x == y for x, y in zip(a, b, strict=True))
        print(f"identical answers (the whole ranking, every score and place): {same} of {len(a)} keystrokes")
        if same != len(a):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
