"""The venue catalogue: names, years, sources, and PMLR volumes checked against real data."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

import pytest

from reader.errors import UsageError
from reader.sources import catalogue
from reader.sources.catalogue import Locator

from .venue_fixtures import CORPORA, PAPERS


def test_issue_examples_are_served():
    assert catalogue.locators("icml", 2025)[0] == Locator("pmlr", "267")
    assert catalogue.locators("aistats", 2018)[0] == Locator("pmlr", "84")
    assert catalogue.locators("acl", 2024)[0] == Locator("acl", "2024.acl")
    assert catalogue.locators("cvpr", 2024)[0] == Locator("cvf", "CVPR2024")
    assert catalogue.locators("iclr", 2025)[0] == Locator("openreview", "ICLR.cc/2025/Conference")
    assert [loc.source for loc in catalogue.locators("icml", 2025)] == ["pmlr", "openreview"]
    assert catalogue.locators("findings-acl", 2024)[0] == Locator("acl", "2024.findings", "acl")
    assert catalogue.locators("acl", 2019)[0] == Locator("acl", "P19")
    assert catalogue.locators("emnlp", 2018)[0] == Locator("acl", "D18")
    assert catalogue.locators("coling", 2024)[0] == Locator("acl", "2024.lrec", "main")  # LREC-COLING


def test_unlisted_years_are_guessed_where_the_pattern_allows():
    iclr = catalogue.locators("iclr", 2027)
    assert iclr == [Locator("openreview", "ICLR.cc/2027/Conference", listed=False)]
    assert catalogue.locators("iclr", 2027, guess=False) == []
    assert catalogue.locators("icml", 2027) == [Locator("openreview", "ICML.cc/2027/Conference", listed=False)]
    assert catalogue.locators("aistats", 2027) == []  # PMLR volumes cannot be guessed
    assert catalogue.locators("cvpr", 2019) == []  # before the /content/<ID>/ layout


def test_names_are_forgiving_and_unknown_ones_say_where_to_look():
    assert catalogue.venue("ICML").name == "icml"
    assert catalogue.venue("NIPS").name == "neurips"
    assert catalogue.venue("Findings ACL").name == "findings-acl"
    with pytest.raises(UsageError, match="unknown venue 'foo'.*reader venue list"):
        catalogue.venue("foo")


def test_entries_list_every_year_with_its_sources():
    found = {(e.venue.name, e.year): e.sources for e in catalogue.entries()}
    assert found[("icml", 2025)] == ("pmlr", "openreview")
    assert found[("aistats", 2018)] == ("pmlr",)
    assert found[("cvpr", 2024)] == ("cvf",)
    assert found[("iclr", 2025)] == ("openreview",)
    assert all(sources for sources in found.values())
    entry = next(e for e in catalogue.entries() if (e.venue.name, e.year) == ("icml", 2025))
    assert entry.as_json()["label"] == "ICML 2025"


def test_pmlr_volumes_agree_with_the_corpus_urls():
    """Every PMLR volume the ML conference corpus links to (real proceedings.mlr.press URLs) is
    the one the catalogue names for that venue and year."""
    if not PAPERS.exists():
        pytest.skip("ml_conference_corpus not available")
    seen: dict[tuple[str, int], Counter] = defaultdict(Counter)
    with PAPERS.open(encoding="utf-8") as handle:
        for line in handle:
            if "mlr.press/v" not in line:
                continue
            rec = json.loads(line)
            conf = rec["id"].split(":")[0]
            match = re.search(r"mlr\.press/v(\d+)", (rec.get("url") or "") + (rec.get("pdf") or ""))
            if match:
                seen[(conf[:-4], int(conf[-4:]))][int(match.group(1))] += 1
    assert len(seen) >= 60
    for (name, year), volumes in seen.items():
        assert catalogue.PMLR[name][year] == volumes.most_common(1)[0][0], (name, year)


def test_real_volume_files_match_their_catalogue_volume():
    for path, name, year in ((CORPORA / "bibtex" / "pmlr_v54_aistats2017.bib", "aistats", 2017),
                             (CORPORA / "bibtex" / "pmlr_v84_aistats2018.bib", "aistats", 2018)):
        if not path.exists():
            pytest.skip("bibtex corpus not available")
        volume = re.search(r"volume = \{(\d+)\}", path.read_text(encoding="utf-8")).group(1)
        assert catalogue.PMLR[name][year] == int(volume)


def test_the_cli_offers_the_catalogue_sources():
    from reader.cli import venue

    assert set(venue.SOURCES) == set(catalogue.SOURCE_ORDER)
