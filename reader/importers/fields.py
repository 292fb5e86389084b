"""Clean raw field values (title, authors, year, abstract, links) and build Records from mappings."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from reader.models import NO_TITLE_OR_ABSTRACT, YEAR_MIN, Problem, Record

MIN_ABSTRACT_CHARS = 20
NO_ABSTRACT = NO_TITLE_OR_ABSTRACT  # an entry without an abstract is kept when it has a title

_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_AUTHOR_SPLIT = re.compile(r"\s*;\s*|\s+and\s+")

# Canonical field -> accepted source keys (lower-case), in priority order.
ALIASES: dict[str, tuple[str, ...]] = {
    "abstract": ("abstract", "summary", "description"),
    "title": ("title", "name"),
    "authors": ("authors", "author"),
    "year": ("year", "date"),
    "venue": ("venue", "conference", "booktitle", "journal"),
    # "site" and "oa" are what papercopilot paperlists dumps call the paper page.
    "url": ("url", "link", "site", "oa"),
}
LINK_KEYS: tuple[str, ...] = ("url", "link", "site", "pdf", "doi", "arxiv", "oa")
# Source key -> (field, priority) for every alias; a record is read by its own keys (few),
# not by probing every alias (the cost of a 50k-record file's parse was mostly that).
_ALIAS_OF: dict[str, list[tuple[str, int]]] = {}
for _field, _keys in ALIASES.items():
    for _rank, _key in enumerate(_keys):
        _ALIAS_OF.setdefault(_key, []).append((_field, _rank))
_KNOWN_KEYS = frozenset(_ALIAS_OF) | frozenset(LINK_KEYS)


def collapse(value: Any) -> str | None:
    """A one-line string with single spaces, or None when empty."""
    if value is None:
        return None
    text = " ".join(str(value).split())  # faster than a regex on 50k-record files
    return text or None


def clean_abstract(value: Any) -> str | None:
    """The abstract exactly as written, minus surrounding whitespace and with LF line ends."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = str(value)
    text = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    return text or None


def abstract_or_empty(text: str | None) -> str:
    """The cleaned abstract, or "" when there is none worth keeping (under MIN_ABSTRACT_CHARS):
    the entry is then a title-only paper."""
    return text if text and is_abstract(text) else ""


def is_abstract(text: str | None) -> bool:
    """True when there are at least MIN_ABSTRACT_CHARS non-space characters."""
    if not text or len(text) < MIN_ABSTRACT_CHARS:
        return False
    # Look at a prefix first: almost every real abstract passes there.
    for chunk in (text[:200], text):
        if len("".join(chunk.split())) >= MIN_ABSTRACT_CHARS:
            return True
    return False


def plausible_year(year: int) -> bool:
    """From 1000 (old papers are cited too: Darwin 1859) to next year (in press, forthcoming)."""
    return YEAR_MIN <= year <= date.today().year + 1


def parse_year(value: Any) -> int | None:
    """A plausible year (plausible_year) from an int, '2019' or a date like '2019-05-01'; else None."""
    return year_and_note(value)[0]


def year_and_note(value: Any) -> tuple[int | None, str | None]:
    """(parse_year(value), why a value that was given is ignored: "year -5 ignored")."""
    if value is None or isinstance(value, bool) or value == "":
        return None, None
    if isinstance(value, int):
        year = value
    elif isinstance(value, float) and value.is_integer():
        year = int(value)
    else:
        text = str(value).strip()
        match = _YEAR.search(text)
        if not text:
            return None, None
        if not match:
            return None, f"year {_shown(text)} ignored"
        year = int(match.group(1))
    if plausible_year(year):
        return year, None
    return None, f"year {_shown(value)} ignored"


def _shown(value: Any) -> str:
    """A value as the note shows it: short, a huge number by its digits."""
    if isinstance(value, int) and len(str(abs(value))) > 24:
        return f"(a {len(str(abs(value))):,}-digit number)"
    text = str(value)
    return text if len(text) <= 30 else text[:27] + "…"


def split_authors(value: Any) -> list[str]:
    """Authors from a list (of names or CSL-style dicts) or a '; ' / ' and '-joined string."""
    if value is None:
        return []
    items: list[Any]
    if isinstance(value, list | tuple):
        items = list(value)
    else:
        items = _AUTHOR_SPLIT.split(str(value))
    if set(map(type, items)) <= {str}:  # most files: collapse() of each, at C level
        return list(filter(None, map(" ".join, map(str.split, items))))
    names: list[str] = []
    for item in items:
        if isinstance(item, Mapping):  # CSL-JSON: {"given": ..., "family": ...}; text parts only
            name = item.get("name")
            item = name if isinstance(name, str) and name.strip() else " ".join(
                item[k] for k in ("given", "family") if isinstance(item.get(k), str)
            )
        elif not isinstance(item, str | int | float):
            continue  # a nested list is not a name (and str() of deep nesting can recurse)
        name = collapse(item)
        if name:
            names.append(name)
    return names


def normalize_link(key: str, value: Any) -> str | None:
    """A link as a URL where we can tell: bare DOIs and arXiv ids become resolver URLs."""
    text = collapse(value)
    if not text:
        return None
    if "://" in text:
        return text
    if key == "doi":
        return "https://doi.org/" + text.removeprefix("doi:")
    if key == "arxiv":
        return "https://arxiv.org/abs/" + text.removeprefix("arXiv:").removeprefix("arxiv:")
    return text


def _names_ok(value: Any) -> bool:
    """Authors as a string, or a list of names (strings or CSL-style objects); None is fine."""
    if value is None or isinstance(value, str):
        return True
    if isinstance(value, list | tuple):
        return set(map(type, value)) <= {str} or \
            all(item is None or isinstance(item, str | Mapping) for item in value)
    return False


def _firsts(data: Mapping[str, Any], present: frozenset[str]) -> dict[str, Any]:
    """Each field's first non-empty value among its aliases, looking only at the keys
    `present` in data."""
    found: dict[str, tuple[int, Any]] = {}
    for key in present:
        value = data[key]
        if value in (None, "", []):
            continue
        for field, rank in _ALIAS_OF.get(key, ()):
            had = found.get(field)
            if had is None or rank < had[0]:
                found[field] = (rank, value)
    return {field: value for field, (_, value) in found.items()}


def record_from_mapping(
    raw: Mapping[str, Any],
    *,
    line: int | None,
    where: str | None = None,
    defaults: Mapping[str, Any] | None = None,
) -> Record | Problem:
    """A Record from a dict with (case-insensitive, aliased) paper fields, or a Problem saying why not.

    `where` prefixes problem reasons (e.g. "record 17"); `defaults` fills missing venue/year.
    """
    prefix = f"{where}: " if where else ""
    data = raw if all(map(str.islower, raw)) else {str(k).lower(): v for k, v in raw.items()}
    present = _KNOWN_KEYS.intersection(data)
    firsts = _firsts(data, present)
    abstract_value = firsts.get("abstract")
    if abstract_value is not None and not isinstance(abstract_value, str | int | float):
        return Problem(line, f"{prefix}abstract is not text")
    abstract = abstract_or_empty(clean_abstract(abstract_value))
    title_value = firsts.get("title")
    title = collapse(title_value) if isinstance(title_value, str | int | float) else None
    venue_value = firsts.get("venue")
    venue = collapse(venue_value) if isinstance(venue_value, str | int | float) else None
    authors_value = firsts.get("authors")
    if not _names_ok(authors_value):
        return Problem(line, f"{prefix}authors must be text or a list of names")
    # An implausible year (-5, 3000, 2**63) is left out and said so in the import summary.
    year, year_note = year_and_note(firsts.get("year"))
    if defaults:
        venue = venue or defaults.get("venue")
        year = year or defaults.get("year")
    links: list[str] = []
    for key in LINK_KEYS:
        if key not in present:
            continue
        value = data[key]
        if isinstance(value, str | int | float):
            link = normalize_link(key, value)
            if link and link not in links:
                links.append(link)
    url_value = firsts.get("url")
    url = collapse(url_value) if isinstance(url_value, str) else None
    doi = data.get("doi") if "doi" in present else None
    arxiv = data.get("arxiv") if "arxiv" in present else None
    return Record(
        abstract=abstract,
        title=title,
        authors=split_authors(authors_value),
        year=year,
        venue=venue,
        url=url or (links[0] if links else None),
        links=links,
        line=line,
        notes=[year_note] if year_note else [],
        doi=doi if isinstance(doi, str) else None,
        arxiv=arxiv if isinstance(arxiv, str) else None,
    )
