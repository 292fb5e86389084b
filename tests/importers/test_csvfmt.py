"""CSV/TSV importer: aliases, quoting, delimiters and the real corpus."""

from __future__ import annotations

import re

import pytest

from reader.errors import InputFileError
from reader.importers import detect_format, parse_file

from .helpers import ABSTRACT, ABSTRACT2, ML, corpus, write


def test_csv_without_abstract_column(tmp_path):
    path = write(tmp_path, "p.csv", "title,authors,year\nA paper,Ann Lee,2020\n")
    with pytest.raises(InputFileError, match="no abstract column.*title, authors, year"):
        parse_file(path)


def test_csv_multiline_fields_and_aliases(tmp_path):
    text = (
        "Name,Summary,Author,Date,Booktitle,Link,DOI\r\n"
        f'"A, title","{ABSTRACT}\r\nwith ""quotes"", commas\r\nand lines",Ann Lee; Bo Chen,'
        "2021-07-01,ICML,https://p,10.5/x\r\n"
        "\r\n"
        '"Short",tiny,X,1999,V,,\r\n'
        f'"B","{ABSTRACT2}",,n.d.,,,\r\n'
    )
    result = parse_file(write(tmp_path, "p.csv", text))
    assert result.format == "csv"
    a, short, b = result.records
    assert (short.title, short.abstract, short.line) == ("Short", "", 6)  # "tiny" is no abstract
    assert a.title == "A, title"
    assert a.abstract == f'{ABSTRACT}\nwith "quotes", commas\nand lines'
    assert (a.authors, a.year, a.venue, a.url, a.line) == (
        ["Ann Lee", "Bo Chen"], 2021, "ICML", "https://p", 2)
    assert a.links == ["https://p", "https://doi.org/10.5/x"]
    assert (b.line, b.year, b.authors) == (7, None, [])
    assert result.problems == []


@pytest.mark.parametrize("delimiter", [";", "\t"])
def test_csv_delimiter_sniffed(tmp_path, delimiter):
    text = delimiter.join(["title", "abstract", "year"]) + "\n"
    text += delimiter.join(["T, with comma", ABSTRACT.replace(",", ""), "2022"]) + "\n"
    path = write(tmp_path, "p.txt", text)
    assert detect_format(path, text) == "csv"
    (rec,) = parse_file(path).records
    assert (rec.title, rec.year) == ("T, with comma", 2022)


def test_csv_row_with_too_many_fields(tmp_path):
    text = f'title,abstract\nA,"{ABSTRACT}"\nB,{ABSTRACT2},oops\n'
    result = parse_file(write(tmp_path, "p.csv", text))
    assert len(result.records) == 1
    assert result.problems[0].line == 3 and "fields" in result.problems[0].reason


def test_csv_bad_quotes_skip_only_that_row(tmp_path):
    text = f'title,abstract\nA,"{ABSTRACT}"\nB,"Bad" quoting here {ABSTRACT2}\nC,"{ABSTRACT2}"\n'
    result = parse_file(write(tmp_path, "p.csv", text))
    assert [(r.title, r.line) for r in result.records] == [("A", 2), ("C", 4)]
    assert [p.line for p in result.problems] == [3]
    assert "quot" in result.problems[0].reason


def test_csv_unterminated_quote_is_reported_not_swallowed(tmp_path):
    text = f'title,abstract\nA,"{ABSTRACT}\nB,"{ABSTRACT2}"\n'
    with pytest.raises(InputFileError, match="no records.*line 2"):
        parse_file(write(tmp_path, "p.csv", text))


@pytest.mark.corpus
def test_real_csv():
    path = corpus(ML / "papers_neurips_icml_iclr.csv")
    result = parse_file(path)
    assert result.format == "csv"
    assert len(result.records) == 12_721 and result.problems == []
    # Line numbers are physical lines: the row really starts there.
    lines = path.read_text(encoding="utf-8").split("\n")
    assert [r.line for r in result.records] == sorted({r.line for r in result.records})
    for rec in result.records[::97]:
        row_start = lines[rec.line - 1]
        assert re.match(r"[a-z]+\d{4}:", row_start), row_start[:40]
        assert rec.title.split()[0].strip('"') in row_start
    assert any("\n" in r.abstract for r in result.records)
    assert all(r.authors for r in result.records[:100])
