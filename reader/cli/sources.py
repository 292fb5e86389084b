"""`reader sources`, `reader add ID...` and `reader feed add|list|update`: fetching papers.

`reader add` fetches every id first, then stores the papers found in one transaction (the
"Added by identifier" collection): one line per id on stdout ("added", "updated" or "already
there", the id and the title); an id that is not an id, or that the service has no paper for,
gets one line on stderr naming it and adds nothing, while the other ids are still added; the
exit status is then 1. A service that cannot be reached (503, refused, ...) stops the command
with one line and nothing written. `--refresh` asks the services again instead of the cache.

Registered by the CLI (`add_parsers`, `HANDLERS`); the network is reader.sources'."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, TextIO

from ..errors import ReaderError

ADDED_COLLECTION = "Added by identifier"
_SAID = {"added": "added", "updated": "updated", "unchanged": "already there"}


def add_parsers(sub: Any) -> None:
    s = sub.add_parser("sources", help="the services Reader fetches papers from")
    s.add_argument("--json", action="store_true")
    s = sub.add_parser("add", help="add papers by arXiv id, DOI or OpenReview id/URL (one line per id)")
    s.add_argument("ids", nargs="+", metavar="ID")
    s.add_argument("--refresh", action="store_true", help="ask the services again (not the cache)")
    s = sub.add_parser("feed", help="follow arXiv categories: feed add arxiv:cs.LG, feed list, feed update, "
                       "feed remove")
    fsub = s.add_subparsers(dest="feed_command", metavar="ACTION", required=True)
    a = fsub.add_parser("add", help="follow arXiv categories (arxiv:CATEGORY, several allowed)")
    a.add_argument("specs", nargs="+", metavar="arxiv:CATEGORY")
    a.add_argument("--query", metavar="Q", default="",
                   help="only papers matching Q too (arXiv's query syntax, e.g. 'ti:diffusion')")
    rm = fsub.add_parser("remove", help="stop following feeds (their papers stay)")
    rm.add_argument("specs", nargs="+", metavar="arxiv:CATEGORY")
    rm.add_argument("--query", metavar="Q", default="", help="the feed's query, if it has one")
    lst = fsub.add_parser("list", help="the followed feeds")
    lst.add_argument("--json", action="store_true")
    fsub.add_parser("update", help="add each feed's newest submissions since its last update")


def _progress() -> Callable[[int, int, str], None] | None:
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, message: str) -> None:
        pct = f" {100 * done // total:3d}%" if total else ""
        sys.stderr.write(f"\r{message[:60]:<60}{pct}")
        if total and done >= total:
            sys.stderr.write("\r" + " " * 66 + "\r")
        sys.stderr.flush()

    return show


def _sources(args: argparse.Namespace, lib: Any, out: TextIO) -> int:
    from ..sources import all_sources

    items = [s.to_dict() for s in all_sources()]
    if args.json:
        print(json.dumps(items, ensure_ascii=False, indent=1), file=out)
        return 0
    width = max(len(str(i["name"])) for i in items)
    for i in items:
        key = "  (key needed)" if i["needs_key"] else ""
        print(f"{str(i['name']):<{width}}  {i['url']}  {i['gives']}{key}", file=out)
    return 0


def _add(args: argparse.Namespace, lib: Any, out: TextIO) -> int:
    from ..sources import Client
    from ..sources.ids import fetch_ids

    with Client(lib.paths.root) as client:
        results = fetch_ids(client, args.ids, refresh=args.refresh, progress=_progress())
    good = [r for r in results if r.record is not None]
    stored = lib.add_fetched([r.record for r in good], collection=ADDED_COLLECTION, origin="add") if good else None
    outcome = {}
    if stored is not None:
        for n, why in stored.rejected:
            good[n].error, good[n].record = f"{good[n].ident}: {why}", None
        kept = [r for r in good if r.record is not None]
        outcome = {id(r): (pid, o) for r, pid, o in zip(kept, stored.ids, stored.outcomes, strict=True)}
    failed = False
    for r in results:
        if r.error is not None:
            failed = True
            print(f"reader: {r.error}", file=sys.stderr)
            continue
        pid, o = outcome[id(r)]
        title = " ".join((r.record.title or "").split()) if r.record else ""
        print(f"{_SAID[o]} {r.ident} {pid}: {title}", file=out)
    return 1 if failed else 0


def _feed(args: argparse.Namespace, lib: Any, out: TextIO) -> int:
    if args.feed_command == "add":
        from ..sources.feeds import parse_spec

        specs = [parse_spec(s) for s in args.specs]  # all checked before any is followed
        for source, category in specs:
            feed, created = lib.follow_feed(source, category, args.query.strip())
            print(f"{'following' if created else 'already following'} {feed.name} "
                  f"(papers land in \"{feed.collection}\")", file=out)
        return 0
    if args.feed_command == "remove":
        from ..sources.feeds import parse_spec

        specs = [parse_spec(s) for s in args.specs]
        followed = {(f.source, f.category, f.query): f for f in lib.feeds()}
        missing = [f"{src}:{cat}" for src, cat in specs if (src, cat, args.query.strip()) not in followed]
        if missing:
            raise ReaderError(f"not following {', '.join(missing)} (reader feed list)")
        for src, cat in specs:
            feed = followed[(src, cat, args.query.strip())]
            lib.unfollow_feed(feed.id)
            print(f"stopped following {feed.name} (its papers stay in \"{feed.collection}\")", file=out)
        return 0
    if args.feed_command == "list":
        feeds = lib.feeds()
        if args.json:
            print(json.dumps([{"id": f.id, "feed": f"{f.source}:{f.category}", "query": f.query,
                               "collection": f.collection, "updated_at": f.updated_at or None,
                               "newest": f.newest or None} for f in feeds], ensure_ascii=False, indent=1),
                  file=out)
        elif not feeds:
            print("no feeds followed (reader feed add arxiv:CATEGORY)", file=out)
        for f in feeds if not args.json else []:
            print(f"{f.name}  → \"{f.collection}\"  last update: {f.updated_at or 'never'}", file=out)
        return 0
    return _feed_update(lib, out)


def _feed_update(lib: Any, out: TextIO) -> int:
    from ..sources import Client
    from ..sources.feeds import fetch_new

    feeds = lib.feeds()
    if not feeds:
        raise ReaderError("no feeds followed (reader feed add arxiv:CATEGORY)")
    progress = _progress()
    with Client(lib.paths.root) as client:
        for f in feeds:
            fetched = fetch_new(client, f.category, f.query, f.newest,
                                progress=(lambda n, m: progress(n, 0, m)) if progress else None)
            result = lib.store_feed_update(f.id, fetched.records, fetched.newest)
            print(f"{f.name}: {result.describe()} ({fetched.pages} "
                  f"{'page' if fetched.pages == 1 else 'pages'})", file=out)
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace, Any, TextIO], int]] = {
    "sources": _sources, "add": _add, "feed": _feed}
