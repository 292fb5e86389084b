"""The CLI's citing commands: `reader export bibtex|csljson|ris PATH` and `reader citekey ID [KEY]`.

main.py registers them (add_export_parsers on its export subcommands, add_parsers on its own);
this module never imports reader.cli.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

from ..models import ExportKind, ViewKind
from ..plural import count_noun

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..library import Library

KINDS = {"bibtex": ExportKind.BIBTEX, "csljson": ExportKind.CSLJSON, "ris": ExportKind.RIS}
_HELP = {"bibtex": "BibTeX for LaTeX (citation keys, LaTeX-escaped titles and abstracts)",
         "csljson": "CSL-JSON for pandoc, citeproc and Zotero", "ris": "RIS for EndNote, Mendeley, RefWorks"}


def add_export_parsers(esub: Any) -> None:
    """`reader export bibtex|csljson|ris PATH [--query Q | --starred | --tag T] [--with-notes]`."""
    for name in KINDS:
        s = esub.add_parser(name, help=_HELP[name], description=_HELP[name])
        s.add_argument("path")
        g = s.add_mutually_exclusive_group()
        g.add_argument("--query", metavar="Q")
        g.add_argument("--starred", action="store_true")
        g.add_argument("--tag", metavar="T")
        s.add_argument("--with-notes", action="store_true", help="add each paper's note (BibTeX: annote)")


def add_parsers(sub: Any) -> None:
    s = sub.add_parser("citekey", help="show a paper's citation key, or set it (\"\" makes a new one)")
    s.add_argument("id")
    s.add_argument("key", nargs="?", default=None)


def selected_ids(args: argparse.Namespace, lib: Library) -> list[str] | None:
    """The ids --query/--starred/--tag select (in their list order); None for the whole library."""
    from ..library import View

    if args.query:
        lib.sync_index()
        res = lib.search(args.query, limit=None)
        if res.problem:
            print(f"reader: query problem: {res.problem}", file=sys.stderr)
        return [h.id for h in res.hits]
    if args.starred:
        return lib.paper_ids(View(ViewKind.STARRED), descending=False)
    if args.tag:
        return lib.paper_ids(View(ViewKind.TAG, args.tag), descending=False)
    return None


def export(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    kind = KINDS[args.kind]
    written = lib.export_citations(args.path, selected_ids(args, lib), kind, with_notes=args.with_notes)
    print(f"wrote {args.path} ({count_noun(written, 'paper', grouped=False)})", file=out)
    return 0


def _citekey(args: argparse.Namespace, lib: Library, out: TextIO) -> int:
    pid = lib.resolve_id(args.id)
    if args.key is None:
        paper = lib.paper(pid)
        print(paper.citation_key if paper else "", file=out)
        return 0
    print(lib.set_citation_key(pid, args.key), file=out)
    return 0


HANDLERS: dict[str, Callable[[argparse.Namespace, Library, TextIO], int]] = {"citekey": _citekey}
