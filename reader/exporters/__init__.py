"""Exports of the library: Markdown reading lists and per-paper Markdown notes.

The names below load on first use (PEP 562): the window's list imports `names` (its authors
column) without the Markdown exporters and pathvalidate, which an export needs."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .filenames import safe_filename
    from .markdown import reading_list, write_per_paper

__all__ = ["reading_list", "safe_filename", "write_per_paper"]

_HOMES = {"safe_filename": "filenames", "reading_list": "markdown", "write_per_paper": "markdown"}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'reader.exporters' has no attribute {name!r}")
    value = getattr(import_module(f"reader.exporters.{home}"), name)
    globals()[name] = value
    return value
