"""Importers: format detection, field cleaning, hostile files and the real corpora."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from reader.bundled import seed_files
from reader.errors import InputFileError
from reader.importers import detect_format, parse_file
from reader.importers.fields import NO_ABSTRACT, parse_year, split_authors

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
ML = CORPORA / "ml_conference_corpus"

ABSTRACT = "We study a problem and propose a method that works well on benchmarks."
ABSTRACT2 = "A second abstract about transformers, attention and long contexts in practice."


def corpus(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    return path


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


# --- rejected files -----------------------------------------------------------------------


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputFileError, match="not found"):
        parse_file(tmp_path / "nope.txt")
    with pytest.raises(InputFileError, match="folder"):
        parse_file(tmp_path)


@pytest.mark.parametrize("content", [b"", b"   \n\n  \r\n", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path, content):
    with pytest.raises(InputFileError, match="empty"):
        parse_file(write(tmp_path, "e.txt", content))


def test_binary_file(tmp_path):
    path = write(tmp_path, "x.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(InputFileError, match="binary"):
        parse_file(path)


def test_latin1_names_byte_and_line(tmp_path):
    text = f"ICML 2025 Papers\n\nCaf\u00e9 {ABSTRACT}\n"
    path = write(tmp_path, "l.txt", text.encode("latin-1"))
    with pytest.raises(InputFileError) as info:
        parse_file(path)
    assert "not UTF-8 text (byte 0xe9 at line 3)" in str(info.value)
    assert "Latin-1" in str(info.value)
    assert info.value.line == 3


def test_utf16_is_named(tmp_path):
    path = write(tmp_path, "u.txt", ("ICML 2025\n\n" + ABSTRACT).encode("utf-16"))
    with pytest.raises(InputFileError, match="UTF-16"):
        parse_file(path)


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


def test_csv_without_abstract_column(tmp_path):
    path = write(tmp_path, "p.csv", "title,authors,year\nA paper,Ann Lee,2020\n")
    with pytest.raises(InputFileError, match="no abstract column.*title, authors, year"):
        parse_file(path)


def test_no_records_at_all(tmp_path):
    path = write(tmp_path, "p.jsonl", '{"title": "A", "abstract": "short"}\n{"title": "B"}\n')
    with pytest.raises(InputFileError, match="no records"):
        parse_file(path)


def test_jsonl_where_no_line_parses(tmp_path):
    path = write(tmp_path, "p.jsonl", '{"title": "A", "abstract": \n{"title": \n')
    with pytest.raises(InputFileError, match="invalid JSON at line 1"):
        parse_file(path)


# --- seed ---------------------------------------------------------------------------------


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


# --- jsonl --------------------------------------------------------------------------------


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
    a, b = result.records
    assert a.title == "A title"
    assert a.abstract == f"{ABSTRACT}\nMore."
    assert a.authors == ["Ann Lee", "Bo Chen", "Cy Dee"]
    assert (a.year, a.venue, a.url, a.line) == (2019, "ICML", "https://x.org/a", 1)
    assert a.links == ["https://x.org/a", "https://x.org/a.pdf", "https://doi.org/10.1/abc",
                       "https://arxiv.org/abs/1234.5678"]
    assert (b.title, b.authors, b.year, b.line) == ("Caps", ["X Y", "Z W"], None, 6)
    problems = {p.line: p.reason for p in result.problems}
    assert set(problems) == {2, 4, 5, 7}
    assert "invalid JSON" in problems[2]
    assert problems[4] == NO_ABSTRACT
    assert "truncated last line" in problems[7]


def test_jsonl_detected_without_extension(tmp_path):
    text = json.dumps({"abstract": ABSTRACT}) + "\n" + json.dumps({"abstract": ABSTRACT2})
    path = write(tmp_path, "papers.txt", text)
    assert detect_format(path, text) == "jsonl"
    assert len(parse_file(path).records) == 2


# --- json ---------------------------------------------------------------------------------


def test_json_array_and_papers_object(tmp_path):
    papers = [{"name": "T1", "description": ABSTRACT, "author": ["A B"], "year": 2020.0,
               "conference": "ICLR", "link": "https://l"}, 7, {"title": "bad", "abstract": None}]
    result = parse_file(write(tmp_path, "a.json", json.dumps(papers)))
    assert result.format == "json"
    (rec,) = result.records
    assert (rec.title, rec.authors, rec.year, rec.venue, rec.url, rec.line) == (
        "T1", ["A B"], 2020, "ICLR", "https://l", 1)
    assert [str(p) for p in result.problems] == ["record 2: not a JSON object",
                                                 f"record 3: {NO_ABSTRACT}"]
    wrapped = parse_file(write(tmp_path, "b.json", json.dumps({"papers": papers})))
    assert len(wrapped.records) == 1


def test_json_without_papers(tmp_path):
    with pytest.raises(InputFileError, match="no papers found"):
        parse_file(write(tmp_path, "c.json", '{"items": 3}'))


# --- csv ----------------------------------------------------------------------------------


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
    a, b = result.records
    assert a.title == "A, title"
    assert a.abstract == f'{ABSTRACT}\nwith "quotes", commas\nand lines'
    assert (a.authors, a.year, a.venue, a.url, a.line) == (
        ["Ann Lee", "Bo Chen"], 2021, "ICML", "https://p", 2)
    assert a.links == ["https://p", "https://doi.org/10.5/x"]
    assert (b.line, b.year, b.authors) == (7, None, [])
    assert [(p.line, p.reason) for p in result.problems] == [(6, NO_ABSTRACT)]


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


# --- backup -------------------------------------------------------------------------------


def _backup_paper(**changes):
    paper = {
        "id": "0123456789abcdef", "title": "T", "title_source": "edited", "abstract": ABSTRACT,
        "venue": "ICML", "year": 2025, "authors": ["A B"], "links": ["https://a"],
        "code_links": ["https://github.com/x/y"], "method": None, "sources": ["seed"],
        "added_at": "2025-01-01T00:00:00Z", "updated_at": "2025-01-02T00:00:00Z",
        "read": True, "starred": False, "tags": ["rl"], "note": "# Note", "note_updated_at": None,
        "highlights": [{"start": 3, "end": 8, "quote": ABSTRACT[3:8], "color": "yellow",
                        "comment": "hm"}],
    }
    paper.update(changes)
    return paper


def test_backup_round_trip_and_validation(tmp_path):
    data = {
        "format": "reader-backup", "version": 1, "exported_at": "2025-01-03T00:00:00Z",
        "papers": [
            _backup_paper(),
            _backup_paper(read="yes"),
            _backup_paper(highlights=[{"start": 5, "end": 999}]),
            _backup_paper(tags="rl"),
            _backup_paper(abstract=""),
            _backup_paper(title_source="guessed"),
        ],
        "saved_searches": [{"name": "RL", "query": "tag:rl"}, {"name": 3}],
    }
    result = parse_file(write(tmp_path, "backup.json", json.dumps(data)))
    assert result.format == "backup"
    (rec,) = result.records
    assert rec.backup is not None and rec.backup["tags"] == ["rl"] and rec.backup["read"] is True
    assert rec.backup["highlights"][0]["comment"] == "hm"
    assert (rec.title, rec.year, rec.venue, rec.authors) == ("T", 2025, "ICML", ["A B"])
    assert result.saved_searches == [{"name": "RL", "query": "tag:rl"}]
    reasons = [str(p) for p in result.problems]
    assert reasons == [
        "record 2: read must be true or false",
        "record 3: highlight 1: range 5-999 is outside the abstract",
        "record 4: tags must be a list of text",
        f"record 5: {NO_ABSTRACT}",
        "record 6: title_source must be one of derived, imported, edited",
        "saved search 2: needs a text name and query",
    ]


def test_backup_newer_version_rejected(tmp_path):
    data = {"format": "reader-backup", "version": 2, "papers": []}
    with pytest.raises(InputFileError, match="version 2 is newer"):
        parse_file(write(tmp_path, "b.json", json.dumps(data)))


def test_empty_backup_is_fine(tmp_path):
    data = {"format": "reader-backup", "version": 1, "papers": [],
            "saved_searches": [{"name": "x", "query": "y"}]}
    result = parse_file(write(tmp_path, "b.json", json.dumps(data)))
    assert result.records == [] and result.saved_searches == [{"name": "x", "query": "y"}]


# --- field helpers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "year"),
    [(2019, 2019), ("2019", 2019), ("May 2001", 2001), (1850, None), ("12345", None),
     (None, None), (True, None), ("n.d.", None), (2020.0, 2020)],
)
def test_parse_year(value, year):
    assert parse_year(value) == year


def test_split_authors():
    assert split_authors("A B;C D ; E  F") == ["A B", "C D", "E F"]
    assert split_authors("Smith, J. and Doe, K.") == ["Smith, J.", "Doe, K."]
    assert split_authors([{"given": "Ann", "family": "Lee"}, "", None]) == ["Ann Lee"]
    assert split_authors("Alexander Anderson") == ["Alexander Anderson"]


# --- real corpora -------------------------------------------------------------------------


@pytest.mark.corpus
def test_real_jsonl_is_fast():
    path = corpus(ML / "papers.jsonl")
    start = time.perf_counter()
    result = parse_file(path)
    elapsed = time.perf_counter() - start
    assert result.format == "jsonl"
    assert len(result.records) == 50_090 and result.problems == []
    assert elapsed < 10, f"{elapsed:.1f}s"
    first = result.records[0]
    assert first.title and first.authors and first.year and first.venue and first.url
    assert sum(r.year is None for r in result.records) == 0


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
    assert all(r.title and len(r.authors) >= 1 and r.url for r in result.records)
    assert all(";" not in a for r in result.records for a in r.authors)


# --- RIS and BibTeX -----------------------------------------------------------------------


def test_ris_fixture(tmp_path):
    text = (
        "1.\nTY  - JOUR\nTI  - A RIS title\nAU  - Lee, Ann\nA1  - Chen, Bo\nPY  - 2019///\n"
        f"JO  - Journal X\nAB  - {ABSTRACT}\nsecond paragraph\nDO  - 10.1/x\nUR  - file:///local.pdf\n"
        "ER  -\n\nTY  - JOUR\nTI  - No abstract\nER  - \n"
        f"TY  - JOUR\nTI  - Cut off\nAB  - {ABSTRACT2}\n"
    )
    result = parse_file(write(tmp_path, "x.txt", text))
    assert result.format == "ris"
    (rec,) = result.records
    assert (rec.title, rec.authors, rec.year, rec.venue, rec.line) == (
        "A RIS title", ["Lee, Ann", "Chen, Bo"], 2019, "Journal X", 2)
    assert rec.abstract == f"{ABSTRACT}\nsecond paragraph"
    assert rec.links == ["https://doi.org/10.1/x"]
    assert [(p.line, p.reason) for p in result.problems] == [
        (14, NO_ABSTRACT), (17, "record not closed with ER (truncated file?)")]


def test_bibtex_fixture(tmp_path):
    text = (
        "% comment\n@string{jmlr = \"Journal of {ML} Research\"}\n"
        "@Article{a1,\n  title = {The {B}ayesian M\\\"{o}del of $\\ell_1$},\n"
        "  author = {M\\\"ollenhoff, Thomas and van der Berg, Jr, Jan and Ann Lee},\n"
        f"  journal = jmlr,\n  year = 2016,\n  abstract = {{{ABSTRACT} Caf\\'e.}},\n"
        "  doi = {10.5/y}, eprint = {1234.5678}, archivePrefix = {arXiv}\n}\n}\n"
        "@inproceedings{broken,\n  title = {Oops {unbalanced},\n  abstract = {x}\n}\n\n"
        "@misc{none, title = {No abstract}}\n"
    )
    result = parse_file(write(tmp_path, "refs.bib", text))
    assert result.format == "bibtex"
    (rec,) = result.records
    assert rec.title == "The Bayesian Mödel of $\\ell_1$"
    assert rec.authors == ["Thomas Möllenhoff", "Jan van der Berg Jr", "Ann Lee"]
    assert (rec.venue, rec.year, rec.line) == ("Journal of ML Research", 2016, 3)
    assert rec.abstract == f"{ABSTRACT} Café."
    assert rec.links == ["https://doi.org/10.5/y", "https://arxiv.org/abs/1234.5678"]
    reasons = {p.line: p.reason for p in result.problems}
    assert set(reasons) == {12, 17}
    assert "skipped" in reasons[12] and reasons[17] == NO_ABSTRACT


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "count"),
    [("asreview_baseline.ris", 98), ("asreview_baseline_zotero.ris", 98),
     ("asreview_scopus.ris", 6), ("asreview_embase.ris", 6), ("asreview_ovid_psycinfo.ris", 6),
     ("asreview_proquest.ris", 6), ("asreview_pubmed_zotero.ris", 6),
     ("asreview_web_of_science.txt", 10)],
)
def test_real_ris(name, count):
    result = parse_file(corpus(CORPORA / "ris_csl" / name))
    assert result.format == "ris"
    assert len(result.records) == count
    assert all(p.reason == NO_ABSTRACT for p in result.problems)
    assert all(r.title and r.authors and r.year for r in result.records)


@pytest.mark.corpus
def test_real_bibtex_pmlr():
    result = parse_file(corpus(CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib"))
    assert result.format == "bibtex"
    assert len(result.records) == 216 and result.problems == []  # despite the stray "}"
    assert all(r.venue == "AISTATS" and r.year == 2018 for r in result.records)
    assert any("Möllenhoff" in a for r in result.records for a in r.authors)
    assert any("$" in r.abstract for r in result.records)  # math kept as LaTeX source
    assert any(r.title.startswith("Growth-Optimal Portfolio") for r in result.records)


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "min_records"),
    [("pmlr_v54_aistats2017.bib", 167), ("bbt_papers3_user_library_issue1296.bib", 1250),
     ("bbt_jabref_user_library_issue97.bib", 450), ("bbt_mendeley_user_export.bib", 300)],
)
def test_real_bibtex_user_libraries(name, min_records):
    result = parse_file(corpus(CORPORA / "bibtex" / name))
    assert len(result.records) >= min_records
    assert not any("\\\"" in a or "{" in a for r in result.records for a in r.authors)
    skipped = [p for p in result.problems if p.reason != NO_ABSTRACT]
    assert len(skipped) <= 30  # genuinely malformed entries only


def test_arxiv_atom_feed(tmp_path):
    feed = CORPORA / "arxiv_atom" / "arxiv_api_query_all_science_2019.xml"
    if not feed.exists():
        pytest.skip("shared corpus not available")
    result = parse_file(feed)
    assert result.format == "arxiv" and len(result.records) == 10 and not result.problems
    second = result.records[1]
    assert second.title.startswith("Report on a Boston University Conference")
    assert second.authors == ["Peter Garik", "Yann Benétreau-Dupin"] and second.year == 2015
    assert "\n" not in second.abstract and second.abstract.startswith("This is an editorial report")
    assert second.url == "http://arxiv.org/abs/1503.01162v1" and second.line == 33


def test_broken_atom_names_the_line(tmp_path):
    path = tmp_path / "feed.xml"
    path.write_text('<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n<entry><title>x</entry>\n',
                    encoding="utf-8")
    with pytest.raises(InputFileError) as err:
        parse_file(path)
    assert err.value.line == 3
