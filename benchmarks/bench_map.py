"""The map's quality, speed and memory, against same-run references (scikit-learn, umap-learn).

Usage: python benchmarks/bench_map.py [--parts pools,scale,frames,gui-open,gui-layout] [--scale 3300,50090] [--lib DIR]

- pools: every keyword-labelled pool (ICLR 2018 from raw_paperlists/iclr2018.json, then each
  venue of papers.jsonl with >= 300 keyworded papers), imported abstract-only (title-less, as
  bench_quality.py does). Reader's map (reader.map.mapfile.build) beside t-SNE (scikit-learn)
  and UMAP (umap-learn, n_neighbors 15, cosine) on the same vectors (the map's reduced TF-IDF),
  and the full-dimension TF-IDF cosine as the ceiling: 2-D P@10 (the share of each paper's 10
  nearest on the map that share a keyword with it) and trustworthiness (scikit-learn, k=10,
  cosine in the vectors' space). Targets: P@10 >= UMAP's on the mean over pools,
  trustworthiness >= UMAP's - 0.01.
  Labels: each label word in >= 40% of its cluster's abstracts and, among the other papers,
  in at most a quarter of that share (shares, not counts: the rest of the pool is bigger).
- scale: in a subprocess per size (its own peak RSS): import the first N abstracts of
  papers.jsonl title-less, lay them out (time, CPU, peak RSS added by the layout, sampled), load the stored
  map and show it whole (the open, cached), delete 10 papers and import them again, bringing the
  map up to date after each (time, how far the others moved: must be 0).
- gui-open, gui-layout: the main window (offscreen) over the largest --scale library of --lib:
  View → Map from the stored layout, timed from the key to the picture painted, p50/p95 of
  --opens opens; or a full re-layout from the window; peak RSS added by each.
- frames: the map canvas offscreen at 1280x760 over the largest --scale library of --lib (laid
  out by the scale part): the open from the stored map, and pan/zoom frame times (p50, p95).
scikit-learn and umap-learn are references only (`pip install .[bench]`); Reader uses numpy.
Not a test: prints figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as reader.map does (a busy 2-core machine)

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPORA = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus"
PAPERS = CORPORA / "papers.jsonl"
ICLR = CORPORA / "raw_paperlists" / "iclr2018.json"


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _vm_rss_mb() -> float:
    """The process's resident memory now (Linux), else its peak so far."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss_mb()


class RssPeak:
    """The highest RSS over the RSS at entry, sampled every 20 ms on a thread while inside."""

    def __enter__(self) -> RssPeak:
        self.base = self.high = _vm_rss_mb()
        self._on = True
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while self._on:
            self.high = max(self.high, _vm_rss_mb())
            time.sleep(0.02)

    def __exit__(self, *exc: object) -> None:
        self._on = False
        self._thread.join()
        self.high = max(self.high, _vm_rss_mb())

    @property
    def added(self) -> float:
        return self.high - self.base


def load_records(limit: int | None = None) -> list[dict]:
    out = []
    with PAPERS.open(encoding="utf-8") as f:
        for line in f:
            out.append(json.loads(line))
            if limit and len(out) >= limit:
                break
    return out


def keyword_pools(records: list[dict]) -> list[tuple[str, list[dict]]]:
    """ICLR 2018 (raw OpenReview list), then each venue with >= 300 keyworded papers."""
    pools = []
    iclr = []
    for p in json.loads(ICLR.read_text("utf-8")):
        kws = {k.strip().lower() for k in (p.get("keywords") or "").split(";") if k.strip()}
        if kws and (p.get("abstract") or "").strip():
            iclr.append({"abstract": p["abstract"], "kws": kws})
    pools.append(("ICLR 2018", iclr))
    by_venue: dict[str, list[dict]] = {}
    for r in records:
        kws = {k.strip().lower() for k in r.get("keywords") or () if k.strip()}
        if kws and (r.get("abstract") or "").strip():
            by_venue.setdefault(r["venue"], []).append({"abstract": r["abstract"], "kws": kws})
    pools += [(f"{v} (all years)", ps) for v, ps in sorted(by_venue.items()) if len(ps) >= 300]
    return pools


def import_titleless(folder: Path, records: list[dict]):
    from reader.library import Library

    lib = Library.open(folder, seed_if_empty=False)
    if lib.counts().total == 0:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "papers.jsonl"
            with src.open("w", encoding="utf-8") as f:
                for r in records:
                    f.write(json.dumps({"abstract": r["abstract"]}) + "\n")
            lib.import_files([src], index=False)
    return lib


def p_at_10(points: np.ndarray, kws: list[set[str]], *, cosine: bool = False) -> float:
    """Share of each paper's 10 nearest (Euclidean, or cosine of rows) sharing a keyword."""
    hits = []
    for start in range(0, len(points), 1024):
        q = points[start:start + 1024]
        if cosine:
            d = -(q @ points.T)
        else:
            d = (q ** 2).sum(1)[:, None] - 2 * q @ points.T + (points ** 2).sum(1)[None, :]
        d[np.arange(len(q)), np.arange(start, start + len(q))] = np.inf
        top = np.argpartition(d, 10, axis=1)[:, :10]
        for i, row in enumerate(top):
            mine = kws[start + i]
            hits.append(sum(bool(mine & kws[j]) for j in row) / 10)
    return float(np.mean(hits))


def label_check(data, texts: dict[str, str]) -> tuple[int, int, int, int]:
    """(label words passing, label words, labelled clusters, clusters) over both levels."""
    from reader.map.features import tokens

    words_of = [set(t) for t in tokens([texts[i] for i in data.ids])]
    passing = total = labelled = 0
    for c in data.clusters:
        numbers = data.coarse if c.level == 0 else data.fine
        inside = numbers == c.id
        labelled += bool(c.words)
        for w in c.words:
            has = np.array([w in ws for ws in words_of])
            share_in = has[inside].mean() if inside.any() else 0.0
            share_out = has[~inside].mean() if (~inside).any() else 0.0
            total += 1
            passing += share_in >= 0.4 and share_out <= share_in / 4
    return passing, total, labelled, len(data.clusters)


def pool_figures(name: str, papers: list[dict], folder: Path, refs: bool = True) -> dict[str, float]:
    from sklearn.manifold import TSNE, trustworthiness

    from reader.map import mapfile
    from reader.map.features import tfidf, tokens
    from reader.models import paper_id_for
    from reader.store import map_rows

    lib = import_titleless(folder, papers)
    conn = lib.read_connection()
    kws_by: dict[str, set[str]] = {}
    for p in papers:
        kws_by.setdefault(paper_id_for(p["abstract"]), set()).update(p["kws"])
    t, cpu = time.perf_counter(), time.process_time()
    data = mapfile.build(conn)
    t_map, cpu_map = time.perf_counter() - t, time.process_time() - cpu
    keep = [i for i, pid in enumerate(data.ids) if pid in kws_by]
    kws = [kws_by[data.ids[i]] for i in keep]
    vectors = data.vectors.astype(np.float32)[keep]
    texts = dict(map_rows.texts(conn, data.ids))
    _, x = tfidf(tokens([texts[data.ids[i]] for i in keep]))
    dense = np.zeros((x.rows, x.cols), dtype=np.float32)
    dense[np.repeat(np.arange(x.rows), np.diff(x.indptr)), x.indices] = x.data
    out: dict[str, float] = {"n": len(keep), "ceiling": p_at_10(dense, kws, cosine=True),
                             "svd": p_at_10(vectors, kws, cosine=True)}
    del dense
    maps = {"reader": data.xy[keep]}
    times = {"reader": t_map}
    if refs:
        import umap  # the dev-only reference

        t = time.perf_counter()
        maps["umap"] = umap.UMAP(n_neighbors=15, metric="cosine", random_state=0).fit_transform(vectors)
        times["umap"] = time.perf_counter() - t
        t = time.perf_counter()
        maps["tsne"] = TSNE(metric="cosine", init="pca", random_state=0).fit_transform(vectors)
        times["tsne"] = time.perf_counter() - t
    for key, xy in maps.items():
        out[f"{key} p10"] = p_at_10(np.asarray(xy, dtype=np.float64), kws)
        out[f"{key} trust"] = float(trustworthiness(vectors, xy, n_neighbors=10, metric="cosine"))
        out[f"{key} s"] = times[key]
    passing, total, labelled, clusters = label_check(data, texts)
    out.update({"label ok": passing, "label words": total, "labelled": labelled, "clusters": clusters})
    lib.close()
    print(f"  {name:<22} {out['n']:>5}  ceiling {out['ceiling']:.3f}  svd {out['svd']:.3f}  "
          + "  ".join(f"{k} {out[k + ' p10']:.3f}/{out[k + ' trust']:.3f} ({out[k + ' s']:.1f} s)"
                      for k in maps)
          + f"  reader build {cpu_map:.1f} s CPU  labels {passing}/{total} words ok, {labelled}/{clusters} clusters"
          + f" labelled (load {os.getloadavg()[0]:.1f})", flush=True)
    return out


def pools_part(tmp: Path, refs: bool = True, only: str = "") -> None:
    pools = [p for p in keyword_pools(load_records()) if only.lower() in p[0].lower()]
    print(f"[pools] {len(pools)} keyword pools, abstract-only; P@10 on the map / trustworthiness (k=10)")
    results = {name: pool_figures(name, papers, tmp / re.sub(r"\W+", "-", name).lower(), refs)
               for name, papers in pools}
    mean = {k: statistics.mean(r[k] for r in results.values())
            for k in next(iter(results.values())) if isinstance(next(iter(results.values()))[k], float)}
    keys = [k for k in ("reader", "umap", "tsne") if f"{k} p10" in mean]
    print(f"  {'mean':<22}        ceiling {mean['ceiling']:.3f}  svd {mean['svd']:.3f}  "
          + "  ".join(f"{k} {mean[k + ' p10']:.3f}/{mean[k + ' trust']:.3f}" for k in keys))
    words = sum(r["label words"] for r in results.values())
    good = sum(r["label ok"] for r in results.values())
    if refs:
        ok_p = mean["reader p10"] >= mean["umap p10"]
        ok_t = mean["reader trust"] >= mean["umap trust"] - 0.01
        print(f"  targets: P@10 >= UMAP's: {'yes' if ok_p else 'NO'}; trustworthiness >= UMAP's - 0.01: "
              f"{'yes' if ok_t else 'NO'}")
    print(f"  label words passing {good}/{words}")


def scale_child(n: int, lib_dir: Path, reuse: bool) -> None:
    """One size, in its own process: import, layout (or the stored one with --reuse), open;
    then delete 10 papers and import them again, bringing the map up to date after each."""
    from reader.map import mapfile, view
    from reader.models import paper_id_for
    from reader.store import map_rows

    records = load_records(n)
    lib = import_titleless(lib_dir, records)
    conn = lib.read_connection()
    total = lib.counts().total
    map_rows.texts(conn, map_rows.all_ids(conn)[:1])
    with RssPeak() as rss:  # sampled: ru_maxrss may still hold the import's or the open's peak
        t, cpu = time.perf_counter(), time.process_time()
        data = mapfile.load(mapfile.path_for(lib_dir)) if reuse else None
        laid_out = data is None
        if data is None:
            data = mapfile.current(lib, lib_dir, full=True)
        t_layout, cpu_layout = time.perf_counter() - t, time.process_time() - cpu
    peak = rss.added
    t = time.perf_counter()
    loaded = mapfile.load(mapfile.path_for(lib_dir))
    assert loaded is not None
    shown = view.subset(loaded)
    t_open = time.perf_counter() - t
    ten = [r for r in records[-40:] if paper_id_for(r["abstract"]) in set(data.ids)][-10:]
    lib.delete_papers([paper_id_for(r["abstract"]) for r in ten])
    t = time.perf_counter()
    fewer = mapfile.current(lib, lib_dir, known=data)
    t_drop = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "more.jsonl"
        src.write_text("".join(json.dumps({"abstract": r["abstract"]}) + "\n" for r in ten), "utf-8")
        lib.import_files([src], index=False)
    t = time.perf_counter()
    after = mapfile.current(lib, lib_dir, known=fewer)
    t_add = time.perf_counter() - t
    pos = after.position()
    back = {paper_id_for(r["abstract"]) for r in ten}
    moved = max((float(np.abs(after.xy[pos[p]] - data.xy[i]).max()) for i, p in enumerate(data.ids)
                 if p not in back), default=0.0)
    size_mb = mapfile.path_for(lib_dir).stat().st_size / 1e6
    layout = (f"layout {t_layout:5.1f} s ({cpu_layout:.1f} s CPU), peak RSS added {peak:5.0f} MB" if laid_out
              else "layout: the stored one (--reuse)")
    print(f"  {total:>6,} papers: {layout}; open (cached) {t_open * 1000:5.0f} ms ({len(shown.ids):,} shown); "
          f"-10 papers {t_drop * 1000:5.0f} ms, +10 {t_add * 1000:5.0f} ms ({len(after.ids) - len(fewer.ids)} "
          f"placed), the others moved at most {moved:g}; map.npz {size_mb:.1f} MB", flush=True)
    lib.close()


def scale_part(sizes: list[int], base: Path | None, reuse: bool = False) -> None:
    print(f"[scale] each size in its own process (load average {os.getloadavg()[0]:.1f} at start)")
    for n in sizes:
        folder = (base or Path(tempfile.mkdtemp())) / f"lib{n}"
        subprocess.run([sys.executable, __file__, "--child", str(n), "--lib", str(folder)]
                       + (["--reuse"] if reuse else []), check=True)


def frames_part(lib_dir: Path) -> None:
    """Pan/zoom frame times of the map canvas (offscreen, 1280x800) over a laid-out library."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from reader.library import Library
    from reader.map import mapfile, view
    from reader.map import marks as map_marks
    from reader.ui.map.page import MapCanvas
    from reader.ui.map.render import MapPicture

    app = QApplication.instance() or QApplication([])
    lib = Library.open(lib_dir, seed_if_empty=False)
    t = time.perf_counter()
    data = mapfile.load(mapfile.path_for(lib_dir))
    assert data is not None, "lay the library out first (--parts scale)"
    picture = MapPicture(view.subset(data), map_marks.current(lib.read_connection(), lib_dir))
    t_open = time.perf_counter() - t
    canvas = MapCanvas()
    canvas.resize(1280, 760)
    canvas.show()
    canvas.set_picture(picture, refit=True)
    times: list[float] = []
    canvas.frameDrawn.connect(times.append)
    for step in range(120):
        if step % 3 == 0:
            canvas.zoom(1.15 if step < 60 else 1 / 1.15)
        else:
            canvas.pan(7, -5)
        canvas.repaint()
        app.processEvents()
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    print(f"[frames] {len(picture):,} points, 1280x760: open (load the map, marks, picture) {t_open * 1000:.0f} ms; "
          f"pan/zoom frame p50 {times[len(times) // 2]:.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms")
    lib.close()




def gui_child(lib_dir: Path, mode: str, opens: int) -> None:
    """The window's map over a laid-out library, in its own process: `open` = View → Map from
    the stored layout (no map in memory: as after a restart) `opens` times, each timed from the
    key to the picture painted; `layout` = a full re-layout from the window. RSS added is the
    highest RSS sampled meanwhile over the window's RSS before the first open."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from reader.library import Library
    from reader.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    lib = Library.open(lib_dir, seed_if_empty=False)
    window = MainWindow(lib, theme="light")
    window.resize(1280, 800)
    window.show()

    def wait(cond, timeout: float = 600.0) -> None:
        end = time.perf_counter() + timeout
        while not cond():
            app.processEvents()
            if time.perf_counter() > end:
                raise TimeoutError("the window did not get there")
            time.sleep(0.002)

    wait(lambda: window.index_ready and not window.runner.busy and window.model.rowCount() > 0)
    settled, last, end = time.perf_counter(), _vm_rss_mb(), time.perf_counter() + 30
    while time.perf_counter() - settled < 3 and time.perf_counter() < end:  # the window's own warm-up done
        app.processEvents()
        time.sleep(0.05)
        now = _vm_rss_mb()
        if now > last + 1:
            settled, last = time.perf_counter(), now
    controller = window.map
    times: list[float] = []
    cpu: list[float] = []
    with RssPeak() as rss:  # the window's RSS (ru_maxrss may hold the start's peak)
        for _ in range(opens if mode == "open" else 1):
            controller.data = None  # nothing in memory: the stored map is read, as after a restart
            controller.picture = None
            before = controller.generation
            t, c = time.perf_counter(), time.process_time()
            if mode == "open":
                controller.open()
            else:
                controller.stack.setCurrentWidget(controller.page)
                controller.reload(full=True)
            wait(lambda b=before: controller.generation > b)
            controller.canvas.repaint()
            QCoreApplication.processEvents()
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            if os.environ.get("BENCH_MAP_TRACE"):
                print(f"  open {len(times)}: {times[-1] * 1000:.0f} ms, RSS {_vm_rss_mb():.0f} MB, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
            controller.close()
            for _ in range(5):
                app.processEvents()
    added = rss.added
    ms = sorted(x * 1000 for x in times)
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    what = f"{len(ms)} opens from the stored map" if mode == "open" else "a full layout"
    print(f"[gui] {len(controller.picture or ()):,} papers, {what}: p50 {statistics.median(ms):.0f} ms, "
          f"p95 {p95:.0f} ms (each: {', '.join(f'{x:.0f}' for x in ms)}; CPU p50 "
          f"{statistics.median(cpu) * 1000:.0f} ms); RSS added (peak) {added:.0f} MB; "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    window.close()
    window.runner.shutdown()
    lib.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="pools,scale")
    ap.add_argument("--scale", default="3300,50090", help="library sizes of the scale part")
    ap.add_argument("--lib", type=Path, help="folder for the scale part's libraries (kept, reused)")
    ap.add_argument("--pool", default="", help="pools: only those whose name contains this")
    ap.add_argument("--no-refs", action="store_true", help="pools: Reader's map only (no UMAP, t-SNE)")
    ap.add_argument("--reuse", action="store_true", help="scale: keep a library's stored map (no layout)")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--gui-child", choices=("open", "layout"), help=argparse.SUPPRESS)
    ap.add_argument("--opens", type=int, default=7, help="gui: how many opens to time")
    a = ap.parse_args()
    if not PAPERS.exists():
        sys.exit(f"corpus not found: {PAPERS}")
    if a.child:
        scale_child(a.child, a.lib, a.reuse)
        return
    sizes = [int(s) for s in a.scale.split(",")]
    if a.gui_child:
        gui_child(a.lib / f"lib{sizes[-1]}", a.gui_child, a.opens)
        return
    parts = set(a.parts.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        if "pools" in parts:
            pools_part(Path(tmp), not a.no_refs, a.pool)
        if "scale" in parts:
            scale_part([int(s) for s in a.scale.split(",")], a.lib, a.reuse)
        if "frames" in parts:
            frames_part((a.lib or Path(tmp)) / f"lib{sizes[-1]}")
        for mode in ("open", "layout"):
            if f"gui-{mode}" in parts:  # each in its own process: its own peak RSS
                subprocess.run([sys.executable, __file__, "--gui-child", mode, "--lib", str(a.lib or Path(tmp)),
                                "--scale", a.scale, "--opens", str(a.opens)], check=True)


if __name__ == "__main__":
    main()
