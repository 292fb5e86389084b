"""Author names taken apart for the citation formats: given, particle (von), family, suffix (Jr).

Reader stores names as the sources gave them, mostly 'First von Last Jr' (BibTeX's are turned
round on import), sometimes 'Last, First' (RIS). BibTeX's rule decides the particle: the
lower-case words between the given names and the family name ('Laurens van der Maaten').
"""

from __future__ import annotations

from dataclasses import dataclass

_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())


@dataclass(frozen=True)
class Name:
    given: str = ""
    particle: str = ""
    family: str = ""
    suffix: str = ""

    @property
    def single(self) -> bool:
        """One word only (an organisation, a mononym): no given name to separate."""
        return not (self.given or self.particle or self.suffix)


def split_name(author: str) -> Name:
    """The parts of one stored author name (never fails; an empty name gives an empty Name)."""
    if "," in author:
        parts = [p.strip() for p in author.split(",")]
        if len(parts) >= 3:  # 'von Last, Jr, First'
            von, family = _von(parts[0].split())
            return Name(given=", ".join(parts[2:]), particle=von, family=family, suffix=parts[1])
        von, family = _von(parts[0].split())
        return Name(given=parts[1], particle=von, family=family)
    words = author.split()
    suffix = ""
    if len(words) > 1 and words[-1].lower() in _SUFFIXES:
        suffix = words.pop()
    if len(words) <= 1:
        return Name(family=" ".join(words), suffix=suffix)
    given = [words[0]]
    rest = words[1:-1]
    while rest and not rest[0][:1].islower():
        given.append(rest.pop(0))
    return Name(given=" ".join(given), particle=" ".join(rest), family=words[-1], suffix=suffix)


def _von(words: list[str]) -> tuple[str, str]:
    """'van der Maaten' -> ('van der', 'Maaten'): leading lower-case words are the particle."""
    i = 0
    while i < len(words) - 1 and words[i][:1].islower():
        i += 1
    return " ".join(words[:i]), " ".join(words[i:])


# Footnote marks sources leave on names ("Baker*" for equal contribution, "Li†"): no part of it.
_MARKS = " *\u2020\u2021\u00a7\u00b6\u2217\u22c6\u2051#"


def family_name(author: str) -> str:
    """The family name a short author form shows: "Daumé" for "Hal Daumé III" (not "III"),
    "Baker" for "Jane Baker*", "Vaswani" for "Vaswani, Ashish"."""
    cleaned = " ".join(w.strip(_MARKS) for w in author.split() if w.strip(_MARKS))
    family = split_name(cleaned).family.strip(_MARKS)
    return family or cleaned


def short_authors(first: str, count: int) -> str:
    """ "Vaswani et al." for a paper with several authors, the family name alone for one."""
    name = family_name(first) if first.strip() else ""
    if not name:
        return ""
    return f"{name} et al." if count > 1 else name
