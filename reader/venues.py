"""Venues: one name per journal or conference, however an entry spells it.

General rules, no list of venues: LaTeX braces, years ('15, 2015), ordinals (33rd,
twenty-seventh), "Proceedings of the", "Annual" and edition words are folded away; an acronym
the venue names itself by ("CHI '15: Proceedings of ...", "... (UIST)") is its key; an
inverted IEEE name ("Biomedical Engineering, IEEE Transactions on") is put back in order. A long
name that an acronym-named venue spells out joins that acronym, and an abbreviated name
("J. Mach. Learn. Res.") joins the full name it abbreviates word by word (`fold_keys`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .identity import fold

_ORDINAL_WORDS = (
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth thirtieth fortieth "
    "fiftieth"
).split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORDINAL = re.compile(
    r"\b(?:\d+(?:st|nd|rd|th)|(?:(?:" + "|".join(_TENS) + r")[\s-]?)?(?:" + "|".join(_ORDINAL_WORDS)
    + r"))\b", re.IGNORECASE)
_YEAR = re.compile(r"(?:'|’|\b)(?:19|20)?\d{2}\b(?=\s*[:)]|\s|$)|\b(?:19|20)\d{2}\b")
_LEAD_ACRONYM = re.compile(r"^\s*([A-Za-z][\w&+-]*[A-Z][\w&+-]*|[A-Z]{2,}\w*)\s*(?:'|’)\s?\d{2}\b\s*:?")
_LEAD_ACRONYM_YEAR = re.compile(r"^\s*([A-Z][\w&+-]*[A-Z][\w&+-]*?)\s*(?:(?:'|’)?\d{2}|(?:19|20)\d{2})\s*:")
_PAREN_ACRONYM = re.compile(r"\(\s*([A-Z][\w&+-]*[A-Z][\w&+-]*)(?:\s*(?:'|’)?\s*\d{2,4})?\s*\)?\s*$")
_ACRONYM_YEAR = re.compile(r"(?<=[A-Za-z])(?:'|’)?(?:(?:19|20)\d{2}|\d{2})$")
_PROCEEDINGS = re.compile(r"\b(?:in\s+)?(?:the\s+)?(?:proceedings?|proc\.?)\s*(?:of\s+)?(?:the\s+)?",
                          re.IGNORECASE)
_FILLER = re.compile(r"\b(?:annual|vol(?:ume)?\.?\s*\d+|no\.?\s*\d+|part\s+[ivx\d]+)\b", re.IGNORECASE)
_INVERTED = re.compile(r"^(.+?),\s*((?:IEEE|ACM|IEE|IET)\b.*\b(?:on|of|for))\s*$")
_SIDE_TRACKS = ("extended abstracts", "adjunct", "companion", "workshops", "workshop", "demos",
                "posters", "doctoral consortium")
_STOP = frozenset("of the and on in for a an to at & de der und".split())


@dataclass(frozen=True)
class VenueName:
    """One spelling of a venue: its key (what groups) and the name shown for it."""

    key: str
    display: str
    long_key: str = ""  # the long name an acronym-named venue spells out ("" if none)


def _tidy(text: str) -> str:
    text = text.replace("{", "").replace("}", "").replace("\\&", "&").replace("\\", "")
    return " ".join(text.split()).strip(" ,.;:-")


def _long_form(text: str) -> str:
    """The name without years, ordinals, "Proceedings of the" and volume words."""
    inverted = _INVERTED.match(text)
    if inverted:
        text = f"{inverted.group(2)} {inverted.group(1)}"
    text = _PROCEEDINGS.sub(" ", text)
    text = _YEAR.sub(" ", text)
    text = _ORDINAL.sub(" ", text)
    text = _FILLER.sub(" ", text)
    text = re.sub(r"\(\s*\)|\(\s*$", " ", text)
    return " ".join(text.split()).strip(" ,.;:-'’")


def _side_track(text: str) -> str:
    low = text.casefold()
    return next((t for t in _SIDE_TRACKS if t in low), "")


@lru_cache(maxsize=65536)
def venue_name(raw: str) -> VenueName:
    """The key and shown name of one venue spelling ('' key for no venue)."""
    text = _tidy(raw)
    if not text:
        return VenueName("", "")
    acronym, rest = "", text
    for pattern in (_LEAD_ACRONYM, _LEAD_ACRONYM_YEAR):
        lead = pattern.match(text)
        if lead:
            acronym, rest = lead.group(1), text[lead.end():]
            break
    if not acronym:
        paren = _PAREN_ACRONYM.search(text)
        if paren and paren.start() > 0:
            acronym, rest = paren.group(1), text[:paren.start()]
    long = _long_form(rest)
    if acronym:
        acronym = _ACRONYM_YEAR.sub("", acronym) or acronym  # "TEI14", "ISWC'03"
        track = _side_track(rest)
        shown = f"{acronym} {track.title()}" if track else acronym
        long_key = "" if track else fold(long)
        return VenueName(fold(shown), shown, long_key)
    shown = long or text
    return VenueName(fold(shown), shown)


def _initials(key: str) -> tuple[str, ...]:
    return tuple(w[0] for w in key.split() if w not in _STOP)


def _abbreviates(short: str, full: str) -> bool:
    """Each word of `short` begins the matching word of `full` (stop words aside)."""
    a = [w for w in short.split() if w not in _STOP]
    b = [w for w in full.split() if w not in _STOP]
    return len(a) == len(b) >= 2 and a != b and all(y.startswith(x) for x, y in zip(a, b, strict=True))


def fold_keys(counted: Iterable[tuple[VenueName, int]]) -> dict[str, str]:
    """Key -> the key it joins: a long name spelled out by acronym-named venues joins the
    acronym most of its papers use; an abbreviation joins the one full name it abbreviates."""
    pairs = list(counted)
    names = [n for n, _ in pairs]
    acronyms = {n.key for n in names if n.long_key}
    alias: dict[str, str] = {}
    spelled: dict[str, Counter[str]] = {}
    for n, count in pairs:
        if n.long_key and n.long_key != n.key and n.long_key not in acronyms:
            spelled.setdefault(n.long_key, Counter())[n.key] += count
    for long_key, by_acronym in spelled.items():
        alias[long_key] = by_acronym.most_common(1)[0][0]
    by_initials: dict[tuple[str, ...], set[str]] = {}
    for key in {n.key for n in names if n.key}:
        by_initials.setdefault(_initials(key), set()).add(key)
    for keys in by_initials.values():
        if len(keys) < 2:
            continue
        for short in keys:
            fulls = [k for k in keys if _abbreviates(short, k)]
            if len(fulls) == 1:
                alias.setdefault(short, alias.get(fulls[0], fulls[0]))
    # One step is enough for the two rules, but resolve chains anyway (never a loop).
    for key in list(alias):
        seen, target = {key}, alias[key]
        while target in alias and target not in seen:
            seen.add(target)
            target = alias[target]
        alias[key] = target
    return {k: v for k, v in alias.items() if k != v}


@dataclass(frozen=True)
class Venue:
    """A venue as the sidebar lists it."""

    key: str
    name: str
    count: int


def group_venues(spellings: Iterable[tuple[str, str, int]]) -> list[Venue]:
    """Venues from (venue_key, raw venue, papers) rows, most papers first: each shown by its
    commonest own spelling (one whose name is the key), else its commonest folded-in one."""
    counts: Counter[str] = Counter()
    own: dict[str, Counter[str]] = {}
    other: dict[str, Counter[str]] = {}
    for key, raw, n in spellings:
        if not key:
            continue
        counts[key] += n
        display = venue_name(raw).display
        (own if fold(display) == key else other).setdefault(key, Counter())[display] += n
    out = [Venue(k, (own.get(k) or other[k]).most_common(1)[0][0], c) for k, c in counts.items()]
    out.sort(key=lambda v: (-v.count, v.name.casefold()))
    return out
