"""arXiv Atom importer (defusedxml)."""

from __future__ import annotations

import pytest

from reader.errors import InputFileError
from reader.importers import parse_file

from .helpers import CORPORA


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
