"""Counted nouns in user-facing text: "1 paper", "2 papers", "12,345 papers" (never "1 papers")."""

from __future__ import annotations

# Nouns whose plural is not noun + "s".
IRREGULAR = {"duplicate": "duplicates", "match": "matches", "search": "searches", "library": "libraries",
             "directory": "directories", "entry": "entries", "copy": "copies"}


def plural(noun: str, n: int) -> str:
    """`noun` for a count of `n` (1 → singular, anything else → plural)."""
    if n == 1:
        return noun
    return IRREGULAR.get(noun, noun + "s")


def count_noun(n: int, noun: str, *, grouped: bool = True) -> str:
    """ "1 paper", "0 papers", "2,356 papers" (`grouped`: thousands separated by commas)."""
    return f"{n:,} {plural(noun, n)}" if grouped else f"{n} {plural(noun, n)}"
