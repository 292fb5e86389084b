"""Round-trip properties: a paper written by each format's reference writer imports back unchanged.

The writers are the formats' own libraries or the standard library (rispy, bibtexparser's writer,
csv, json), so these tests check Reader's parsers against an independent implementation of the
format, for any title, abstract, authors and year in the formats' common ground.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import date

import bibtexparser
import rispy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader.importers import parse_text
from reader.models import Record

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Words of letters (accented and Greek too), digits and sentence punctuation: what every format
# carries verbatim. LaTeX specials ({ } \ $ % & ~ ^ _ #) are the BibTeX tests' own business.
_WORD = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüñçøåßαβγ"),
                min_size=1, max_size=12)
_PUNCT = st.sampled_from(["", ",", ".", ":", ";", "?", "!", "-", "'s"])


def _sentence(min_words: int, max_words: int) -> st.SearchStrategy[str]:
    words = st.lists(st.tuples(_WORD, _PUNCT).map("".join), min_size=min_words, max_size=max_words)
    return words.map(" ".join)


# A name word "and" (any case) separates names in BibTeX: the test writes the list raw, so a
# generated "0 And" would be two authors there by the format's own rule (the exporter braces it).
_NAME_WORD = _WORD.filter(lambda w: w.lower() != "and")
_AUTHOR = st.tuples(_NAME_WORD, _NAME_WORD).map(lambda p: f"{p[0].capitalize()} {p[1].capitalize()}")
_PAPER = st.fixed_dictionaries({
    "title": _sentence(2, 12),
    "abstract": _sentence(12, 60).filter(lambda text: len(text) >= 40),  # the importers' minimum is 20
    "authors": st.lists(_AUTHOR, min_size=1, max_size=5, unique=True),
    "year": st.integers(1000, date.today().year + 1),  # what importers take (fields.plausible_year)
})


def _one(text: str, name: str) -> Record:
    result = parse_text(text, name)
    assert len(result.records) == 1, (result.records, result.problems)
    return result.records[0]


def _same(record: Record, paper: dict) -> None:
    assert record.title == paper["title"]
    assert record.abstract == paper["abstract"]
    assert record.year == paper["year"]
    assert record.authors == paper["authors"]


@SETTINGS
@given(_PAPER)
def test_json_and_jsonl_round_trip(paper):
    _same(_one(json.dumps([paper]), "x.json"), paper)
    _same(_one(json.dumps(paper) + "\n", "x.jsonl"), paper)


@SETTINGS
@given(_PAPER, st.sampled_from([",", ";", "\t"]))
def test_csv_round_trip(paper, delimiter):
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter)
    writer.writerow(["title", "abstract", "authors", "year"])
    writer.writerow([paper["title"], paper["abstract"], "; ".join(paper["authors"]), paper["year"]])
    _same(_one(out.getvalue(), "x.csv"), paper)


@SETTINGS
@given(_PAPER)
def test_ris_round_trip(paper):
    entry = {"type_of_reference": "JOUR", "title": paper["title"], "abstract": paper["abstract"],
             "authors": paper["authors"], "year": str(paper["year"])}
    _same(_one(rispy.dumps([entry]), "x.ris"), paper)


@SETTINGS
@given(_PAPER)
def test_bibtex_round_trip(paper):
    library = bibtexparser.Library()
    library.add(bibtexparser.model.Entry("article", "key1", [
        bibtexparser.model.Field("title", paper["title"]),
        bibtexparser.model.Field("abstract", paper["abstract"]),
        bibtexparser.model.Field("author", " and ".join(paper["authors"])),
        bibtexparser.model.Field("year", str(paper["year"])),
    ]))
    _same(_one(bibtexparser.write_string(library), "x.bib"), paper)


def test_a_braced_author_list_is_one_name():
    text = ("@article{k, title={T}, author={{Barnes and Noble} and Ada Lovelace},"
            " abstract={A long enough abstract about parsing author lists in BibTeX files.}}")
    assert _one(text, "x.bib").authors == ["Barnes and Noble", "Ada Lovelace"]


@SETTINGS
@given(st.lists(_PAPER, min_size=1, max_size=6))
def test_every_record_of_a_file_comes_back_in_order(papers):
    result = parse_text(json.dumps(papers), "x.json")
    assert [r.abstract for r in result.records] == [p["abstract"] for p in papers]
    assert [r.line for r in result.records] == list(range(1, len(papers) + 1))
