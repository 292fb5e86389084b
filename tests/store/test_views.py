"""reader.store.views: which ids a sidebar view selects."""

from __future__ import annotations

import pytest

from reader.models import ViewKind
from reader.store import notes, tags
from reader.store import papers as q
from reader.store.views import View, paper_ids

from .conftest import IDS


def test_view_kind_is_checked_when_made():
    assert View("tag", "x").kind is ViewKind.TAG
    with pytest.raises(ValueError):
        View("nonsense")


def test_views_select(conn):
    q.set_flag(conn, "starred", [IDS[1]], True, seq=2)
    tags.add(conn, [IDS[2]], "rl")
    notes.set_note(conn, IDS[0], "n")
    assert paper_ids(conn, View(ViewKind.STARRED)) == [IDS[1]]
    assert paper_ids(conn, View(ViewKind.TAG, "RL")) == [IDS[2]]
    assert paper_ids(conn, View(ViewKind.NOTES)) == [IDS[0]]
    assert paper_ids(conn, View(ViewKind.COLLECTION, "Coll"), sort="title", descending=False) == [IDS[0], IDS[1]]
    assert len(paper_ids(conn, View())) == 3
