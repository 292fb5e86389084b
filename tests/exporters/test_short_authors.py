"""The short author form the list shows ("Vaswani et al."): a suffix or a footnote mark is never the
family name (issue 30: "III et al." for Hal Daumé III, "Baker* et al."); counts read alike."""

from __future__ import annotations

import pytest

from reader.exporters.names import family_name, short_authors
from reader.plural import count_noun, share


@pytest.mark.parametrize(("first", "count", "shown"), [
    ("Hal Daumé III", 4, "Daumé et al."),
    ("Martin Luther King Jr.", 1, "King"),
    ("Jane Baker*", 2, "Baker et al."),
    ("Baker*", 3, "Baker et al."),
    ("Wei Li\u2020", 2, "Li et al."),
    ("Vaswani, Ashish", 8, "Vaswani et al."),
    ("Ada Lovelace", 1, "Lovelace"),
    ("", 3, ""),
    ("*", 2, ""),
])
def test_short_authors(first: str, count: int, shown: str) -> None:
    assert short_authors(first, count) == shown


def test_family_name_keeps_a_comma_forms_family() -> None:
    assert family_name("Daumé III, Hal") == "Daumé III"
    assert family_name("de la Cruz, Ana") == "Cruz"


def test_counts_beside_each_other_are_grouped_alike() -> None:
    assert f"{count_noun(3278, 'paper')} · {share(0, 3278, 'read')}" == "3,278 papers · 0/3,278 read"
    assert count_noun(1, "labelled region") == "1 labelled region"
    assert count_noun(2, "labelled region") == "2 labelled regions"
