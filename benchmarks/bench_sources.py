"""Opening a conference of 6,000 papers from a local replay server (prints figures).

The venue is built from ../shared/corpora/ml_conference_corpus/papers.jsonl (6,000 real papers)
in a source's own format (tests/sources/venue_fixtures.py): OpenReview API v2 `/notes` pages of
1,000 (`--format openreview`, as ICLR 2025) or PMLR's one per-volume bibliography.bib
(`--format pmlr`, as ICML 2025). A ReplayServer on 127.0.0.1 serves it, `READER_SOURCE_<NAME>_URL`
points Reader at it, and each step is a fresh `python -m reader` process on a new library:

1. `reader venue add NAME YEAR`: every page fetched into the cache, parsed, stored and indexed;
2. `reader search QUERY`: the library is usable and searchable (the query finds a paper);
   1 + 2 = time to a usable, searchable library (target <= 60 s);
3. the server stopped, `reader venue add NAME YEAR` again: served from the cache, 0 new
   (target <= 5 s);
and, in the same run, a reference: `reader import` of the same 6,000 papers as a JSONL file.

Politeness delays are excluded: the children run with READER_SOURCE_PACE_SCALE=0 (the client's
documented pace multiplier); what the polite pace would add is printed separately (requests x
the source's pace). Wall and CPU seconds (user + system of the child and its workers), peak RSS
of the child, and the load average are printed.

    python benchmarks/bench_sources.py [--format openreview|pmlr] [--papers 6000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reader.sources import registry  # noqa: E402
from tests.sources.replay import ReplayServer  # noqa: E402
from tests.sources.venue_fixtures import PAPERS, corpus_papers, openreview_pages, pmlr_bibliography  # noqa: E402


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """(wall s, CPU s, peak RSS MiB, stdout) of one child process (and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, cwd=env["READER_DATA_DIR"])
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss // 1024, proc.stdout.strip()


def _papers(n: int) -> list[dict]:
    out, seen = [], set()
    for paper in corpus_papers():
        key = paper["abstract"].strip().casefold()
        if key in seen or len(paper["title"]) > 300:
            continue
        seen.add(key)
        out.append(paper)
        if len(out) == n:
            break
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--format", choices=("openreview", "pmlr"), default="openreview")
    ap.add_argument("--papers", type=int, default=6000)
    args = ap.parse_args()
    if not PAPERS.exists():
        raise SystemExit(f"corpus not found: {PAPERS}")
    papers = _papers(args.papers)
    server = ReplayServer()
    if args.format == "openreview":
        name, year, source = "iclr", 2025, "openreview"
        vid = "ICLR.cc/2025/Conference"
        for offset, body in openreview_pages(papers, vid, "ICLR 2025").items():
            server.add(f"/notes?content.venueid={vid}&offset={offset}&limit=1000", body)
    else:
        name, year, source = "icml", 2025, "pmlr"
        server.add("/v267/assets/bib/bibliography.bib",
                   pmlr_bibliography(papers, 267, "Proceedings of the 42nd International Conference on Machine Learning", 2025))
    query = " ".join(papers[len(papers) // 2]["title"].split()[:4])
    server.start()
    tmp = Path(tempfile.mkdtemp(prefix="bench-sources-"))
    env = dict(os.environ, READER_SOURCE_PACE_SCALE="0", READER_DATA_DIR=str(tmp / "lib"),
               **{registry.get(source).env_var: server.url})
    (tmp / "lib").mkdir()
    py = [sys.executable, "-m", "reader"]
    print(f"{len(papers):,} papers as {args.format} ({name} {year}); load {open('/proc/loadavg').read().split()[:3]}")
    add = _run([*py, "venue", "add", name, str(year)], env)
    requests = len(server.requests)
    search = _run([*py, "search", query, "--limit", "3", "--json"], env)
    found = json.loads(search[3]) if search[3].startswith("[") else search[3]
    server.stop()
    again = _run([*py, "venue", "add", name, str(year)], env)
    ref_dir = tmp / "ref"
    ref_dir.mkdir()
    jsonl = tmp / "papers.jsonl"
    jsonl.write_text("".join(json.dumps(p) + "\n" for p in papers), encoding="utf-8")
    ref = _run([*py, "import", str(jsonl)], dict(env, READER_DATA_DIR=str(ref_dir)))
    pace = registry.get(source).pace
    print(f"  venue add (fetch+parse+store+index): {add[0]:6.1f} s wall {add[1]:6.1f} s CPU  peak RSS {add[2]} MiB"
          f"  [{requests} requests]  {add[3]}")
    print(f"  search {query!r}: {search[0]:6.1f} s wall {search[1]:6.1f} s CPU  "
          f"-> {len(found) if isinstance(found, list) else found} hits")
    print(f"  usable, searchable library:          {add[0] + search[0]:6.1f} s wall {add[1] + search[1]:6.1f} s CPU"
          f"  (target <= 60 s)")
    print(f"  politeness delays excluded: {requests} requests x {pace:g} s pace = {requests * pace:.0f} s more at"
          " the default pace")
    print(f"  re-add offline (server stopped):     {again[0]:6.1f} s wall {again[1]:6.1f} s CPU  peak RSS {again[2]} MiB"
          f"  (target <= 5 s)  {again[3]}")
    print(f"  reference, reader import of the same papers as JSONL: {ref[0]:6.1f} s wall {ref[1]:6.1f} s CPU  "
          f"peak RSS {ref[2]} MiB")
    print(f"  load after: {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
