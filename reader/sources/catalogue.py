"""The venue catalogue: which conferences and years Reader can open, and from which source.

A venue is a short lower-case name (`icml`, `aistats`, `acl`, `cvpr`, `iclr` ...). For each
source that serves it there is a *locator*: what that service calls one year of it.

- **pmlr**: a volume number (ICML 2025 is volume 267). Volumes cannot be guessed, so PMLR serves
  only the years in the tables below (checked against the PMLR URLs of the ML conference corpus
  where it has them: AISTATS 2007-2024, COLT 2011-2024, ICML 2013-2019, UAI 2019-2024, ACML
  2010-2024, AutoML 2022-2024).
- **openreview**: an API v2 venue id (`ICLR.cc/2025/Conference`); the pattern is the venue's own,
  so a year not listed (next year's ICLR) is still tried.
- **acl**: an ACL Anthology collection id (`2024.acl`, old style `P19`) and, for Findings, the
  volume in it (`2024.findings` volume `acl`); new-style ids are tried for any year from 2020.
- **cvf**: the CVF open access conference id (`CVPR2024`); the `/content/<ID>/` layout exists
  from 2021 on, so earlier years are not offered.

`candidates(name, year)` gives the (source, locator) pairs to try in order: the first that
serves the venue whole is used (`reader venue add icml 2025` takes PMLR, which has every
abstract; `--source openreview` takes OpenReview, which has oral/spotlight/poster)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from reader.errors import UsageError


@dataclass(frozen=True)
class Locator:
    """What one source calls one year of a venue."""

    source: str  # pmlr | openreview | acl | cvf
    ident: str  # volume number, venue id, collection id or CVF conference id
    volume: str = ""  # ACL: the volume inside the collection ("" = every volume)
    listed: bool = True  # False: guessed from the venue's pattern, tried but not promised


@dataclass(frozen=True)
class KnownVenue:
    """One conference: its catalogue name, the name shown, and its long name."""

    name: str  # lower-case key: "icml"
    short: str  # shown and stored as the papers' venue: "ICML"
    title: str  # "International Conference on Machine Learning"

    def label(self, year: int) -> str:
        """The collection the papers land in: "ICML 2025"."""
        return f"{self.short} {year}"


VENUES: dict[str, KnownVenue] = {v.name: v for v in (
    KnownVenue("icml", "ICML", "International Conference on Machine Learning"),
    KnownVenue("iclr", "ICLR", "International Conference on Learning Representations"),
    KnownVenue("neurips", "NeurIPS", "Conference on Neural Information Processing Systems"),
    KnownVenue("aistats", "AISTATS", "International Conference on Artificial Intelligence and Statistics"),
    KnownVenue("colt", "COLT", "Conference on Learning Theory"),
    KnownVenue("uai", "UAI", "Conference on Uncertainty in Artificial Intelligence"),
    KnownVenue("corl", "CoRL", "Conference on Robot Learning"),
    KnownVenue("acml", "ACML", "Asian Conference on Machine Learning"),
    KnownVenue("l4dc", "L4DC", "Learning for Dynamics and Control Conference"),
    KnownVenue("clear", "CLeaR", "Conference on Causal Learning and Reasoning"),
    KnownVenue("alt", "ALT", "International Conference on Algorithmic Learning Theory"),
    KnownVenue("automl", "AutoML", "International Conference on Automated Machine Learning"),
    KnownVenue("colm", "COLM", "Conference on Language Modeling"),
    KnownVenue("acl", "ACL", "Annual Meeting of the Association for Computational Linguistics"),
    KnownVenue("emnlp", "EMNLP", "Conference on Empirical Methods in Natural Language Processing"),
    KnownVenue("naacl", "NAACL", "Conference of the North American Chapter of the ACL"),
    KnownVenue("eacl", "EACL", "Conference of the European Chapter of the ACL"),
    KnownVenue("coling", "COLING", "International Conference on Computational Linguistics"),
    KnownVenue("findings-acl", "Findings of ACL", "Findings of the Association for Computational Linguistics: ACL"),
    KnownVenue("findings-emnlp", "Findings of EMNLP", "Findings of the Association for Computational Linguistics: EMNLP"),
    KnownVenue("findings-naacl", "Findings of NAACL", "Findings of the Association for Computational Linguistics: NAACL"),
    KnownVenue("findings-eacl", "Findings of EACL", "Findings of the Association for Computational Linguistics: EACL"),
    KnownVenue("cvpr", "CVPR", "IEEE/CVF Conference on Computer Vision and Pattern Recognition"),
    KnownVenue("iccv", "ICCV", "IEEE/CVF International Conference on Computer Vision"),
    KnownVenue("wacv", "WACV", "IEEE/CVF Winter Conference on Applications of Computer Vision"),
)}

# PMLR volume numbers, by venue and year.
PMLR: dict[str, dict[int, int]] = {
    "icml": {2013: 28, 2014: 32, 2015: 37, 2016: 48, 2017: 70, 2018: 80, 2019: 97, 2020: 119,
             2021: 139, 2022: 162, 2023: 202, 2024: 235, 2025: 267},
    "aistats": {2007: 2, 2009: 5, 2010: 9, 2011: 15, 2012: 22, 2013: 31, 2014: 33, 2015: 38,
                2016: 51, 2017: 54, 2018: 84, 2019: 89, 2020: 108, 2021: 130, 2022: 151,
                2023: 206, 2024: 238, 2025: 258},
    "colt": {2011: 19, 2012: 23, 2013: 30, 2014: 35, 2015: 40, 2016: 49, 2017: 65, 2018: 75,
             2019: 99, 2020: 125, 2021: 134, 2022: 178, 2023: 195, 2024: 247, 2025: 291},
    "uai": {2019: 115, 2020: 124, 2021: 161, 2022: 180, 2023: 216, 2024: 244, 2025: 286},
    "corl": {2017: 78, 2018: 87, 2019: 100, 2020: 155, 2021: 164, 2022: 205, 2023: 229, 2024: 270},
    "acml": {2010: 13, 2011: 20, 2012: 25, 2013: 29, 2014: 39, 2015: 45, 2016: 63, 2017: 77,
             2018: 95, 2019: 101, 2020: 129, 2021: 157, 2022: 189, 2023: 222, 2024: 260},
    "l4dc": {2020: 120, 2021: 144, 2022: 168, 2023: 211, 2024: 242, 2025: 283},
    "clear": {2022: 177, 2023: 213, 2024: 236, 2025: 275},
    "alt": {2017: 76, 2018: 83, 2019: 98, 2020: 117, 2021: 132, 2022: 167, 2023: 201, 2024: 237,
            2025: 272},
    "automl": {2022: 188, 2023: 224, 2024: 256},
}

# OpenReview API v2 venue ids: the pattern and the years known to be on API v2 (earlier years
# of these venues live on API v1, which Reader does not read).
OPENREVIEW: dict[str, tuple[str, range]] = {
    "iclr": ("ICLR.cc/{year}/Conference", range(2024, 2027)),
    "neurips": ("NeurIPS.cc/{year}/Conference", range(2023, 2026)),
    "icml": ("ICML.cc/{year}/Conference", range(2023, 2027)),
    "colm": ("colmweb.org/COLM/{year}/Conference", range(2024, 2026)),
    "corl": ("robot-learning.org/CoRL/{year}/Conference", range(2023, 2026)),
}

# ACL Anthology: collection id pattern, the years the event took place, old-style letter ids,
# and the volume inside the collection (Findings share one collection a year).
_ACL_OLD = {"acl": "P", "emnlp": "D", "naacl": "N", "eacl": "E", "coling": "C"}
ACL: dict[str, tuple[str, str, frozenset[int]]] = {
    "acl": ("{year}.acl", "", frozenset(range(2000, 2026))),
    "emnlp": ("{year}.emnlp", "", frozenset(range(2007, 2026))),  # D07 on; earlier ones are W volumes
    "naacl": ("{year}.naacl", "", frozenset({2001, 2003, 2004, 2006, 2007, 2009, 2010, 2012,
                                             2013, 2015, 2016, 2018, 2019, 2021, 2022, 2024, 2025})),
    "eacl": ("{year}.eacl", "", frozenset({2003, 2006, 2009, 2012, 2014, 2017, 2021, 2023, 2024})),
    "coling": ("{year}.coling", "", frozenset({2000, 2002, 2004, 2008, 2010, 2012, 2014, 2016, 2018,
                                               2020, 2022, 2024, 2025})),
    "findings-acl": ("{year}.findings", "acl", frozenset({2021, 2022, 2023, 2024, 2025})),
    "findings-emnlp": ("{year}.findings", "emnlp", frozenset({2020, 2021, 2022, 2023, 2024, 2025})),
    "findings-naacl": ("{year}.findings", "naacl", frozenset({2022, 2024, 2025})),
    "findings-eacl": ("{year}.findings", "eacl", frozenset({2023, 2024})),
}
ACL_NEW_STYLE_FROM = 2020
# Events published under another event's collection: LREC-COLING 2024 is `2024.lrec`, volume main.
ACL_SPECIAL: dict[tuple[str, int], tuple[str, str]] = {("coling", 2024): ("2024.lrec", "main")}

# CVF open access: the years the `/content/<ID>/` listing exists.
CVF: dict[str, frozenset[int]] = {
    "cvpr": frozenset({2021, 2022, 2023, 2024, 2025}),
    "iccv": frozenset({2021, 2023, 2025}),
    "wacv": frozenset({2021, 2022, 2023, 2024, 2025}),
}

SOURCE_ORDER = ("pmlr", "acl", "cvf", "openreview")


def _acl_ident(name: str, year: int) -> str:
    pattern = ACL[name][0]
    if year >= ACL_NEW_STYLE_FROM or name.startswith("findings"):
        return pattern.format(year=year)
    return f"{_ACL_OLD[name]}{year % 100:02d}"


def locators(name: str, year: int, *, guess: bool = True) -> list[Locator]:
    """The sources that serve `name` `year`, best first (the first gives every abstract);
    with `guess`, also the ones whose id pattern would name a year not listed yet."""
    found: list[Locator] = []
    volume = PMLR.get(name, {}).get(year)
    if volume is not None:
        found.append(Locator("pmlr", str(volume)))
    if (name, year) in ACL_SPECIAL:
        ident, part = ACL_SPECIAL[(name, year)]
        found.append(Locator("acl", ident, part))
    elif name in ACL:
        _, part, years = ACL[name]
        if year in years or (guess and year >= ACL_NEW_STYLE_FROM):
            found.append(Locator("acl", _acl_ident(name, year), part, listed=year in years))
    if name in CVF:
        years_cvf = CVF[name]
        if year in years_cvf or (guess and year > max(years_cvf)):
            found.append(Locator("cvf", f"{VENUES[name].short}{year}", listed=year in years_cvf))
    if name in OPENREVIEW:
        pattern, years_or = OPENREVIEW[name]
        if year in years_or or (guess and year >= years_or.start):
            found.append(Locator("openreview", pattern.format(year=year), listed=year in years_or))
    return found


@dataclass(frozen=True)
class CatalogueEntry:
    """One venue-year of `reader venue list`."""

    venue: KnownVenue
    year: int
    sources: tuple[str, ...]

    def as_json(self) -> dict[str, object]:
        return {"name": self.venue.name, "year": self.year, "sources": list(self.sources),
                "label": self.venue.label(self.year), "title": self.venue.title}


def entries() -> list[CatalogueEntry]:
    """Every venue-year the catalogue lists, by name then newest year first."""
    years: dict[str, set[int]] = {}
    for name, table in PMLR.items():
        years.setdefault(name, set()).update(table)
    for name, (_, _, acl_years) in ACL.items():
        years.setdefault(name, set()).update(acl_years)
    for name, cvf_years in CVF.items():
        years.setdefault(name, set()).update(cvf_years)
    for name, (_, or_years) in OPENREVIEW.items():
        years.setdefault(name, set()).update(or_years)
    out = []
    for name in sorted(years):
        for year in sorted(years[name], reverse=True):
            sources = tuple(loc.source for loc in locators(name, year, guess=False))
            out.append(CatalogueEntry(VENUES[name], year, sources))
    return out


def venue(name: str) -> KnownVenue:
    """The venue called `name` (case-insensitive; "NeurIPS", "nips" and "findings acl" work)."""
    key = "-".join(name.strip().lower().split())
    key = {"nips": "neurips", "clear": "clear"}.get(key, key)
    found = VENUES.get(key)
    if found is None:
        raise UsageError(f"unknown venue {name!r}: `reader venue list` shows the venues Reader knows")
    return found


def check_year(year: int) -> None:
    if not 1950 <= year <= date.today().year + 1:
        raise UsageError(f"year {year} is not a year a venue could have proceedings for")
