"""Exports of the library: Markdown reading lists and per-paper Markdown notes.

The names below load on first use (PEP 562): the window's list imports `names` (its authors
column) without the Markdown exporters and pathvalidate, which an export needs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reader.lazy_names import lazy_names

if TYPE_CHECKING:
    from .filenames import safe_filename
    from .markdown import reading_list, write_per_paper

__all__ = ["reading_list", "safe_filename", "write_per_paper"]

_HOMES = {"safe_filename": "filenames", "reading_list": "markdown", "write_per_paper": "markdown"}


__getattr__ = lazy_names(__name__, _HOMES, globals())
