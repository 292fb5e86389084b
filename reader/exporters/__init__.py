"""Exports of the library: Markdown reading lists and per-paper Markdown notes."""

from __future__ import annotations

from .filenames import safe_filename
from .markdown import reading_list, write_per_paper

__all__ = ["reading_list", "safe_filename", "write_per_paper"]
