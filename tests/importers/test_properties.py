"""Property tests: any text or bytes given to an importer yields a ParseResult or an InputFileError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.errors import InputFileError
from reader.importers import parse_file, parse_text
from reader.importers.bibtex import latex_to_text
from reader.models import ParseResult
from reader.text.latex import latex_to_unicode

from .helpers import ABSTRACT

SETTINGS = settings(max_examples=150, deadline=None,  # no wall-clock budget: tests/conftest.py
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

# Pieces that steer random text into each format's interesting corners.
_BIB = st.sampled_from(["@article{", "@string{", "@comment{", "@preamble{", "}", "{", "\"", "#",
                        ",", "=", " and ", "title", "abstract = ", "year = 2020", "\\\"o", "$x^2$",
                        "\n", "@", "(", ")", ABSTRACT])
_RIS = st.sampled_from(["TY  - JOUR\n", "ER  - \n", "AB  - ", "TI  - ", "AU  - ", "PY  - 2019\n",
                        "UR  - http://x\n", "\n", "  continued\n", "1.\n", ABSTRACT, "DO  - 10.1/x\n"])
_LATEX = st.sampled_from(["\\frac", "{", "}", "^", "_", "\\sqrt", "[", "]", "\\mathbb", "\\left(",
                          "\\right)", "\\", "\\over", "\\not", "\\'", "$", "\\text", "a", " ",
                          "\\alpha", "\\hat", "\\\\", "&", "~", "'"])
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["abstract", "title", "year", "authors", "venue", "url", "doi", "papers",
                         "format", "version", "highlights", "start", "end", "quote", "x"]),
        inner, max_size=6),
    max_leaves=20,
)


def _check(text: str, name: str) -> None:
    try:
        result = parse_text(text, name)
    except InputFileError:
        return
    assert isinstance(result, ParseResult)
    for record in result.records:
        assert record.problem() is None  # nothing unstorable gets through


def _joined(parts: list[str]) -> str:
    return "".join(parts)


@SETTINGS
@given(st.lists(_BIB, max_size=40).map(_joined) | st.text(max_size=300))
def test_bibtex_any_text(text):
    _check(text, "x.bib")


@SETTINGS
@given(st.lists(_RIS, max_size=40).map(_joined) | st.text(max_size=300))
def test_ris_any_text(text):
    _check("TY  - JOUR\n" + text, "x.ris")


@SETTINGS
@given(st.lists(_LATEX, max_size=40).map(_joined) | st.text(max_size=200))
def test_latex_any_text(text):
    assert isinstance(latex_to_unicode(text), str)
    assert isinstance(latex_to_text(text), str)


@SETTINGS
@given(_JSON_VALUES)
def test_json_any_value(value):
    text = json.dumps(value)
    _check(text, "x.json")
    _check(text + "\n" + text, "x.jsonl")
    if isinstance(value, dict):
        _check(json.dumps({"format": "reader-backup", "version": 1, "papers": [value]}), "b.json")


@SETTINGS
@given(st.lists(st.lists(st.text(max_size=20) | st.just(ABSTRACT), max_size=5), max_size=8),
       st.sampled_from([",", ";", "\t"]))
def test_csv_any_table(rows, delimiter):
    header = delimiter.join(["title", "abstract", "year", "authors"])
    body = "\n".join(delimiter.join(row) for row in rows)
    _check(header + "\n" + body, "x.csv")


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from(["x.txt", "x.bib", "x.ris", "x.json", "x.jsonl",
                                                 "x.csv", "x.xml", "noext"]))
def test_any_bytes_in_any_file(tmp_path_factory, data, name):
    path: Path = tmp_path_factory.mktemp("h") / name
    path.write_bytes(data)
    try:
        result = parse_file(path)
    except InputFileError:
        return
    assert all(record.problem() is None for record in result.records)


@pytest.mark.parametrize("name", ["x.txt", "x.bib", "x.ris", "x.json", "x.csv", "x.xml"])
def test_seeded_prefixes_of_valid_files(name, tmp_path):
    """Every prefix of a small valid file (a truncated download) parses or is refused clearly."""
    samples = {
        "x.txt": f"ICML 2025\n\n{ABSTRACT}\n\n{ABSTRACT}\n",
        "x.bib": f"@article{{a, title={{T}}, abstract={{{ABSTRACT}}}, year=2020}}\n",
        "x.ris": f"TY  - JOUR\nTI  - T\nAB  - {ABSTRACT}\nER  - \n",
        "x.json": json.dumps([{"title": "T", "abstract": ABSTRACT, "year": 2020}]),
        "x.csv": f"title,abstract\nT,\"{ABSTRACT}\"\n",
        "x.xml": ('<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>T</title>'
                  f"<summary>{ABSTRACT}</summary></entry></feed>"),
    }
    text = samples[name]
    for end in range(0, len(text), 3):
        _check(text[:end], name)
