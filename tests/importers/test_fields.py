"""Field helpers: years and author lists."""

from __future__ import annotations

import pytest

from reader.importers.fields import parse_year, split_authors


@pytest.mark.parametrize(
    ("value", "year"),
    [(2019, 2019), ("2019", 2019), ("May 2001", 2001), (1850, 1850), (999, None), ("12345", None),
     (None, None), (True, None), ("n.d.", None), (2020.0, 2020)],
)
def test_parse_year(value, year):
    assert parse_year(value) == year


def test_split_authors():
    assert split_authors("A B;C D ; E  F") == ["A B", "C D", "E F"]
    assert split_authors("Smith, J. and Doe, K.") == ["Smith, J.", "Doe, K."]
    assert split_authors([{"given": "Ann", "family": "Lee"}, "", None]) == ["Ann Lee"]
    assert split_authors("Alexander Anderson") == ["Alexander Anderson"]
