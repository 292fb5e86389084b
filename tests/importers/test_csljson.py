"""CSL-JSON import (Zotero / Better BibTeX exports): names, issued, container-title, DOI, keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.errors import InputFileError
from reader.importers.csljson import parse_csljson
from reader.importers.registry import detect

from .helpers import CORPORA

ABSTRACT = "We study how citation keys survive a round trip through reference managers."
ITEMS = [
    {"id": "smith2020keys", "type": "paper-conference", "title": "Keys that <i>last</i>",
     "author": [{"family": "Smith", "given": "Ann"}, {"family": "Maaten", "given": "Laurens",
                                                       "non-dropping-particle": "van der"},
                {"literal": "The Reader Team"}],
     "issued": {"date-parts": [["2020", 5, 1]]}, "container-title": "Proceedings of ICML",
     "DOI": "10.1000/abc", "URL": "https://example.org/p", "abstract": ABSTRACT, "keyword": "a, b"},
    {"id": "http://zotero.org/users/1/items/ABCD", "citation-key": "doe2019", "type": "article-journal",
     "title": "Second", "issued": {"raw": "2019"}, "abstract": ABSTRACT + " Again."},
    {"id": "3", "type": "webpage", "title": "No key", "abstract": ABSTRACT + " Third."},
    {"id": "4", "type": "book", "title": "No abstract"},
    "not an item",
]


def test_items_become_records_with_their_keys_and_types() -> None:
    result = parse_csljson(json.dumps(ITEMS), "x.json")
    first, second, third, bare = result.records
    assert (bare.title, bare.abstract) == ("No abstract", "")  # a title-only paper
    assert first.title == "Keys that last" and first.year == 2020 and first.venue == "Proceedings of ICML"
    assert first.authors == ["Ann Smith", "Laurens van der Maaten", "The Reader Team"]
    assert first.links == ["https://example.org/p", "https://doi.org/10.1000/abc"]
    assert (first.citation_key, first.entry_type) == ("smith2020keys", "inproceedings")
    assert (second.citation_key, second.entry_type, second.year) == ("doe2019", "article", 2019)
    assert (third.citation_key, third.entry_type) == (None, "misc")  # a number is not a key
    assert [str(p) for p in result.problems] == [
        "item 5: not a JSON object"]


def test_detected_before_plain_json(tmp_path: Path) -> None:
    text = json.dumps(ITEMS, indent=2)
    importer = detect("refs.json", text)
    assert importer is not None and importer.format == "csljson"
    assert detect("p.json", json.dumps([{"title": "t", "abstract": ABSTRACT}])).format == "json"
    # The same messages as the plain JSON importer: a cut file is called truncated, else the line.
    with pytest.raises(InputFileError, match="ends too early"):
        parse_csljson('[{"type": "book", "issued": ', "bad.json")
    with pytest.raises(InputFileError, match=r"invalid JSON .* at line 2"):
        parse_csljson('[{"type": "book",\n "issued": }]', "bad.json")


@pytest.mark.skipif(not (CORPORA / "ris_csl").exists(), reason="shared corpus not available")
def test_real_better_bibtex_files_are_recognised() -> None:
    for path in sorted((CORPORA / "ris_csl").glob("*.csl.json")):
        text = path.read_text(encoding="utf-8")
        assert detect(path, text).format == "csljson", path.name
        result = parse_csljson(text, str(path))
        # Their items have no abstracts (see the corpus README): each is a title-only paper.
        assert result.problems == [] and len(result.records) == len(json.loads(text))
        assert all(r.title and not r.abstract for r in result.records)
