"""Locate bundled package data (seeds, icons, fonts) from source, wheel or a frozen app."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path


def _folder(name: str) -> Traversable:
    """reader/<name> in a wheel or frozen app; <checkout>/<name> beside the package in a source tree."""
    try:
        return resources.files(f"reader.{name}")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parent.parent / name


def seed_files() -> list[Traversable]:
    """The bundled seed abstracts, sorted by file name."""
    root = _folder("seeds")
    return sorted((p for p in root.iterdir() if p.name.endswith(".txt")), key=lambda p: p.name)


def resource(name: str) -> Traversable:
    """A file under resources/ (e.g. 'reader.svg')."""
    return _folder("resources") / name
