"""Fixtures for vault tests: a real library on the bundled seeds and an empty vault folder."""

from __future__ import annotations

import pytest

from reader.library import Library


@pytest.fixture()
def lib(tmp_path):
    library = Library.open(tmp_path / "lib")
    yield library
    library.close()


@pytest.fixture()
def vault(tmp_path):
    path = tmp_path / "vault"
    path.mkdir()
    return path


@pytest.fixture()
def ids(lib):
    return lib.paper_ids(sort="added", descending=False)
