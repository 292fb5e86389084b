"""reader.store.searches: saved searches by unique (case-insensitive) name."""

from __future__ import annotations

import sqlite3

import pytest

from reader.store import searches


def test_save_replaces_by_name_and_import_never_overwrites(conn):
    sid = searches.save(conn, "Attention", "attention")
    assert searches.save(conn, "attention", "transformer") == sid
    searches.add_if_absent(conn, "ATTENTION", "other")
    searches.add_if_absent(conn, "Diffusion", "diffusion")
    assert [(s["name"], s["query"]) for s in searches.all_searches(conn)] == [
        ("Attention", "transformer"), ("Diffusion", "diffusion")]


def test_rename_to_a_taken_name_fails_and_delete(conn):
    a = searches.save(conn, "a", "x")
    searches.save(conn, "b", "y")
    with pytest.raises(sqlite3.IntegrityError):
        searches.rename(conn, a, "B")
    searches.rename(conn, a, "c")
    searches.delete(conn, a)
    assert [s["name"] for s in searches.all_searches(conn)] == ["b"]
