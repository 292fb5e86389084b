"""The working tree against a git ref, measured alternately in one run, printed as ratios.

Run: .venv/bin/python benchmarks/bench_compare.py REF [--rounds N] [--with-100k] [--tasks a,b,...]
REF is checked out once as a `git worktree` in $READER_COMPARE_DIR (default /tmp/reader-compare)
with its own venv (scripts/install.sh). Each round measures every task for both checkouts, the
order swapped from round to round, so a busy machine weighs on both alike; CPU seconds (the
process and its index workers) are the figure to trust, wall seconds are shown beside them with
the load. Tasks (each on the library the checkout itself imported):
  import12k  `reader import` of the 12,721-row CSV into a new library (and its indexing)
  import100k `reader import` of the 100k corpus (benchmarks/corpus.py; with --with-100k)
  stats      the first `reader stats` after that import (the day's check and backup are due),
             then a second one
  search     every keystroke of 12 titles, each typed as it is and with a typo (two letters
             swapped), as a listing (p50/p95 per keystroke beside the totals)
  gui        the window's start (first row and paper shown: row "start") and J/K held for 200
             steps (row "jk": their total, with p50/p95/max per step)
  map        the library's map laid out anew
  rerank     triage's best-first re-rank of the library after a decision
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import CORPUS, CSV_12K, corpus_100k, library_count, load

ROOT = Path(__file__).resolve().parents[1]
CHILD = Path(__file__).resolve().parent / "compare_child.py"
TASKS = ("import12k", "import100k", "stats", "search", "gui", "map", "rerank")
DEFAULT_TASKS = ("import12k", "stats", "search", "gui", "rerank", "map")


@dataclass
class Checkout:
    name: str
    root: Path
    data: Path  # its library (12.7k)
    figures: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def python(self) -> str:
        return str(self.root / ".venv" / "bin" / "python")


def prepare_ref(ref: str, workdir: Path) -> Path:
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", ref], capture_output=True, text=True,
                         check=True).stdout.strip()
    tree = workdir / f"ref-{sha[:10]}"
    if not (tree / ".git").exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), sha], check=True)
    if not (tree / ".venv" / "bin" / "python").exists():
        print(f"installing {ref} ({sha[:10]}) into {tree}/.venv …", flush=True)
        subprocess.run(["bash", "scripts/install.sh"], cwd=tree, check=True, stdout=subprocess.DEVNULL)
    return tree


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_cli(co: Checkout, *args: str, data: Path | None = None, env: dict | None = None) -> dict:
    """One `reader` command of the checkout, timed (CPU of it and the processes it waited for)."""
    c, t = _children_cpu(), time.perf_counter()
    proc = subprocess.run([co.python, "-m", "reader", "--data-dir", str(data or co.data), *args],
                          cwd=co.root, capture_output=True, text=True, env={**os.environ, **(env or {})})
    out = {"wall": time.perf_counter() - t, "cpu": _children_cpu() - c}
    if proc.returncode != 0:
        raise SystemExit(f"{co.name}: reader {' '.join(args)} failed: {proc.stderr.strip()[-400:]}")
    return out


def run_child(co: Checkout, task: str, data: Path, source: Path) -> dict:
    proc = subprocess.run([co.python, str(CHILD), task, str(data), str(source)], cwd=co.root,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{co.name}: {task} failed: {proc.stderr.strip()[-600:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _wait_daily(data: Path, timeout: float = 300.0) -> None:
    """A detached daily backup (the working tree's) is left to finish before the next measurement."""
    end = time.time() + timeout
    while time.time() < end:
        # A finished one: gzip (older checkouts) or bzip2 (since the backups shrank), no partial copy.
        if any(p.name.endswith((".sqlite3.gz", ".sqlite3.bz2")) for p in (data / "backups").glob("library-daily-*")):
            return
        time.sleep(0.5)


def measure(co: Checkout, task: str, workdir: Path, big: Path | None) -> None:
    figures = co.figures.setdefault(task, [])
    if task in ("import12k", "import100k"):
        src = CSV_12K if task == "import12k" else big
        assert src is not None
        data = co.data if task == "import12k" else workdir / f"{co.name}-100k"
        shutil.rmtree(data, ignore_errors=True)
        fig = run_cli(co, "import", str(src), data=data)
        fig["count"] = library_count(data)
        figures.append(fig)
        if task == "import100k":
            first = run_cli(co, "stats", data=data, env={"READER_DAILY_MAINTENANCE": ""})
            co.figures.setdefault("stats100k", []).append({**first, "count": fig["count"]})
            _wait_daily(data)
            co.figures.setdefault("stats100k-again", []).append(run_cli(co, "stats", data=data))
            co.figures.setdefault("folder100k-MB", []).append(
                {"wall": 0.0, "cpu": 0.0, "MB": _size(data) / 1e6, "db_MB": (data / "library.sqlite3").stat().st_size / 1e6})
            shutil.rmtree(data, ignore_errors=True)
        return
    if task == "stats":
        figures.append(run_cli(co, "stats", env={"READER_DAILY_MAINTENANCE": ""}))
        _wait_daily(co.data)
        co.figures.setdefault("stats-again", []).append(run_cli(co, "stats"))
        return
    out = run_child(co, task, co.data, CORPUS)
    if task == "gui":  # two rows: the start, and the J/K steps
        co.figures.setdefault("jk", []).append(out.pop("jk"))
        co.figures.pop("gui", None)
        co.figures.setdefault("start", []).append(out)
        return
    figures.append(out)


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def report(work: Checkout, ref: Checkout, ref_name: str) -> None:
    print(f"\n{'task':<16} {'work CPU s':>10} {'ref CPU s':>10} {'CPU ratio':>9} {'work wall':>10} "
          f"{'ref wall':>10} {'wall ratio':>10}  papers / extra   (ref = {ref_name}; medians)")
    for task in work.figures:
        a, b = work.figures[task], ref.figures.get(task, [])
        if not b:
            continue
        ac, bc = statistics.median(f["cpu"] for f in a), statistics.median(f["cpu"] for f in b)
        aw, bw = statistics.median(f["wall"] for f in a), statistics.median(f["wall"] for f in b)
        extra = {k: (round(a[-1][k], 1), round(b[-1][k], 1)) for k in a[-1] if k not in ("wall", "cpu")}
        ratio_c = f"{ac / bc:.2f}x" if bc else "-"
        ratio_w = f"{aw / bw:.2f}x" if bw else "-"
        print(f"{task:<16} {ac:>10.2f} {bc:>10.2f} {ratio_c:>9} {aw:>10.2f} {bw:>10.2f} {ratio_w:>10}  "
              f"{' '.join(f'{k}={v[0]}/{v[1]}' for k, v in extra.items())}")
    print(f"load at the end: {load()}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ref")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--with-100k", action="store_true")
    ap.add_argument("--tasks", default=",".join(DEFAULT_TASKS))
    args = ap.parse_args()
    tasks = [t for t in args.tasks.split(",") if t]
    if args.with_100k and "import100k" not in tasks:
        tasks.insert(1, "import100k")
    unknown = set(tasks) - set(TASKS)
    if unknown:
        ap.error(f"unknown tasks {sorted(unknown)} (choose from {', '.join(TASKS)})")
    workdir = Path(os.environ.get("READER_COMPARE_DIR", "/tmp/reader-compare"))
    workdir.mkdir(parents=True, exist_ok=True)
    big = corpus_100k(workdir / "papers-100k.jsonl") if "import100k" in tasks else None
    work = Checkout("work", ROOT, workdir / "work-12k")
    ref = Checkout("ref", prepare_ref(args.ref, workdir), workdir / "ref-12k")
    print(f"load at the start: {load()}; tasks {', '.join(tasks)}; {args.rounds} round(s)", flush=True)
    for n in range(args.rounds):
        pair = (work, ref) if n % 2 == 0 else (ref, work)
        for task in tasks:
            for co in pair:
                measure(co, task, workdir, big)
                last = co.figures["start" if task == "gui" else task][-1]
                print(f"  round {n + 1} {task:<10} {co.name:<4} {last['wall']:7.2f} s wall "
                      f"{last['cpu']:7.2f} s CPU  load {load()}", flush=True)
    report(work, ref, args.ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
