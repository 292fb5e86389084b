"""CLI start-up: wall and CPU time of short `reader` commands, beside Python's own start (prints figures).

Users run `reader star ID` or `reader list` in shell loops and the window's change bridge reacts
to each, so the fixed cost of a command (mostly imports) matters. Each command runs as a fresh
`python -m reader` process on a temporary library (the bundled sample, or --papers N corpus
papers), --runs times, the commands interleaved so load changes hit them alike; the medians are
printed beside two references measured in the same run, `python -c pass` and
`python -c "import sqlite3"`, and as ratios to them. `star` alternates star / unstar of one
paper so every run writes (and updates the index). With several --tree, the same commands run
with each tree first on the path (e.g. the main branch's tree beside this one: before/after).
--writes N then runs N alternating `reader star` / `reader unstar` commands per tree, each tree
on its own copy of the library (the index segments a tree's writes leave are its own), the
trees and `python -c pass` interleaved: a script's loop of writes, with the per-command medians,
means (the merges' cost is in the mean) and the index segments left.
Bytecode is cached (in a temporary PYTHONPYCACHEPREFIX, as an installed Reader has its .pyc
files) unless --no-bytecode-cache, which compiles every module in every run.

    python benchmarks/bench_cli_start.py [--runs 5] [--papers 0] [--tree DIR ...] [--importtime]
                                         [--no-bytecode-cache] [--writes N]
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
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process; CPU is its user + system time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # cwd: the library's folder, never a source tree (`python -m` puts the cwd first on the path)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=env["READER_DATA_DIR"])
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


_PYCACHE: Path | None = None  # where the children keep their bytecode (None: compile every module every run)


def _env(tree: Path | None, data_dir: Path) -> dict[str, str]:
    env = dict(os.environ, READER_DATA_DIR=str(data_dir))
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    if _PYCACHE is not None:  # as an installed Reader runs: from cached bytecode, the source tree left clean
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(_PYCACHE / (tree.as_posix().strip("/").replace("/", "_") if tree else "python"))
    return env


def _corpus_file(n: int, folder: Path) -> Path:
    """The first n corpus papers as a JSON Lines file Reader imports."""
    out = folder / "papers.jsonl"
    with CORPUS.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i >= n:
                break
            r = json.loads(line)
            dst.write(json.dumps({"title": r.get("title", ""), "abstract": r["abstract"],
                                  "authors": r.get("authors", []), "venue": r.get("venue", ""),
                                  "year": r.get("year")}, ensure_ascii=False) + "\n")
    return out


def _library(folder: Path, papers: int) -> tuple[Path, str]:
    """A library with the bundled sample (or n corpus papers) and one paper id to star."""
    lib = folder / "lib"
    env = _env(ROOT, lib)
    lib.mkdir()
    if papers and CORPUS.exists():
        subprocess.run([sys.executable, "-m", "reader", "import", str(_corpus_file(papers, folder))],
                       env=env, check=True, capture_output=True, cwd=lib)
    else:
        if papers:
            print(f"(no corpus at {CORPUS}: the bundled sample instead)")
        subprocess.run([sys.executable, "-m", "reader", "stats"], env=env, check=True, capture_output=True, cwd=lib)
    listed = subprocess.run([sys.executable, "-m", "reader", "list", "--json"], env=env, check=True, cwd=lib,
                            capture_output=True, text=True).stdout
    return lib, json.loads(listed)[0]["id"]


def _commands(pid: str) -> dict[str, list[list[str]]]:
    """Each measured command's argument lists, taken in turn run after run."""
    return {
        "--help": [["--help"]],
        "star|unstar": [["star", pid], ["unstar", pid]],
        "list": [["list"]],
        "search --limit 5": [["search", "diffusion", "--limit", "5"]],
        "stats": [["stats"]],
    }


def _importtime(tree: Path, lib: Path, args: list[str], top: int = 12) -> None:
    """The modules that cost most under `python -X importtime` (cumulative, microseconds)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "reader", *args], env=_env(tree, lib),
                          capture_output=True, text=True, cwd=lib)
    rows = []
    for line in proc.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    print(f"  -X importtime {' '.join(args)}: top modules by cumulative time")
    for micros, name in sorted(rows, reverse=True)[:top]:
        print(f"    {micros / 1000:8.1f} ms {name}")


def _segments(lib: Path) -> int:
    return len(list((lib / "index").glob("*.seg")))


def _writes(trees: list[Path], lib: Path, pid: str, n: int, tmp: Path) -> None:
    """n alternating star/unstar commands per tree on its own library copy (see the docstring)."""
    py = sys.executable
    libs = {}
    for k, tree in enumerate(trees):
        libs[tree] = tmp / f"writes-{k}"
        shutil.copytree(lib, libs[tree])
    ref_env = _env(None, lib)
    times: dict[str, list[tuple[float, float]]] = {"python -c pass": []}
    most = dict.fromkeys(trees, 0)
    for i in range(n):
        times["python -c pass"].append(_timed([py, "-c", "pass"], ref_env))
        for tree in trees:
            cmd = [py, "-m", "reader", "star" if i % 2 == 0 else "unstar", pid]
            times.setdefault(str(tree), []).append(_timed(cmd, _env(tree, libs[tree])))
            most[tree] = max(most[tree], _segments(libs[tree]))
    ref_wall = statistics.median(w for w, _ in times["python -c pass"])
    ref_cpu = statistics.median(c for _, c in times["python -c pass"])
    print(f"{n} alternating star/unstar commands per tree, interleaved; load average {os.getloadavg()[0]:.1f}")
    print(f"{'':<36} {'wall ms':>8} {'CPU ms':>8} {'mean wall':>10} {'mean CPU':>9} {'wall/pass':>10} "
          f"{'CPU/pass':>9} {'segments max/end':>17}")
    for name, samples in times.items():
        wall, cpu = statistics.median(w for w, _ in samples), statistics.median(c for _, c in samples)
        mwall, mcpu = statistics.mean(w for w, _ in samples), statistics.mean(c for _, c in samples)
        tree = Path(name) if name != "python -c pass" else None
        segs = f"{most[tree]}/{_segments(libs[tree])}" if tree is not None else ""
        label = f"[{tree.name}] star|unstar" if tree is not None else name
        print(f"{label:<36} {wall * 1000:8.0f} {cpu * 1000:8.0f} {mwall * 1000:10.0f} {mcpu * 1000:9.0f} "
              f"{wall / ref_wall:9.1f}x {cpu / max(ref_cpu, 1e-3):8.1f}x {segs:>17}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--papers", type=int, default=0, help="corpus papers in the library (0: the bundled sample)")
    ap.add_argument("--tree", action="append", type=Path, help="a source tree to measure (default: this one)")
    ap.add_argument("--importtime", action="store_true", help="also show the costliest imports per command")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="compile every module in every run (as under PYTHONDONTWRITEBYTECODE=1)")
    ap.add_argument("--writes", type=int, default=0,
                    help="only run this many alternating star/unstar commands per tree (a script's loop)")
    opts = ap.parse_args()
    global _PYCACHE
    trees = [t.resolve() for t in opts.tree] if opts.tree else [ROOT]
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        _PYCACHE = None if opts.no_bytecode_cache else Path(tmp) / "pycache"
        lib, pid = _library(Path(tmp), opts.papers)
        if opts.writes:
            for tree in trees:  # one warm-up each (the .pyc files), on a copy left aside
                shutil.copytree(lib, Path(tmp) / "warm", dirs_exist_ok=True)
                _timed([py, "-m", "reader", "star", pid], _env(tree, Path(tmp) / "warm"))
            _writes(trees, lib, pid, opts.writes, Path(tmp))
            return
        jobs: dict[str, tuple[list[list[str]], dict[str, str]]] = {
            "python -c pass": ([[py, "-c", "pass"]], _env(None, lib)),
            "python -c 'import sqlite3'": ([[py, "-c", "import sqlite3"]], _env(None, lib)),
        }
        for tree in trees:
            label = "" if len(trees) == 1 else f"[{tree.name}] "
            for name, argvs in _commands(pid).items():
                jobs[label + name] = ([[py, "-m", "reader", *a] for a in argvs], _env(tree, lib))
        for cmds, env in jobs.values():  # one warm-up each: the page cache, .pyc files
            _timed(cmds[0], env)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in jobs}
        for run in range(opts.runs):
            for name, (cmds, env) in jobs.items():
                times[name].append(_timed(cmds[run % len(cmds)], env))
        print(f"{opts.runs} runs each, medians; library: {opts.papers or 'the bundled sample'} papers; "
              f"bytecode {'compiled every run' if _PYCACHE is None else 'cached'}; "
              f"load average {os.getloadavg()[0]:.1f}")
        ref_wall = statistics.median(w for w, _ in times["python -c pass"])
        ref_cpu = statistics.median(c for _, c in times["python -c pass"])
        sq_wall = statistics.median(w for w, _ in times["python -c 'import sqlite3'"])
        print(f"{'command':<36} {'wall ms':>8} {'CPU ms':>8} {'wall/pass':>10} {'wall/sqlite3':>13} {'CPU/pass':>9}")
        for name, samples in times.items():
            wall = statistics.median(w for w, _ in samples)
            cpu = statistics.median(c for _, c in samples)
            print(f"{name:<36} {wall * 1000:8.0f} {cpu * 1000:8.0f} {wall / ref_wall:9.1f}x {wall / sq_wall:12.1f}x "
                  f"{cpu / max(ref_cpu, 1e-3):8.1f}x")
        if opts.importtime:
            for tree in trees:
                print(f"tree {tree}:")
                _importtime(tree, lib, ["--help"])
                _importtime(tree, lib, ["star", pid])


if __name__ == "__main__":
    main()
