"""Time Reader's start to its first painted window (median of N runs), frozen or from source.

    python packaging/measure_startup.py [--app packaging/dist/reader/reader] [--runs 5]
    python packaging/measure_startup.py --source        # `python -m reader` instead

No hook in the app is needed: Qt's `qt.widgets.painting` debug log prints a "Flushing ..."
line when a window's first frame reaches the screen, so the clock stops at that line. One
untimed run first creates the library (importing the seeds) in a temporary data dir, so the
timed runs measure a normal start; `--first-run` times that first start instead. Each
run uses QT_QPA_PLATFORM=offscreen unless --platform says otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_APP = HERE / "dist" / ("reader/reader" if sys.platform.startswith("linux") else "Reader/Reader")
SHOWN = re.compile(r"qt\.widgets\.painting: Flushing .* to QWidgetWindow")


def time_to_window(cmd: list[str], env: dict[str, str], timeout: float) -> float:
    """Seconds from spawning cmd until its first window frame is flushed."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, errors="replace")
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if SHOWN.search(line):
                return time.perf_counter() - start
            if time.perf_counter() - start > timeout:
                break
        raise RuntimeError(f"no window shown by {cmd[0]} (exit code {proc.poll()})")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=DEFAULT_APP, help="frozen executable")
    parser.add_argument("--source", action="store_true", help="time `python -m reader` instead")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--platform", default="offscreen", help="QT_QPA_PLATFORM value")
    parser.add_argument("--first-run", action="store_true",
                        help="time first starts (fresh library, seeds imported) instead")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)

    cmd = [sys.executable, "-m", "reader"] if args.source else [str(args.app)]
    if not args.source and not args.app.exists():
        parser.error(f"{args.app} not found; build it with packaging/build.py first")
    base_env = {**os.environ, "QT_QPA_PLATFORM": args.platform,
                "QT_LOGGING_RULES": "qt.widgets.painting.debug=true"}
    times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="reader-startup-") as tmp:
        if not args.first_run:
            env = {**base_env, "READER_DATA_DIR": str(Path(tmp) / "lib")}
            time_to_window(cmd, env, args.timeout)  # creates the library; not timed
        for i in range(args.runs):
            lib = Path(tmp) / (f"fresh{i}" if args.first_run else "lib")
            elapsed = time_to_window(cmd, {**base_env, "READER_DATA_DIR": str(lib)}, args.timeout)
            times.append(elapsed)
            print(f"run {i + 1}: {elapsed * 1000:.0f} ms", flush=True)
    kind = "first start" if args.first_run else "start"
    print(f"median {kind} to shown window: {statistics.median(times) * 1000:.0f} ms "
          f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, {args.runs} runs, "
          f"{'source' if args.source else args.app})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
