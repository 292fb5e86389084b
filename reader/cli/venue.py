"""`reader venue list [--json]` and `reader venue add NAME YEAR [--refresh] [--source S]`.

`list` prints the catalogue (reader.sources.catalogue): one line per venue-year with its sources,
or JSON objects `{"name": "icml", "year": 2025, "sources": ["pmlr", "openreview"], "label":
"ICML 2025", "title": ...}`. `add` fetches the venue whole into the library's response cache,
then stores it in one transaction into the collection named for it (reader.sources.venue_add);
progress lines go to stderr on a terminal; a venue no source serves yet is one line naming
every URL tried (exit 1)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from .args import Parser

# reader.sources.catalogue.SOURCE_ORDER (not imported here: the CLI's start stays free of the network layer)
SOURCES = ("pmlr", "acl", "cvf", "openreview")


def add_parsers(sub: Any) -> None:
    s = sub.add_parser("venue", help="open a conference by name: list the venues Reader knows, add one")
    vsub = s.add_subparsers(dest="venue_command", metavar="ACTION", required=True, parser_class=Parser)
    lst = vsub.add_parser("list", help="the venues and years Reader knows, and their sources")
    lst.add_argument("--json", action="store_true")
    add = vsub.add_parser("add", help="fetch a venue's papers into a collection named for it (e.g. icml 2025)")
    add.add_argument("name", metavar="NAME", help="icml, iclr, neurips, aistats, acl, cvpr... (see venue list)")
    add.add_argument("year", metavar="YEAR", type=int)
    add.add_argument("--refresh", action="store_true",
                     help="fetch every page anew (updates changed metadata; stars, tags, notes are kept)")
    add.add_argument("--source", choices=SOURCES, help="the source to read it from (default: the first that serves it)")


def _progress() -> Callable[[int, int, str], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, what: str) -> None:
        count = f"{done:,}/{total:,}" if total else f"{done:,}"
        sys.stderr.write(f"\r{what[:56]:<56} {count:>13}")
        sys.stderr.flush()

    return show


def _venue(args: argparse.Namespace, lib: Any, out: TextIO) -> int:
    from reader.sources import catalogue

    if args.venue_command == "list":
        entries = catalogue.entries()
        if args.json:
            print(json.dumps([e.as_json() for e in entries], ensure_ascii=False, indent=1), file=out)
        else:
            for e in entries:
                print(f"{e.venue.name:<16} {e.year}  {', '.join(e.sources):<18} {e.venue.title}", file=out)
        return 0
    from reader.sources.venue_add import add_venue

    progress = _progress()
    try:
        added = add_venue(lib, args.name, args.year, refresh=args.refresh, source=args.source, progress=progress)
    finally:
        if progress is not None:
            sys.stderr.write("\r" + " " * 70 + "\r")
    print(added.summary(), file=out)
    for problem in added.left_out()[:20]:
        print(f"  left out: {problem}", file=sys.stderr)
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace, Any, TextIO], int]] = {"venue": _venue}
