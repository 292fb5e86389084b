"""Seed text importer and the bundled seeds."""

from __future__ import annotations

from pathlib import Path

from reader.bundled import seed_files
from reader.importers import parse_file
from reader.importers.fields import NO_ABSTRACT

from .helpers import ABSTRACT, ABSTRACT2, write


def test_seed_bom_crlf_trailing_whitespace(tmp_path):
    text = f"ICML 2025 Papers  \r\n\r\n{ABSTRACT}  \r\nsecond line\r\n\r\n\r\n  \r\n{ABSTRACT2}\r\n\r\n"
    result = parse_file(write(tmp_path, "s.txt", b"\xef\xbb\xbf" + text.encode()))
    assert result.format == "seed"
    assert result.collection == "ICML 2025 Papers"
    assert [r.line for r in result.records] == [3, 8]
    first, second = result.records
    assert first.abstract == f"{ABSTRACT}  \nsecond line"
    assert second.abstract == ABSTRACT2
    assert (first.venue, first.year, first.title) == ("ICML", 2025, None)
    assert result.problems == []


def test_seed_short_block_is_a_problem(tmp_path):
    text = f"NeurIPS 2024 Accepted\n\n{ABSTRACT}\n\ntoo short\n\n{ABSTRACT2}\n"
    result = parse_file(write(tmp_path, "s", text))
    assert len(result.records) == 2
    assert [(p.line, p.reason) for p in result.problems] == [(5, NO_ABSTRACT)]
    assert result.records[0].venue == "NeurIPS"


def test_seed_header_without_year(tmp_path):
    result = parse_file(write(tmp_path, "s.txt", f"My reading pile\n\n{ABSTRACT}\n"))
    assert result.collection == "My reading pile"
    assert (result.records[0].venue, result.records[0].year) == (None, None)


def test_bundled_seeds_parse():
    files = seed_files()
    assert files
    for seed in files:
        result = parse_file(Path(str(seed)))
        assert result.format == "seed"
        assert result.collection == "ICML 2025 Papers"
        assert len(result.records) >= 10 and not result.problems
        assert all(r.venue == "ICML" and r.year == 2025 for r in result.records)
        assert result.records[0].line == 3
