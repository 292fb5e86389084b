"""A damaged-library fixture: built once per session, copied per test."""

from __future__ import annotations

import shutil

import pytest

from .damaging import make_library


@pytest.fixture(scope="session")
def pristine(tmp_path_factory):
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
