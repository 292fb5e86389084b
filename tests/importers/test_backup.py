"""Reader's JSON backup reader: field-by-field validation."""

from __future__ import annotations

import json

import pytest

from reader.errors import InputFileError
from reader.importers import parse_file

from .helpers import ABSTRACT, write


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
        "record 5: highlight 1: range 3-8 is outside the abstract",  # title-only papers are kept
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
