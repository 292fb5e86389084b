"""Counted nouns in user-facing text: "1 paper", "2 papers", "12,345 papers" (never "1 papers")."""

from __future__ import annotations

IRREGULAR = {"person": "people"}


def plural(noun: str, n: int) -> str:
    """`noun` for a count of `n` (1 → singular, anything else → plural); the last word of a
    phrase ("new paper", "title match") takes the ending."""
    if n == 1:
        return noun
    head, _, last = noun.rpartition(" ")
    if last in IRREGULAR:
        last = IRREGULAR[last]
    elif last.endswith(("ch", "sh", "s", "x", "z")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u"):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def count_noun(n: int, noun: str, *, grouped: bool = True) -> str:
    """ "1 paper", "0 papers", "2,356 papers" (`grouped`: thousands separated by commas)."""
    return f"{n:,} {plural(noun, n)}" if grouped else f"{n} {plural(noun, n)}"


def share(part: int, whole: int, what: str) -> str:
    """ "12/3,278 read": both counts grouped like count_noun's ("0/3278 read" stood beside
    "3,278 papers" in the status bar)."""
    return f"{part:,}/{whole:,} {what}"
