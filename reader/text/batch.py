"""Analyse many abstracts at once (plain text, method, title, code links), in worker processes when large."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from ..workers import watch_parent
from .extract import derive_title, detect_method, extract_code_links
from .render import abstract_plain

Analysis = tuple[str, str, str, list[str]]  # plain text, method ("" if none), derived title, code links

# Below this, starting worker processes costs more than it saves.
PARALLEL_MIN = 4000
_CHUNK = 1000


def analyze(abstract: str, *, derive: bool = True) -> Analysis:
    """derive=False: no derived title ("") — the paper has a real one, which stands in for it
    (deriving one is a third of the analysis, and it rendered the abstract a second time)."""
    method = detect_method(abstract) or ""
    plain = abstract_plain(abstract)
    derived = derive_title(abstract, method or None, plain=plain) if derive else ""
    return plain, method, derived, extract_code_links(abstract)


def _analyze_chunk(abstracts: Sequence[str]) -> list[Analysis]:
    return [analyze(a) for a in abstracts]


def analyze_many(abstracts: Sequence[str], *, processes: int | None = None, progress=None) -> list[Analysis]:
    """analyze() for each abstract, in order; uses a spawn-based process pool for large batches."""
    n = len(abstracts)
    workers = processes if processes is not None else min(os.cpu_count() or 1, 4)
    out: list[Analysis] = []
    if n < PARALLEL_MIN or workers < 2:
        for i in range(0, n, _CHUNK):
            out.extend(_analyze_chunk(abstracts[i : i + _CHUNK]))
            if progress:
                progress(min(i + _CHUNK, n), n)
        return out
    chunks = [abstracts[i : i + _CHUNK] for i in range(0, n, _CHUNK)]
    # spawn: the GUI process has threads, and forking a threaded process is unsafe.
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=watch_parent, initargs=(os.getpid(),)) as pool:
        for result in pool.map(_analyze_chunk, chunks):
            out.extend(result)
            if progress:
                progress(len(out), n)
    return out
