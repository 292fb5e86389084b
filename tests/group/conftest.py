"""Libraries for the group tests: copies of one library of the bundled seeds (each with its own
library id), index upkeep off (the group's state is SQL only)."""

from __future__ import annotations

import shutil
import uuid

import pytest

from reader.library import Library


@pytest.fixture(scope="session")
def seeded_template(tmp_path_factory):
    root = tmp_path_factory.mktemp("group-template") / "lib"
    Library.open(root).close()
    return root


@pytest.fixture()
def make_lib(tmp_path, seeded_template, monkeypatch):
    opened: list[Library] = []

    def make(name: str) -> Library:
        path = tmp_path / f"lib-{name}"
        shutil.copytree(seeded_template, path)
        lib = Library.open(path)
        monkeypatch.setattr(lib.upkeep, "after_commit", lambda: None)
        with lib.write_transaction() as (conn, _seq):
            conn.execute("UPDATE meta SET value = ? WHERE key = 'library_id'", [uuid.uuid4().hex])
        opened.append(lib)
        return lib

    yield make
    for lib in opened:
        lib.close()
