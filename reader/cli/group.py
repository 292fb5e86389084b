"""`reader group join|set|leave|sync|show|divide`: a reading group through a shared folder (issue 29).

Registered by main.py (`add_parsers`, `HANDLERS`); never imports reader.cli."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ..plural import count_noun

if TYPE_CHECKING:
    from ..library import Library


def add_parsers(sub: Any) -> None:
    s = sub.add_parser("group", help="triage together through a shared folder (see `reader group -h`)")
    gsub = s.add_subparsers(dest="group_command", metavar="ACTION", required=True)
    j = gsub.add_parser("join", help="take part in the group of a shared folder (Syncthing, a cloud folder, git)")
    j.add_argument("folder", metavar="FOLDER")
    j.add_argument("--as", dest="name", required=True, metavar="NAME", help="your member name (your folder in FOLDER)")
    _settings(j, joining=True)
    st = gsub.add_parser("set", help="change what you share (notes, tags) or whether best first learns from the group")
    _settings(st, joining=False)
    gsub.add_parser("leave", help="stop taking part (your folder stays, marked as left: the others keep your "
                                  "decisions and give you no share of the work)")
    gsub.add_parser("sync", help="read the members' decisions and write yours")
    sh = gsub.add_parser("show", help="the group: members, last sync, counts")
    sh.add_argument("--json", action="store_true")
    d = gsub.add_parser("divide", help="split the undecided papers of a query among the members, topics together")
    d.add_argument("query", nargs="?", default="", help="a search (default: all papers)")
    d.add_argument("--json", action="store_true")


def _settings(p: Any, *, joining: bool) -> None:
    again = " (joining again under the same folder and name changes only the settings given)" if joining else ""
    p.add_argument("--share-notes", action=argparse.BooleanOptionalAction, default=None,
                   help="share your notes (read-only for the others), or stop: --no-share-notes takes them out "
                        "of your files at once" + (" (default: not shared)" if joining else "") + again)
    p.add_argument("--tags", choices=("all", "group"), default=None,
                   help="share all your tags or only tags named group/… (group takes the others out of your files)"
                        + (" (default: all)" if joining else ""))
    if not joining:
        p.add_argument("--best-first-group", action=argparse.BooleanOptionalAction, default=None,
                       help="let triage's best first learn from the other members' stars")


def _settings_line(group: Any) -> str:
    s = group.status()
    return (f"notes {'shared' if s.share_notes else 'not shared'} · tags: {s.tags} ({s.tags_shared()} shared) · "
            f"best first {'learns' if s.best_first_group else 'does not learn'} from the others' stars")


def _group(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    from ..group import Group

    group = Group(lib)
    action = args.group_command
    if action == "join":
        before = group.config()
        joined = group.join(args.folder, args.name, share_notes=args.share_notes, tags=args.tags)
        cfg = group.config()
        assert cfg is not None
        if joined:
            print(f"joined {cfg['folder']} as {cfg['name']}", file=out)
        else:
            changed = before is not None and (before["share_notes"], before["tags"]) != (cfg["share_notes"], cfg["tags"])
            print(f"already in {cfg['folder']} as {cfg['name']}; "
                  f"{'settings changed' if changed else 'settings unchanged'}: {_settings_line(group)}", file=out)
        return _sync(group, out)
    if action == "set":
        said = group.set_options(share_notes=args.share_notes, tags=args.tags,
                                 best_first_group=args.best_first_group)
        print(f"{'; '.join(said) if said else 'nothing changed'}: {_settings_line(group)}", file=out)
        return _sync(group, out) if said else 0
    if action == "leave":
        left = group.leave()
        print(f"left the group; your folder {left.folder} stays for the others", file=out)
        if left.problem:
            print(f"reader: {left.problem}", file=sys.stderr)
        return 1 if left.problem else 0
    if action == "sync":
        return _sync(group, out)
    if action == "show":
        status = group.status()
        if args.json:
            print(json.dumps(status.as_json(), ensure_ascii=False, indent=1), file=out)
            return 0
        print(f"group {status.folder} as {status.name}"
              f"{' · notes shared' if status.share_notes else ''} · tags: {status.tags} ({status.tags_shared()} shared)",
              file=out)
        print(f"last sync: {status.last_sync_at or 'never'}", file=out)
        for m in status.members:
            c = m.counts
            line = (f"  {m.name}{' (you)' if m.me else ''}: {c['starred']} starred, {c['skipped']} skipped, "
                    f"{c['read']} read, {c['tagged']} tagged, {c['notes']} notes")
            line += f"  (left {m.left_at}: no share of the work)" if m.left_at else ""
            print(line + (f"  ⚠ {m.problem}" if m.problem else ""), file=out)
        return 0
    return _divide(args, lib, group, out)


def _sync(group: Any, out: TextIO) -> int:
    report = group.sync()
    for problem in report.problems:
        print(f"reader: {problem}", file=sys.stderr)
    print(f"sync: {report.summary()}", file=out)
    return 1 if report.problems else 0


def _divide(args: argparse.Namespace, lib: Library, group: Any, out: TextIO) -> int:
    from ..group.divide import split_even, topics, undecided

    group.sync()
    query = args.query.strip()
    ids = lib.search(query, limit=None).ids if query else lib.paper_ids()
    todo = undecided(lib.read_connection(), ids)
    members = group.members()
    topic_of, how = topics(lib.read_connection(), lib.paths.root, todo)
    shares = split_even(todo, topic_of, members)
    group.publish_division(query, shares)
    if args.json:
        print(json.dumps({"query": query, "grouped_by": how, "shares": shares}, indent=1), file=out)
        return 0
    print(f"divided {count_noun(len(todo), 'undecided paper')} among {len(members)} members "
          f"(topics by {how}):", file=out)
    for name in members:
        print(f"  {name}: {count_noun(len(shares[name]), 'paper')}", file=out)
    return 0


HANDLERS = {"group": _group}
