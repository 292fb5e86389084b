"""A package's compiled libraries read into the OS file cache before its first import.

Python loads an extension module (dlopen) holding the GIL. When the file is not in the cache
(a first start after a reboot, a machine short of memory), every other thread waits while the
disk is read: importing numpy with a cold cache held the GIL for 43-56 ms on a quiet VM (its 22
libraries, 44 MB), and the window's GUI thread stalled 1.7 s at triage's first open beside two
busy processes. Read first with plain reads, which let the GIL go, the same import held it for
8-12 ms (same VM, cache dropped before each run). With a warm cache the reads cost ~10 ms of a
worker's CPU; a package already imported is not read at all.
"""

from __future__ import annotations

import os
import stat
import sys
from importlib.util import find_spec

_CHUNK = 1 << 20


def library_files(package: str) -> list[str]:
    """The shared libraries of an installed `package` (and of its wheel's `<package>.libs`
    folder), without importing it; [] when it is not installed as files."""
    try:
        spec = find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.origin or not spec.submodule_search_locations:
        return []
    root = os.path.dirname(spec.origin)
    found: list[str] = []
    for base in (root, root + ".libs"):
        for folder, _dirs, files in os.walk(base):
            found.extend(os.path.join(folder, f) for f in files
                         if f.endswith((".so", ".pyd", ".dylib", ".dll")) or ".so." in f)
    return sorted(found)


def preread(package: str) -> int:
    """Read `package`'s shared libraries (unless it is imported already); the bytes read.
    Unreadable files are skipped: this only warms a cache."""
    if package in sys.modules:
        return 0
    total = 0
    for path in library_files(package):
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                continue  # a FIFO would block the read; only regular files are read
            with open(path, "rb", buffering=0) as f:
                while chunk := f.read(_CHUNK):
                    total += len(chunk)
        except OSError:
            continue
    return total
