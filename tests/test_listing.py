"""Library.listing: the ids a list shows for a query, a view and a sort (the GUI table and the CLI)."""

from __future__ import annotations

import json

import pytest

from reader.library import Library, View
from reader.listing import is_filter_query


def test_no_query_lists_the_view_in_the_sort_order(lib: Library) -> None:
    ids = lib.paper_ids()[:3]
    lib.set_starred(ids, True)
    found = lib.listing("  ", View("starred"), "title", False)
    assert found.query == "" and found.results is None
    assert found.ids == lib.paper_ids(View("starred"), "title", False)
    assert sorted(found.ids) == sorted(ids)
    assert lib.listing().ids == lib.paper_ids(View(), "added", True)


def test_words_are_ranked_and_capped(lib: Library) -> None:
    found = lib.listing("model", limit=5)
    assert found.results is not None and not is_filter_query(found.results)
    assert found.ids == [h.id for h in found.results.hits]
    assert len(found.ids) == 5 < found.results.total
    assert found.ids == lib.search("model", limit=5).ids  # relevance order, the index's own


def test_filters_only_list_every_match_in_the_sort_order(lib: Library) -> None:
    found = lib.listing("year:2025", sort="title", descending=False, limit=10)
    assert found.results is not None and is_filter_query(found.results)
    assert found.ids == lib.paper_ids(View(), "title", False)  # all 56, not the first 10
    assert len(found.ids) == 56 > 10


def test_search_sort_reorders_the_hits_only(lib: Library) -> None:
    ranked = lib.listing("learning").ids
    by_year = lib.listing("learning", search_sort=("year", False)).ids
    assert sorted(by_year) == sorted(ranked) and by_year != ranked
    assert by_year == [i for i in lib.paper_ids(View(), "year", False) if i in set(ranked)]


def test_the_view_restricts_a_search(lib: Library) -> None:
    tagged = lib.paper_ids()[:4]
    lib.add_tags(tagged, ["mine"])
    found = lib.listing("year:2025", View("tag", "mine"))
    assert sorted(found.ids) == sorted(tagged)


def test_cli_list_and_search_use_the_same_listing(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from reader.cli import run

    data = str(tmp_path / "lib")
    assert run(["--data-dir", data, "list", "--json"]) == 0
    listed = [it["id"] for it in json.loads(capsys.readouterr().out)]
    assert run(["--data-dir", data, "search", "year:2025", "--limit", "3", "--json"]) == 0
    found = [it["id"] for it in json.loads(capsys.readouterr().out)]
    assert found == listed[:3]  # filters only: `reader list` order, cut at --limit
    with Library.open(tmp_path / "lib") as lib:
        assert listed == lib.listing("", View(), "added", False).ids
        assert len(lib.listing("year:2025", limit=3).ids) == 56



def test_a_paged_listing_lists_the_first_page_and_fetches_the_rest(lib: Library) -> None:
    from reader.listing import list_papers

    every = lib.search("model", limit=None).ids
    found = list_papers(lib, "model", View(), page_size=10)
    assert found.ids == every[:10] and found.total == len(every) > 10 and not found.complete
    assert found.page(10, 15) == every[10:25]
    assert found.page(len(every), 10) == []
    strict = list_papers(lib, '"mode connectivity" OR model', View(), page_size=5)  # no lazy pages in the index
    assert strict.total > 5 and strict.page(5, 5) == lib.search('"mode connectivity" OR model', limit=10).ids[5:10]
    # Typing: the unfinished last word is a prefix.
    assert list_papers(lib, "sparse atten", View(), as_you_type=True, page_size=10).ids


def test_more_like_these_views(lib: Library) -> None:
    from reader.listing import LIKE_LIMIT
    from reader.models import ViewKind
    from reader.store.views import where_for

    assert lib.paper_ids(View(ViewKind.LIKE_STARRED)) == []  # nothing starred: nothing to be like
    seeds = lib.search("attention", limit=3).ids
    lib.set_starred(seeds, True)
    lib.sync_index()
    like = lib.paper_ids(View(ViewKind.LIKE_STARRED), "title", False)  # by similarity, whatever the sort
    assert like == [pid for pid, _ in lib.more_like(lib.paper_ids(View("starred")), limit=LIKE_LIMIT)]
    assert like and not set(like) & set(seeds)
    found = lib.listing("", View(ViewKind.LIKE_STARRED), search_sort=("title", False))
    titles = [lib.paper(pid).title.casefold() for pid in found.ids]
    assert sorted(found.ids) == sorted(like) and titles == sorted(titles)
    inside = lib.listing("learning", View(ViewKind.LIKE_STARRED))
    assert inside.ids and set(inside.ids) <= set(like)
    lib.add_tags(seeds[:2], ["mine"])
    assert lib.paper_ids(View(ViewKind.LIKE_TAG, "mine")) == [
        pid for pid, _ in lib.more_like(lib.paper_ids(View("tag", "mine")), limit=LIKE_LIMIT)]
    with pytest.raises(ValueError, match="ranked by the search index"):
        where_for(View(ViewKind.LIKE_TAG, "mine"))
