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
import sys

M_MMAP_THRESHOLD = -3  # mallopt's parameter number (glibc malloc.h)
MMAP_THRESHOLD = 16 << 20  # blocks from 16 MB up are mapped on their own

_libc: ctypes.CDLL | None = None
_looked = False
_fixed = False


def _glibc() -> ctypes.CDLL | None:
    """The process's own C library when it is glibc, found on first use: the process's symbols
    (no `ctypes.util.find_library`, which runs ldconfig in a subprocess, at import)."""
    global _libc, _looked
    if not _looked:
        _looked = True
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None)
                if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt"):  # not musl
                    _libc = libc
            except OSError:
                _libc = None
    return _libc


def map_big_blocks() -> None:
    """Before a layout: big blocks mapped on their own from now on (once per process)."""
    global _fixed
    libc = _glibc()
    if libc is not None and not _fixed:
        _fixed = bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def give_back() -> None:
    """Return the heap's free pages to the system (a few milliseconds)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
