"""Choose an importer from a file's content, using the extension only when no content sniffs."""

from __future__ import annotations

from pathlib import Path

from .registry import detect


def detect_format(path: str | Path, text: str) -> str:
    """The format name of the importer for decoded text ('jsonl', 'bibtex', ...), or 'unknown'."""
    importer = detect(path, text)
    return importer.format.value if importer else "unknown"
