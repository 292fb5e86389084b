"""JSON and JSON Lines importers, including hostile nesting, numbers and escapes."""

from __future__ import annotations

import json

import pytest

from reader.errors import InputFileError
from reader.importers import detect_format, parse_file
from reader.importers.fields import NO_ABSTRACT

from .helpers import ABSTRACT, ABSTRACT2, ML, corpus, write


def test_truncated_json_names_line_and_column(tmp_path):
    papers = [{"title": "A", "abstract": ABSTRACT}, {"title": "B", "abstract": ABSTRACT2}]
    text = json.dumps(papers, indent=2)
    path = write(tmp_path, "t.json", text[: len(text) // 2 + 7])
    with pytest.raises(InputFileError) as info:
        parse_file(path)
    message = str(info.value)
    assert "truncated" in message and "line" in message and "column" in message
    assert info.value.line and info.value.line > 1


def test_invalid_json_mid_file(tmp_path):
    path = write(tmp_path, "t.json", '[{"abstract": "x" "y"}, {}]')
    with pytest.raises(InputFileError, match=r"invalid JSON .*line 1, column 19"):
        parse_file(path)


def test_no_records_at_all(tmp_path):
    path = write(tmp_path, "p.jsonl", '{"title": "", "abstract": "short"}\n{"year": 2020}\n')
    with pytest.raises(InputFileError, match="no records"):
        parse_file(path)


def test_jsonl_where_no_line_parses(tmp_path):
    path = write(tmp_path, "p.jsonl", '{"title": "A", "abstract": \n{"title": \n')
    with pytest.raises(InputFileError, match="invalid JSON at line 1"):
        parse_file(path)


def test_jsonl_mixed_good_and_bad(tmp_path):
    lines = [
        json.dumps({"title": " A\n  title ", "abstract": f"  {ABSTRACT}\r\nMore. ",
                    "authors": "Ann Lee; Bo Chen and Cy Dee", "year": "2019-05-01",
                    "venue": "ICML", "url": "https://x.org/a", "pdf": "https://x.org/a.pdf",
                    "doi": "10.1/abc", "arxiv": "1234.5678"}),
        '{"title": "broken", "abstract": ',
        "",
        json.dumps({"title": "no abstract", "abstract": "   "}),
        json.dumps(["not", "an", "object"]),
        json.dumps({"Title": "Caps", "Summary": ABSTRACT2, "Authors": ["X Y", " Z  W "],
                    "year": 3000}),
        '{"title": "cut off", "abstr',
    ]
    result = parse_file(write(tmp_path, "p.jsonl", "\n".join(lines) + "\n"))
    assert result.format == "jsonl"
    a, bare, b = result.records
    assert (bare.title, bare.abstract, bare.line) == ("no abstract", "", 4)  # kept, title-only
    assert a.title == "A title"
    assert a.abstract == f"{ABSTRACT}\nMore."
    assert a.authors == ["Ann Lee", "Bo Chen", "Cy Dee"]
    assert (a.year, a.venue, a.url, a.line) == (2019, "ICML", "https://x.org/a", 1)
    assert a.links == ["https://x.org/a", "https://x.org/a.pdf", "https://doi.org/10.1/abc",
                       "https://arxiv.org/abs/1234.5678"]
    assert (b.title, b.authors, b.year, b.line) == ("Caps", ["X Y", "Z W"], None, 6)
    problems = {p.line: p.reason for p in result.problems}
    assert set(problems) == {2, 5, 7}
    assert "invalid JSON" in problems[2]
    assert "truncated last line" in problems[7]


def test_jsonl_detected_without_extension(tmp_path):
    text = json.dumps({"abstract": ABSTRACT}) + "\n" + json.dumps({"abstract": ABSTRACT2})
    path = write(tmp_path, "papers.txt", text)
    assert detect_format(path, text) == "jsonl"
    assert len(parse_file(path).records) == 2


def test_json_array_and_papers_object(tmp_path):
    papers = [{"name": "T1", "description": ABSTRACT, "author": ["A B"], "year": 2020.0,
               "conference": "ICLR", "link": "https://l"}, 7, {"title": "bad", "abstract": None}]
    result = parse_file(write(tmp_path, "a.json", json.dumps(papers)))
    assert result.format == "json"
    rec, bare = result.records
    assert (rec.title, rec.authors, rec.year, rec.venue, rec.url, rec.line) == (
        "T1", ["A B"], 2020, "ICLR", "https://l", 1)
    assert (bare.title, bare.abstract) == ("bad", "")
    assert [str(p) for p in result.problems] == ["record 2: not a JSON object"]
    wrapped = parse_file(write(tmp_path, "b.json", json.dumps({"papers": papers})))
    assert len(wrapped.records) == 2


def test_json_without_papers(tmp_path):
    with pytest.raises(InputFileError, match="no papers found"):
        parse_file(write(tmp_path, "c.json", '{"items": 3}'))


@pytest.mark.corpus
def test_real_jsonl_parses_whole():
    # Its speed is measured in benchmarks/bench_core.py, not asserted on a shared 2-core machine.
    path = corpus(ML / "papers.jsonl")
    result = parse_file(path)
    assert result.format == "jsonl"
    assert len(result.records) == 50_090 and result.problems == []
    first = result.records[0]
    assert first.title and first.authors and first.year and first.venue and first.url
    assert sum(r.year is None for r in result.records) == 0


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "venue", "year", "count"),
    [("iclr2018.json", "ICLR", 2018, 995), ("nips2018.json", "NeurIPS", 2018, 1009),
     ("icml2019.json", "ICML", 2019, 774)],
)
def test_real_paperlists(name, venue, year, count):
    path = corpus(ML / "raw_paperlists" / name)
    result = parse_file(path)
    assert result.format == "json"
    assert len(result.records) + len(result.problems) == count
    assert len(result.records) >= count - 10
    assert all(p.reason.endswith(NO_ABSTRACT) for p in result.problems)
    assert all(r.venue == venue and r.year == year for r in result.records)
    assert all(r.title and len(r.authors) >= 1 and r.url for r in result.records if r.abstract)
    assert all(";" not in a for r in result.records for a in r.authors)
