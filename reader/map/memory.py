"""Giving freed memory back to the system during a layout.

glibc's malloc keeps what a step freed (the abstracts read in batches, the word counts, the
kNN blocks) in its heap for reuse, but the next step's big numpy arrays are mapped afresh, so
the freed pages still counted in the process's RSS: 187 MB after the TF-IDF of 50k papers,
47 MB once `malloc_trim` returned those pages (measured).
On a worker thread it is worse: glibc raises its mmap threshold each time a big block is freed,
up to 32 MB, after which the layout's big arrays come from the thread's heap and stay there. A
fixed MMAP_THRESHOLD keeps the biggest mapped, so they go back to the system when freed. Measured
at 50k in the window (peak RSS added, CPU): 16 MB 247 MB, 63 s; 1 MB 229 MB, 95 s (every epoch's
temporaries mapped afresh); on a thread alone, glibc's own 273 MB, 80 s.
Elsewhere (macOS, Windows, musl) these calls are not there and this does nothing."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable

M_MMAP_THRESHOLD = -3  # mallopt's parameter number (glibc malloc.h)
MMAP_THRESHOLD = 16 << 20  # blocks from 16 MB up are mapped on their own

_trim: Callable[[int], int] | None = None
_mallopt: Callable[[int, int], int] | None = None
if sys.platform.startswith("linux"):
    try:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        _trim, _mallopt = _libc.malloc_trim, _libc.mallopt
    except (OSError, AttributeError):  # not glibc
        _trim = _mallopt = None
_fixed = False


def map_big_blocks() -> None:
    """Before a layout: big blocks mapped on their own from now on (once per process)."""
    global _fixed
    if _mallopt is not None and not _fixed:
        _fixed = bool(_mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def give_back() -> None:
    """Return the heap's free pages to the system (a few milliseconds)."""
    if _trim is not None:
        _trim(0)
