"""Triage on the command line: `reader skip|unskip ID...` ("not for me") and `reader triage next`,
the next papers of a triage queue as the window orders them, each with its why-line and interest.

Registered by main.py (`add_parsers`, `HANDLERS`); never imports reader.cli."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from .args import positive_int

if TYPE_CHECKING:
    from ..library import Library

# The --order choices: triage.queue's order names (triage loads numpy, so only the command imports it).
ORDERS = ("best", "listed", "unread")


def _order(name: str) -> str:
    from ..triage.queue import BEST_FIRST, LISTED, UNREAD_FIRST

    return {"best": BEST_FIRST, "listed": LISTED, "unread": UNREAD_FIRST}[name]


def _ask_every_default() -> int:
    from ..triage.interests import ASK_EVERY

    return ASK_EVERY


def add_parsers(sub: Any) -> None:
    for name, help_ in (("skip", "mark papers \"not for me\" (and read), as triage's X"),
                        ("unskip", "take \"not for me\" back")):
        s = sub.add_parser(name, help=help_)
        s.add_argument("ids", nargs="+", metavar="ID")
    s = sub.add_parser("triage", help="triage from the command line (see `reader triage next -h`)")
    tsub = s.add_subparsers(dest="triage_command", metavar="ACTION", required=True)
    n = tsub.add_parser("next", help="the next papers of the triage queue (read, skipped, starred and tagged "
                                      "ones left out)")
    n.add_argument("query", nargs="?", default="", help="a search (default: all papers)")
    n.add_argument("--order", choices=ORDERS, default="best",
                   help="best first (learned from your stars, tags and skips), as listed, or unread first")
    n.add_argument("--limit", type=positive_int, default=10)
    n.add_argument("--json", action="store_true")
    # default None: triage's ASK_EVERY, read when the command runs (or its help prints)
    ask = n.add_argument("--ask-every", type=int, default=None, metavar="N")
    n.fill_help_later(lambda: setattr(ask, "help", "best first: every N-th paper is one the model is least sure "
                                                   f"about (0: never; default {_ask_every_default()})"))


def _skip(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    ids = [lib.resolve_id(i) for i in args.ids]
    lib.set_skipped(ids, args.command == "skip")
    return 0


def next_papers(lib: Library, query: str, order: str, limit: int, ask_every: int | None = None) -> list[dict[str, Any]]:
    """The queue's next `limit` papers: the list of `query` less the papers decided already
    (read, skipped, starred or tagged: moving on in the window marks read), in `order` (best
    first: the learner, as the window's queue re-ranks after each decision); `ask_every`
    None is triage's default."""
    from ..triage import source
    from ..triage.best import BestFirst
    from ..triage.interests import ASK_EVERY, GENERAL
    from ..triage.queue import BEST_FIRST
    from ..triage.state import QueueSpec

    if ask_every is None:
        ask_every = ASK_EVERY
    lib.sync_index()
    ids, _terms = source.list_ids(lib, QueueSpec(query=query))
    rows = lib.rows(ids)
    ids = [pid for pid in ids if pid in rows and not (rows[pid].read or rows[pid].skipped or rows[pid].starred
                                                      or rows[pid].tags)]
    why: dict[str, str] = {}
    interest: dict[str, str] = {}
    asked: set[str] = set()
    if order == BEST_FIRST:
        best = BestFirst(lib, lib.paths.root)
        best.build()
        ranking, why = best.rank(ids, best.decisions(), why=limit, ask_every=max(0, ask_every))
        ids, interest, asked = ranking.order, ranking.interest_of, ranking.asked
    else:
        ids = source.order_ids(lib, ids, order)
    out = []
    for pid in ids[:limit]:
        r = rows[pid]
        name = interest.get(pid)
        out.append({"id": pid, "title": r.title, "venue": r.venue, "year": r.year, "starred": r.starred,
                    "tags": list(r.tags), "why": why.get(pid, ""), "asked": pid in asked,
                    "interest": None if name is None else ("starred" if name == GENERAL else name)})
    return out


def _triage(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    items = next_papers(lib, args.query, _order(args.order), args.limit, args.ask_every)
    if args.json:
        print(json.dumps(items, ensure_ascii=False, indent=1), file=out)
        return 0
    for it in items:
        where = " · ".join(str(x) for x in (it["venue"], it["year"]) if x)
        print(f"{it['id'][:8]}  {it['title']}" + (f"  ({where})" if where else ""), file=out)
        if it["why"]:
            print(f"          why: {it['why']}" + (f"  [{it['interest']}]" if it["interest"] else ""), file=out)
    if not items:
        print("nothing left to triage in this list", file=out)
    return 0


HANDLERS = {"skip": _skip, "unskip": _skip, "triage": _triage}
