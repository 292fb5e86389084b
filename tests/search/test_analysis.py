"""The indexing analysis (schema.analyze, with its fast word patterns) yields exactly what the query-time analyzer does."""

from __future__ import annotations

import random

import pytest

from reader.search.schema import _ASCII_WORD_RE, _FAST_WORD_RE, _WORD_RE, analyze, stem_analyzer

TEXTS = [
    "We propose GraphNet-2, i.e. a model for e.g. U.S. data_sets (v1.2.3) at 3.5x speed.",
    "Énergie libre: Müller's α-divergence and the KL… ÜBER 2.0.",
    "a..b .c d. e.f. x_y__z 12.34.56 Kelvin \u212a and dotless \u0131 Straße",
    "",
    "...",
]


def _reference(text: str) -> list[str]:
    return [t.text for t in stem_analyzer()(text)]


@pytest.mark.parametrize("text", TEXTS)
def test_analyze_matches_the_query_analyzer(text: str) -> None:
    assert analyze(text) == _reference(text)


def test_fast_word_patterns_find_the_same_words() -> None:
    rng = random.Random(7)
    alphabet = "ab.Z_9 .-,\n.éß"
    for _ in range(20000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))).lower()
        assert _FAST_WORD_RE.findall(s) == _WORD_RE.findall(s), s
        if s.isascii():
            assert _ASCII_WORD_RE.findall(s) == _WORD_RE.findall(s), s
