"""Every parser's cost grows linearly: ~1 MB worst cases at two sizes, compared by CPU time ratio.

Linear growth makes the 4x input take ~4x the time; a quadratic parser takes ~16x. The bound
(9x) is generous for a noisy shared machine, and the larger input must take long enough to
measure (else the pair is measured again, bigger).
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable

import pytest

from reader.errors import InputFileError
from reader.importers import parse_text

ABSTRACT = "We study a long enough abstract about sparse attention in transformers."


def _ris_continuations(n: int) -> str:  # one abstract of n continuation lines (was quadratic)
    return "TY  - JOUR\nTI  - t\nAB  - " + ABSTRACT + "\n" + "a b\n" * n + "ER  - \n"


def _ris_title_lines(n: int) -> str:  # a title continued over n lines (rispy joined with +)
    return "TY  - JOUR\nAB  - " + ABSTRACT + "\nTI  - t\n" + "word\n" * n + "ER  - \n"


def _ris_records(n: int) -> str:
    return f"TY  - JOUR\nTI  - t\nAB  - {ABSTRACT}\nER  - \n" * (n // 4)


def _bibtex_entries(n: int) -> str:
    return "".join(f"@article{{k{i}, title={{T}}, abstract={{{ABSTRACT}}}, year=2020}}\n"
                   for i in range(n // 8))


def _bibtex_long_abstract(n: int) -> str:
    return "@article{k, title={T}, abstract={" + ABSTRACT + " {x}" * (n // 16) + "}}\n"


def _bibtex_concatenation(n: int) -> str:
    return "@article{k, title={T}, abstract=\"" + ABSTRACT + "\"" + ' # "ab"' * (n // 2) + "}\n"


def _csv_rows(n: int) -> str:
    return "title,abstract,year\n" + f't,"{ABSTRACT}",2020\n' * (n // 8)


def _csv_multiline_cell(n: int) -> str:
    return 'title,abstract\nt,"' + ABSTRACT + "\nline" * n + '"\n'


def _jsonl_lines(n: int) -> str:
    return json.dumps({"abstract": ABSTRACT, "year": 2020}) + "\n" * 1 + (
        json.dumps({"abstract": ABSTRACT, "title": "t"}) + "\n") * (n // 8)


def _json_array(n: int) -> str:
    return json.dumps([{"abstract": ABSTRACT, "title": "t", "year": 2020}] * (n // 8))


def _backup(n: int) -> str:
    paper = {"title": "t", "abstract": ABSTRACT, "highlights": [
        {"start": 0, "end": 5, "quote": "We st"}] * 20}
    return json.dumps({"format": "reader-backup", "version": 1, "papers": [paper] * (n // 80)})


def _arxiv(n: int) -> str:
    entry = f"<entry><title>T</title><summary>{ABSTRACT}</summary></entry>\n"
    return ('<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
            + entry * (n // 8) + "</feed>\n")


def _seed(n: int) -> str:
    return "ICML 2025 Papers\n\n" + (ABSTRACT + "\n\n") * (n // 8)


def _seed_one_block(n: int) -> str:
    return "ICML 2025 Papers\n\n" + ABSTRACT + "\nmore words" * n + "\n"


CASES: dict[str, tuple[Callable[[int], str], str]] = {
    "ris continuation lines": (_ris_continuations, "ris"),
    "ris title lines": (_ris_title_lines, "ris"),
    "ris records": (_ris_records, "ris"),
    "bibtex entries": (_bibtex_entries, "bibtex"),
    "bibtex long abstract": (_bibtex_long_abstract, "bibtex"),
    "bibtex # concatenation": (_bibtex_concatenation, "bibtex"),
    "csv rows": (_csv_rows, "csv"),
    "csv multi-line cell": (_csv_multiline_cell, "csv"),
    "jsonl lines": (_jsonl_lines, "jsonl"),
    "json array": (_json_array, "json"),
    "backup": (_backup, "json"),
    "arxiv entries": (_arxiv, "arxiv"),
    "seed blocks": (_seed, "seed"),
    "seed one block": (_seed_one_block, "seed"),
}
RATIO_BOUND = 9.0
MIN_SECONDS = 0.03  # the larger input must take at least this long to compare


def _cpu(text: str, fmt: str) -> float:
    """The parser's own CPU time, the cyclic GC held off (its full collections scan whatever
    earlier tests left alive, which a long session can make look superlinear)."""
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()
        try:
            parse_text(text, f"worst.{fmt}", fmt)
        except InputFileError:
            pass
        return time.process_time() - start
    finally:
        gc.enable()


def growth(make: Callable[[int], str], fmt: str, n: int = 16_000) -> tuple[float, int]:
    """(time ratio of a 4x input over a 1x one, characters of the larger one)."""
    for _ in range(3):
        small, large = make(n), make(4 * n)
        t_large = _cpu(large, fmt)
        if t_large >= MIN_SECONDS or len(large) > 2**20:
            t_small = max(min(_cpu(small, fmt) for _ in range(2)), 1e-4)
            return t_large / t_small, len(large)
        n *= 4
    return 1.0, len(large)


@pytest.mark.parametrize("case", list(CASES))
def test_parse_time_grows_linearly(case: str) -> None:
    make, fmt = CASES[case]
    ratio, size = growth(make, fmt)
    assert ratio < RATIO_BOUND, f"{case}: 4x the input ({size:,} chars) took {ratio:.1f}x the time"
