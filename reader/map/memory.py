"""Giving freed memory back to the system between the layout's steps.

glibc's malloc keeps what a step freed (the abstracts read in batches, the word counts, the
kNN blocks) in its heap for reuse, but the next step's big numpy arrays are mapped afresh, so
the freed pages still counted in the process's RSS: 187 MB after the TF-IDF of 50k papers
that holds 47 MB (measured; 140 MB after malloc_trim). `malloc_trim` returns those pages.
Elsewhere (macOS, Windows, musl) it is not there and this does nothing."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _trim = _libc.malloc_trim
    except (OSError, AttributeError):  # not glibc
        _trim = None


def give_back() -> None:
    """Return the heap's free pages to the system (a few milliseconds)."""
    if _trim is not None:
        _trim(0)
