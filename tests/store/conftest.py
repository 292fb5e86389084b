"""Store fixtures: a migrated store with three papers, and a damaged-library copy."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator

import pytest

from reader.store import SCHEMA_MIGRATIONS, open_connection, open_database
from reader.store import papers as q

from .damaging import make_library

IDS = ("a000000000000001", "b000000000000002", "c000000000000003")


def row(pid: str, title: str, *, seq: int = 1, collection: str = "Coll") -> dict:
    return {
        "id": pid, "title": title, "title_source": "imported", "derived_title": title,
        "abstract": f"The abstract of {title}, long enough.", "abstract_text": f"The abstract of {title}.",
        "venue": "ICML", "year": 2025, "authors": json.dumps(["Ann Lee"]), "links": "[]",
        "code_links": "[]", "method": "", "collection": collection, "sources": json.dumps(["a.txt"]),
        "added_at": "2025-01-01T00:00:00+00:00", "updated_at": "2025-01-01T00:00:00+00:00",
        "read": 0, "starred": 0, "seq": seq,
    }


@pytest.fixture()
def conn(tmp_path) -> Iterator[sqlite3.Connection]:
    """A migrated store (no Library, no index) holding three papers."""
    c = open_connection(tmp_path / "library.sqlite3")
    SCHEMA_MIGRATIONS.apply(open_database(c))
    q.insert_rows(c, [row(IDS[0], "Alpha"), row(IDS[1], "Beta"), row(IDS[2], "Gamma", collection="")])
    yield c
    c.close()


@pytest.fixture(scope="session")
def pristine(tmp_path_factory):
    """A damaged-library fixture: built once per session, copied per test."""
    root = tmp_path_factory.mktemp("pristine") / "lib"
    info = make_library(root)
    return root, info


@pytest.fixture()
def library(pristine, tmp_path):
    """A fresh copy of the pristine library and what it held."""
    src, info = pristine
    root = tmp_path / "lib"
    shutil.copytree(src, root)
    return root, info
