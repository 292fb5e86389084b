"""Locate bundled package data (seeds, icons, fonts) from source, wheel or a frozen app."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def seed_files() -> list[Traversable]:
    """The bundled seed abstracts, sorted by file name."""
    root = resources.files("reader.seeds")
    return sorted((p for p in root.iterdir() if p.name.endswith(".txt")), key=lambda p: p.name)


def resource(name: str) -> Traversable:
    """A file under resources/ (e.g. 'reader.svg')."""
    return resources.files("reader.resources") / name
