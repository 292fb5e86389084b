"""`reader map`: the library's map headless, as JSON (places and labelled clusters) or a PNG.

The PNG is painted by the window's own map painter (Qt). The core never imports the GUI
package, so the painter is handed in: `reader.__main__` installs it with `set_png_renderer`
before running the CLI; without it, --png says so in one line."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..errors import ReaderError
from ..output_files import write_text
from ..plural import count_noun

# (map view, the marks (Library.map_marks), output file, width, height, dark) -> None; numpy loads only when
# the command runs (the CLI's start stays quick).
PngRenderer = Callable[[Any, Any, Path, int, int, bool], None]
_png_renderer: PngRenderer | None = None
_SIZE = re.compile(r"^(\d{2,5})x(\d{2,5})$")


def set_png_renderer(renderer: PngRenderer | None) -> None:
    global _png_renderer
    _png_renderer = renderer


def _size(text: str) -> tuple[int, int]:
    m = _SIZE.match(text.strip().lower())
    if not m or not (64 <= int(m[1]) <= 8000 and 64 <= int(m[2]) <= 8000):
        raise argparse.ArgumentTypeError(f"not a size like 1280x800 (64 to 8000 pixels a side): {text!r}")
    return int(m[1]), int(m[2])


def add_parsers(sub: Any) -> None:
    s = sub.add_parser("map", help="the map of the library (or of a search, a tag, the starred papers)")
    which = s.add_mutually_exclusive_group()
    which.add_argument("--query", metavar="Q", help="the papers a search finds (placed as on the whole map)")
    which.add_argument("--tag", metavar="T", help="the papers with this tag")
    which.add_argument("--starred", action="store_true", help="the starred papers")
    s.add_argument("--json", metavar="FILE", help="write papers (id, x, y, cluster) and clusters ('-': stdout)")
    s.add_argument("--png", metavar="FILE", help="write the picture")
    s.add_argument("--size", type=_size, default=(1280, 800), metavar="WxH", help="the PNG's size (default 1280x800)")
    s.add_argument("--dark", action="store_true", help="paint the PNG on a dark background")
    s.add_argument("--relayout", action="store_true", help="lay the whole library out anew")
    s.add_argument("--refit", action="store_true",
                   help="lay out only the chosen papers (from their library places), regions named anew")


def _ids(args: argparse.Namespace, lib: Any) -> list[str] | None:
    from ..library import View

    if args.query:
        lib.sync_index()
        found = lib.listing(args.query, sort="added", descending=False, limit=None)
        if found.results is not None and found.results.problem:
            raise ReaderError(f"query problem: {found.results.problem}")
        return list(found.ids)
    if args.tag:
        return lib.paper_ids(View("tag", args.tag))
    if args.starred:
        return lib.paper_ids(View("starred"))
    return None


def _progress() -> Callable[[int, int, str], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, message: str) -> None:
        sys.stderr.write(f"\r{message[:60]:<60} {100 * done // max(total, 1):3d}%")
        sys.stderr.flush()

    return show


def _map(args: argparse.Namespace, lib: Any, out: TextIO) -> int:
    from ..map import mapfile, subset, view
    from ..map.features import LayoutCancelled

    if args.png and _png_renderer is None:
        raise ReaderError("map --png needs the GUI toolkit (PySide6); run it as `reader map ...`")
    try:
        data = mapfile.current(lib, lib.paths.root, full=args.relayout, progress=_progress())
    except LayoutCancelled:  # pragma: no cover - nothing cancels a CLI run
        return 1
    if sys.stderr.isatty():
        sys.stderr.write("\r" + " " * 66 + "\r")
    ids = _ids(args, lib)
    shown = (subset.refit(data, lib.read_connection(), ids) if args.refit and ids is not None
             else view.subset(data, ids))
    if args.json:
        text = json.dumps(shown.to_json(), ensure_ascii=False)
        if args.json == "-":
            print(text, file=out)
        else:
            write_text(Path(args.json), text + "\n")
    if args.png:
        assert _png_renderer is not None
        marks = lib.map_marks()
        width, height = args.size
        _png_renderer(shown, marks, Path(args.png), width, height, args.dark)
    if not args.json or args.json != "-":
        labelled = [s for s in shown.spots if s.level == 0 and s.label]
        print(f"{count_noun(len(shown.ids), 'paper', grouped=False)} on the map, "
              f"{count_noun(len(labelled), 'labelled region', grouped=False)}", file=out)
        for s in sorted(labelled, key=lambda s: -s.size)[:12]:
            print(f"  {s.size:>6}  {s.label}", file=out)
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace, Any, TextIO], int]] = {"map": _map}
