"""Venue names (issue 18 item 3): one key per venue however an entry spells it, by general rules."""

from __future__ import annotations

import dataclasses

from reader.library import View
from reader.models import ViewKind
from reader.venues import fold_keys, group_venues, venue_name


def _key(raw: str) -> str:
    return venue_name(raw).key


def test_years_ordinals_and_proceedings_fold_away():
    a = _key("Proceedings of the 12th International Conference on Mobile Systems, 2014")
    b = _key("Proc. Twenty-Third international conference on Mobile Systems")
    c = _key("International Conference on Mobile Systems")
    assert a == b == c == "international conference on mobile systems"


def test_an_acronym_the_venue_names_itself_by_is_its_key():
    assert _key("{{CHI}} '15: Proceedings of the 33rd Annual {{ACM}} Conference on Human Factors") == "chi"
    assert _key("CHI'14: Proceedings of the SIGCHI Conference") == "chi"
    assert _key("ACM Symposium on User Interface Software and Technology ({{UIST}})") == "uist"
    assert _key("TEI14: Proceedings of the 8th Conference") == "tei"
    # A side track of a conference is its own venue.
    assert _key("CHI '14 Extended Abstracts on Human Factors in Computing Systems") == "chi extended abstracts"


def test_inverted_ieee_names_are_put_back_in_order():
    assert _key("Biomedical Engineering, IEEE Transactions on") == _key("IEEE Transactions on Biomedical Engineering")


def test_long_names_join_the_acronym_and_abbreviations_their_full_name():
    spellings = ["UIST '13: Proceedings of the 26th Annual ACM Symposium on User Interface Software and Technology",
                 "Proceedings of the 30th Annual ACM Symposium on User Interface Software and Technology",
                 "J. Mach. Learn. Res.", "Journal of Machine Learning Research"]
    names = [(venue_name(s), 1) for s in spellings]
    alias = fold_keys(names)
    keys = {alias.get(n.key, n.key) for n, _ in names}
    assert keys == {"uist", "journal of machine learning research"}
    assert "chi" not in fold_keys([(venue_name("CHI '10: x"), 5), (venue_name("CHINZ '07: y"), 1)])


def test_group_venues_counts_and_names_each_venue_by_its_commonest_spelling():
    rows = [("uist", "UIST '09: Proceedings of ...", 3), ("uist", "ACM Symposium on UI (UIST)", 2),
            ("jmlr", "JMLR", 1), ("", "", 9)]
    venues = group_venues(rows)
    assert [(v.key, v.name, v.count) for v in venues] == [("uist", "UIST", 5), ("jmlr", "JMLR", 1)]


UIST_SHORT = "UIST '13: Proceedings of the 26th Annual ACM Symposium on User Interface Software and Technology"
UIST_LONG = "Proceedings of the 30th Annual ACM Symposium on User Interface Software and Technology"


def _uist_library(bare_lib, tmp_path) -> list[str]:
    abstract = "An abstract long enough to be kept, about pointing with pens on tablets, number {}."
    entries = [f"@inproceedings{{k{i},\n  title = {{Paper {i}}},\n  abstract = {{{abstract.format(i)}}},\n"
               f"  booktitle = {{{venue}}},\n  year = {{2017}}\n}}\n" for i, venue in enumerate([UIST_SHORT, UIST_LONG])]
    path = tmp_path / "uist.bib"
    path.write_text("".join(entries), encoding="utf-8")
    [summary] = bare_lib.import_files([path], index=False)
    return summary.new_ids


def test_an_undone_delete_puts_the_paper_back_in_its_folded_venue(bare_lib, tmp_path):
    # The long spelling has its own key; it joins "uist" only through the library's other entries.
    ids = _uist_library(bare_lib, tmp_path)
    uist = View(ViewKind.VENUE, "uist")
    assert sorted(bare_lib.paper_ids(uist)) == sorted(ids)
    long_id = next(p.id for p in bare_lib.papers(ids) if p.venue == UIST_LONG)
    [snapshot] = bare_lib.snapshot([long_id])
    bare_lib.delete_papers([long_id])
    bare_lib.restore([snapshot])  # what Ctrl+Z does
    assert sorted(bare_lib.paper_ids(uist)) == sorted(ids)
    assert [(v.key, v.count) for v in bare_lib.venues()] == [("uist", 2)]


def test_an_undone_star_keeps_the_folded_venue_without_a_refold(bare_lib, tmp_path, monkeypatch):
    """Undoing a star (or a tag, a read mark, a "not for me") rewrites the paper's row with its
    venue unchanged: it keeps the key the library folded that spelling into, and the whole
    library's venues are not read again (a refold at 100k papers, beside the window's reads)."""
    from reader.store import venues as venue_store

    ids = _uist_library(bare_lib, tmp_path)
    long_id = next(p.id for p in bare_lib.papers(ids) if p.venue == UIST_LONG)
    refolds: list[int] = []
    real = venue_store.refold
    monkeypatch.setattr(venue_store, "refold", lambda conn: refolds.append(1) or real(conn))
    [snapshot] = bare_lib.snapshot([long_id])
    bare_lib.set_starred([long_id], True)
    bare_lib.restore([snapshot])  # Ctrl+Z
    assert refolds == []
    assert not bare_lib.paper(long_id).starred
    uist = View(ViewKind.VENUE, "uist")
    assert sorted(bare_lib.paper_ids(uist)) == sorted(ids)
    assert [(v.key, v.count) for v in bare_lib.venues()] == [("uist", 2)]
    # A restore that changes a venue still folds: with no "UIST '13" spelling left, neither
    # paper is under "uist" any more; both are one venue under the long name.
    other = next(pid for pid in ids if pid != long_id)
    [short] = bare_lib.snapshot([other])
    bare_lib.restore([dataclasses.replace(short, venue=UIST_LONG)])
    assert refolds == [1]
    assert bare_lib.paper_ids(uist) == []
    assert [(v.key, v.count) for v in bare_lib.venues()] == [(_key(UIST_LONG), 2)]

