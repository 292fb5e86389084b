"""The `reader` command line: headless access to the whole core (import, search, tag, export...)."""

from __future__ import annotations

import argparse
import functools
import html
import json
import logging
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .. import __version__
from ..errors import ReaderError, UsageError
from ..models import HighlightColour, Paper, ViewKind
from ..paths import resolve_data_dir
from ..plural import count_noun
from . import cite as cli_cite
from . import group as cli_group
from . import map as cli_map
from . import sources as cli_sources
from . import triage as cli_triage
from . import venue as cli_venue
from .args import Parser, positive_int, set_command_help

if TYPE_CHECKING:
    from ..library import Library


def _colour(text: str) -> HighlightColour:
    """A highlight colour by name; the hex values older versions used are still understood."""
    colour = HighlightColour.parse(text)
    if colour is None:
        raise argparse.ArgumentTypeError(f"unknown colour {text!r} (choose from {', '.join(HighlightColour)})")
    return colour


def _snippet_text(snippet_html: str) -> str:
    """The search snippet as one plain line (its <b> marks dropped, entities decoded)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", snippet_html)).split())


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="reader", description="Read, triage and annotate research-paper abstracts.")
    p.add_argument("--version", action="version", version=f"Reader {__version__}")
    p.add_argument("--data-dir", metavar="DIR", help="library folder (default: $READER_DATA_DIR or the OS user-data dir)")
    p.add_argument("--smoke-test", action="store_true", help="run the GUI self-test in a temporary library and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    imp = sub.add_parser("import", help=None)  # the formats' line loads every importer: only for a help
    p.fill_help_later(lambda: set_command_help(sub, "import", _import_help()))
    imp.fill_help_later(lambda: setattr(imp, "description", _import_help()))
    imp.add_argument("paths", nargs="+", metavar="PATH")
    imp.add_argument("--verbose", "-v", action="store_true",
                     help="list every problem (by default: one line per cause, a few examples each)")

    s = sub.add_parser("list", help="list papers")
    s.add_argument("--starred", action="store_true")
    s.add_argument("--unread", action="store_true")
    s.add_argument("--tag", metavar="TAG")
    s.add_argument("--json", action="store_true")

    s = sub.add_parser("search", help="search with the query language (use -- before a query starting with -)")
    s.add_argument("query")
    s.add_argument("--limit", type=positive_int, default=20)
    s.add_argument("--json", action="store_true")

    s = sub.add_parser("show", help="show one paper, math rendered")
    s.add_argument("id")
    s.add_argument("--json", action="store_true")

    for name, help_ in (("star", "star papers"), ("unstar", "remove stars"), ("read", "mark read"),
                        ("unread", "mark unread"), ("delete", "delete papers")):
        s = sub.add_parser(name, help=help_)
        s.add_argument("ids", nargs="+", metavar="ID")

    for name, help_ in (("tag", "add tags to a paper"), ("untag", "remove tags from a paper")):
        s = sub.add_parser(name, help=help_)
        s.add_argument("id")
        s.add_argument("tags", nargs="+", metavar="TAG")

    s = sub.add_parser("title", help="set a paper's title (empty: back to the derived one)")
    s.add_argument("id")
    s.add_argument("title")

    s = sub.add_parser("note", help="set a paper's Markdown note")
    s.add_argument("id")
    g = s.add_mutually_exclusive_group(required=True)
    g.add_argument("--text", metavar="T")
    g.add_argument("--file", metavar="F")

    s = sub.add_parser("highlight", help="highlight a span of a paper's abstract (plain-text offsets)")
    s.add_argument("id")
    s.add_argument("start", type=int)
    s.add_argument("end", type=int)
    s.add_argument("--color", type=_colour, default=HighlightColour.YELLOW,
                   help=f"{', '.join(HighlightColour)} (default yellow)")
    s.add_argument("--comment", default="")

    _add_related_parser(sub)
    _add_export_parser(sub)
    cli_cite.add_parsers(sub)
    s = sub.add_parser("doctor", help="check the library file; --recover rescues a damaged one into a new folder")
    s.add_argument("--recover", nargs="?", const="", default=None, metavar="DEST",
                   help="copy every readable row into a new library folder (default: beside the library)")
    s.add_argument("--restore", nargs="?", const="", default=None, metavar="BACKUP",
                   help="put a backup (default: the newest) in place of the library file, which is moved aside")

    _add_vault_parser(sub)
    cli_triage.add_parsers(sub)
    cli_map.add_parsers(sub)
    cli_sources.add_parsers(sub)
    cli_group.add_parsers(sub)
    sub.add_parser("reindex", help="rebuild the search index from the library")
    sub.add_parser("stats", help="counts of papers, stars, notes and tags")
    cli_venue.add_parsers(sub)
    return p


def _add_related_parser(sub: Any) -> None:
    s = sub.add_parser("related", help="papers like this one (or like a tag's / the starred papers)")
    s.add_argument("id", nargs="?")
    like = s.add_mutually_exclusive_group()
    like.add_argument("--tag", help="papers like the ones with this tag")
    like.add_argument("--starred", action="store_true", help="papers like the starred ones")
    s.add_argument("--limit", type=positive_int, default=10)
    s.add_argument("--json", action="store_true")


def _add_export_parser(sub: Any) -> None:
    s = sub.add_parser("export", help="export Markdown, a JSON backup, or BibTeX/CSL-JSON/RIS for citing")
    esub = s.add_subparsers(dest="kind", metavar="KIND", required=True, parser_class=Parser)
    m = esub.add_parser("markdown", help="a reading list (or a folder with --per-paper)")
    m.add_argument("path")
    g = m.add_mutually_exclusive_group()
    g.add_argument("--query", metavar="Q")
    g.add_argument("--starred", action="store_true")
    g.add_argument("--tag", metavar="T")
    m.add_argument("--per-paper", action="store_true")
    m.add_argument("--with-abstracts", action="store_true")
    m.add_argument("--group-by", choices=["tag", "venue"])
    m.add_argument("--title", default=None)
    j = esub.add_parser("json", help="a full backup (papers, stars, read state, tags, notes, highlights)")
    j.add_argument("path")
    cli_cite.add_export_parsers(esub)


def _import_help() -> str:
    from ..importers import import_help

    return import_help()


def _row_json(lib: Library, ids: Sequence[str], scores: dict[str, float] | None = None,
              snippets: dict[str, str] | None = None) -> list[dict]:
    rows = lib.rows(ids)
    out = []
    for pid in ids:
        r = rows.get(pid)
        if r is None:
            continue
        item: dict[str, Any] = {"id": r.id, "title": r.title, "venue": r.venue, "year": r.year, "starred": r.starred,
                "read": r.read, "tags": list(r.tags), "method": r.method or None, "has_note": r.has_note}
        if scores is not None:
            item["score"] = round(scores[pid], 4)
        if snippets is not None:
            item["snippet"] = _snippet_text(snippets.get(pid, ""))
        out.append(item)
    return out


def _print_rows(items: list[dict], out: TextIO) -> None:
    for it in items:
        star = "★" if it["starred"] else " "
        unread = "•" if not it["read"] else " "
        venue = " ".join(str(x) for x in (it["venue"], it["year"]) if x)
        tags = "  " + " ".join(f"#{t}" for t in it["tags"]) if it["tags"] else ""
        score = f"  ({it['score']:.2f})" if "score" in it else ""
        print(f"{it['id'][:10]} {star}{unread} {it['title']}  [{venue}]{tags}{score}", file=out)
        if it.get("snippet"):
            snippet = it["snippet"] if len(it["snippet"]) <= 160 else it["snippet"][:159] + "…"
            print(f"           {snippet}", file=out)


def _show_text(p: Paper) -> str:
    from ..text import abstract_plain

    lines = [p.title, "=" * min(len(p.title), 100)]
    meta = [x for x in (p.venue, str(p.year or ""), f"({p.status})" if p.status else "") if x]
    lines.append(f"id: {p.id}   {' '.join(meta)}")
    if p.citation_key:
        lines.append(f"citation key: {p.citation_key}")
    if p.authors:
        lines.append("authors: " + ", ".join(p.authors))
    flags = ("★ starred" if p.starred else "not starred") + ", " + ("read" if p.read else "unread")
    lines.append(flags)
    if p.method:
        lines.append(f"method: {p.method}")
    if p.tags:
        lines.append("tags: " + ", ".join(p.tags))
    for link in p.code_links:
        lines.append(f"code: {link}")
    lines.append("")
    lines.extend(textwrap.wrap(abstract_plain(p.abstract), 100))
    if p.highlights:
        lines.append("")
        lines.append("Highlights:")
        for h in p.highlights:
            lines.append(f"  “{h.quote}”" + (f" — {h.comment}" if h.comment else ""))
    if p.note:
        lines.append("")
        lines.append("Note:")
        lines.extend("  " + ln for ln in p.note.splitlines())
    return "\n".join(lines)


def _tty_progress():
    """A one-line progress display on a terminal; nothing when output is piped."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, message: str) -> None:
        pct = f" {100 * done // total:3d}%" if total else ""
        sys.stderr.write(f"\r{message[:60]:<60}{pct}")
        if total and done >= total:
            sys.stderr.write("\r" + " " * 66 + "\r")
        sys.stderr.flush()

    return show


def _print_items(items: list[dict], args: argparse.Namespace, out: TextIO) -> None:
    if args.json:
        print(json.dumps(items, ensure_ascii=False, indent=1), file=out)
    else:
        _print_rows(items, out)


def _import(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    from ..import_report import file_lines
    from ..library import summarize

    summaries = lib.import_files(args.paths, progress=_tty_progress())
    failed = False
    for s in summaries:
        if s.error:
            failed = True
            print(f"reader: {s.error}", file=sys.stderr)
            continue
        for line in file_lines(s, verbose=args.verbose):
            print(line, file=out)
        if s.skipped and s.format == "backup":
            failed = True  # a paper of Reader's own backup left behind is lost data: never exit 0
    if len(summaries) > 1:
        print("total: " + summarize(summaries), file=out)
    return 1 if failed else 0


def _list(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    from ..library import View

    view = View("tag", args.tag) if args.tag else View("starred") if args.starred else View()
    ids = lib.listing("", view, sort="added", descending=False).ids
    items = [
        it for it in _row_json(lib, ids)
        if (not args.starred or it["starred"]) and (not args.unread or not it["read"])
    ]
    _print_items(items, args, out)
    return 0


def _search(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    lib.sync_index()
    # The GUI's listing: words by relevance, filters-only queries in `reader list` order.
    found = lib.listing(args.query, sort="added", descending=False, limit=args.limit)
    res = found.results if found.results is not None else lib.search(args.query, limit=args.limit)
    if res.problem:
        print(f"reader: query problem: {res.problem}", file=sys.stderr)
    ids = found.ids[: args.limit] if found.results is not None else []  # a blank query matches nothing
    items = _row_json(lib, ids, {h.id: h.score for h in res.hits}, {h.id: h.snippet for h in res.hits})
    _print_items(items, args, out)
    if not items and not args.json:
        hint = f" — did you mean: {res.suggestion}" if res.suggestion else ""
        print(f"no papers match {args.query!r}{hint}", file=out)
    return 0


def _show(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    p = lib.paper(lib.resolve_id(args.id))
    if p is None:  # deleted between the two reads
        raise ReaderError(f"no paper with id {args.id}")
    if args.json:
        print(json.dumps(p.to_dict(), ensure_ascii=False, indent=1), file=out)
    else:
        print(_show_text(p), file=out)
    return 0


def _flags(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    """star, unstar, read, unread, delete: one transaction for all the ids given."""
    ids = [lib.resolve_id(i) for i in args.ids]
    if args.command == "delete":
        lib.delete_papers(ids)
    elif args.command in ("star", "unstar"):
        lib.set_starred(ids, args.command == "star")
    else:
        lib.set_read(ids, args.command == "read")
    return 0


def _tag(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    pid = lib.resolve_id(args.id)
    (lib.add_tags if args.command == "tag" else lib.remove_tags)([pid], args.tags)
    return 0


def _title(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    lib.set_title(lib.resolve_id(args.id), args.title)
    return 0


def _note(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    pid = lib.resolve_id(args.id)
    if args.file is not None:
        try:
            text = Path(args.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ReaderError(f"{args.file}: cannot read note ({exc})") from exc
    else:
        text = args.text
    lib.set_note(pid, text)
    return 0


def _highlight(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    hid = lib.add_highlight(lib.resolve_id(args.id), args.start, args.end, args.color, args.comment)
    print(hid, file=out)
    return 0


def _related(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    lib.sync_index()
    if (args.id is None) == (args.tag is None and not args.starred):
        raise UsageError("related needs a paper id, or --tag NAME, or --starred")
    if args.id is not None:
        found = lib.related(lib.resolve_id(args.id), limit=args.limit)
    else:
        from ..library import View

        view = View("starred") if args.starred else View("tag", args.tag)
        found = lib.more_like(lib.paper_ids(view), limit=args.limit)
    _print_items(_row_json(lib, [i for i, _ in found], dict(found)), args, out)
    return 0


def _reindex(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    lib.reindex(progress=_tty_progress())
    print(f"indexed {count_noun(lib.counts().total, 'paper', grouped=False)}", file=out)
    return 0


def _stats(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    c = lib.counts()
    print(f"{count_noun(c.total, 'paper', grouped=False)} · {c.starred} starred · {c.read}/{c.total} read · "
          f"{c.with_notes} with notes · {count_noun(len(lib.tags()), 'tag', grouped=False)}", file=out)
    return 0


def _dispatch(args: argparse.Namespace, lib: Library) -> int:
    handler = COMMANDS.get(args.command)
    if handler is None:
        raise UsageError(f"unknown command {args.command}")
    return handler(args, lib, sys.stdout)


def _export(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    from ..library import View

    if args.kind in cli_cite.KINDS:
        return cli_cite.export(args, lib, out)
    if args.kind == "json":
        path = lib.export_json(args.path)
        print(f"wrote {path} ({count_noun(lib.counts().total, 'paper', grouped=False)})", file=out)
        return 0
    if args.query:
        lib.sync_index()
        res = lib.search(args.query, limit=100000)
        if res.problem:
            print(f"reader: query problem: {res.problem}", file=sys.stderr)
        ids = [h.id for h in res.hits]
        title = args.title or f"Reading list: {args.query}"
    elif args.starred:
        ids = lib.paper_ids(View(ViewKind.STARRED), descending=False)
        title = args.title or "Starred papers"
    elif args.tag:
        ids = lib.paper_ids(View(ViewKind.TAG, args.tag), descending=False)
        title = args.title or f"Papers tagged {args.tag}"
    else:
        ids = lib.paper_ids(View(), descending=False)
        title = args.title or "Reading list"
    if args.per_paper:
        written = lib.export_per_paper(args.path, ids, with_abstracts=args.with_abstracts)
        print(f"wrote {count_noun(len(written), 'file', grouped=False)} to {args.path}", file=out)
    else:
        path = lib.export_reading_list(args.path, ids, title=title, group_by=args.group_by,
                                       with_abstracts=args.with_abstracts)
        print(f"wrote {path} ({count_noun(len(ids), 'paper', grouped=False)})", file=out)
    return 0


# --- vault: two-way sync with a Markdown folder ------------------------------------------------
def _add_vault_parser(sub: Any) -> None:
    s = sub.add_parser("vault", help="two-way sync with a Markdown folder (an Obsidian-style vault)")
    vsub = s.add_subparsers(dest="vault_command", metavar="ACTION", required=True, parser_class=Parser)
    for name, help_ in (("sync", "sync the library and the vault both ways"),
                        ("status", "show what a sync would do, open conflicts and damaged files")):
        v = vsub.add_parser(name, help=help_)
        v.add_argument("dir", metavar="DIR")
        v.add_argument("--dry-run", action="store_true", help="change nothing, report what would happen")
        v.add_argument("--json", action="store_true")
        v.add_argument("--query", metavar="Q", help="which papers the vault holds (stored with the vault; "
                       "default: is:starred OR has:note OR tag:* OR has:highlight)")


def _vault(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    from ..vault import sync

    dry = args.dry_run or args.vault_command == "status"
    report = sync(lib, args.dir, query=args.query, dry_run=dry)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=1), file=out)
    else:
        print(report.describe(), file=out)
        if report.last_sync_at and args.vault_command == "status":
            print(f"last sync: {report.last_sync_at}", file=out)
    return 0 if not report.damaged else 1


Handler = Callable[[argparse.Namespace, "Library", TextIO], int]

# Each subcommand's handler (build_parser declares its arguments).
COMMANDS: dict[str, Handler] = {
    "import": _import, "list": _list, "search": _search, "show": _show,
    **dict.fromkeys(("star", "unstar", "read", "unread", "delete"), _flags),
    "tag": _tag, "untag": _tag, "title": _title, "note": _note, "highlight": _highlight,
    "related": _related, "export": _export, "vault": _vault, "reindex": _reindex, "stats": _stats,
    **cli_cite.HANDLERS,
    **cli_triage.HANDLERS,
    **cli_venue.HANDLERS,
    **cli_map.HANDLERS,
    **cli_sources.HANDLERS,
    **cli_group.HANDLERS,
}


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """One parser for the process: `reader.__main__` asks gui_request, then run, to parse the
    same arguments (building it takes ~15 ms, most of it argparse's message look-ups)."""
    return build_parser()


def _split_open_paths(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[list[str], list[str]]:
    """`reader FILE...` (e.g. a desktop "Open with"): the GUI opens and imports the files."""
    commands: set[str] = set()
    for action in parser._actions:  # argparse keeps the subcommands here
        if isinstance(action, argparse._SubParsersAction):
            commands.update(action.choices)
    rest, paths, i = [], [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--data-dir" and i + 1 < len(argv):
            rest += argv[i : i + 2]
            i += 2
            continue
        if arg.startswith("-"):
            rest.append(arg)
        elif arg in commands:
            return argv, []
        else:
            paths.append(arg)
        i += 1
    return (rest, paths) if paths and all(Path(p).exists() for p in paths) else (argv, [])


@dataclass(frozen=True)
class GuiRequest:
    """`reader`, `reader FILE...` or `reader --smoke-test`: the window opens (reader.__main__ starts it)."""

    data_dir: Path | None
    open_paths: list[str]
    smoke_test: bool = False


def gui_request(argv: Sequence[str]) -> GuiRequest | None:
    """What the window should do for these arguments; None when they name a command."""
    parser = _parser()
    argv, open_paths = _split_open_paths(parser, list(argv))
    args = parser.parse_args(argv)
    if args.smoke_test:
        return GuiRequest(None, [], smoke_test=True)
    if args.command is not None:
        return None
    return GuiRequest(resolve_data_dir(args.data_dir), [str(Path(p).resolve()) for p in open_paths])


# Commands that bring papers of their own: a new library gets no samples.
NO_SAMPLES = frozenset({"import", "add", "feed", "venue", "sources"})


def run(argv: Sequence[str]) -> int:
    """Run one command (the window is started by reader.__main__, never from here)."""
    parser = _parser()
    args = parser.parse_args(list(argv))
    if args.command is None or args.smoke_test:
        parser.error("no command given (the window opens with `reader` alone)")
    data_dir = resolve_data_dir(args.data_dir)
    from ..library import Library
    from ..logs import setup_logging

    logging.getLogger("reader").addHandler(logging.NullHandler())
    lib = None
    try:
        if args.command == "doctor":  # works on a library too damaged to open
            from ..doctor import run_doctor

            if args.restore is not None:
                from ..doctor import run_restore

                return run_restore(data_dir, args.restore, sys.stdout)
            return run_doctor(data_dir, args.recover, sys.stdout)
        # An import into a new library (e.g. restoring a backup) must not bring the samples along.
        # The day's check and backup never run before or beside a command (see the end).
        kind = Library.upgrade_kind(data_dir)  # a minute at 100k papers, once: not a silent wait
        if kind is not None:
            from ..library.facade import UPGRADE_SAYS

            print(f"reader: {UPGRADE_SAYS[kind].format(folder=data_dir)}…", file=sys.stderr, flush=True)
        lib = Library.open(data_dir, seed_if_empty=args.command not in NO_SAMPLES, daily=False)
        setup_logging(lib.paths.logs_dir)
        return _dispatch(args, lib)
    except BrokenPipeError:  # `reader list | head`
        sys.stderr.close()
        return 0
    except UsageError as exc:
        print(f"reader: {exc}", file=sys.stderr)
        return 2
    except ReaderError as exc:
        print(f"reader: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # the environment, not a bug: say which file and why
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"reader: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("reader: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: log the traceback, keep the terminal readable
        logging.getLogger("reader").exception("unhandled error in %s", args.command)
        print(f"reader: internal error: {type(exc).__name__}: {exc} (details in the log)", file=sys.stderr)
        return 1
    finally:
        if lib is not None:
            lib.close()
            if lib.daily_due:  # after the answer, in a process of its own: nobody waits for it
                lib.start_daily_detached()
