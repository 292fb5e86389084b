"""`ast.parse` for tests that read the source, safe beside threads that format tracebacks.

CPython 3.11 keeps `ast.parse`'s recursion count in state shared by every thread
(gh-106905), and 3.11's traceback formatting calls `ast.parse` to place its carets. A thread of
another test printing a traceback at the wrong moment made `ast.parse` here raise
"SystemError: AST constructor recursion depth mismatch" on CI, for a file that parses fine. Only
that error is tried again; any other failure, and a third mismatch in a row, is raised."""

from __future__ import annotations

import ast


def parse_source(text: str, filename: str = "<unknown>") -> ast.Module:
    for attempt in range(3):
        try:
            return ast.parse(text, filename)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc) or attempt == 2:
                raise
    raise AssertionError("unreachable")
