"""Shared fixtures for the importer tests: sample abstracts, the corpora and a file writer."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
ML = CORPORA / "ml_conference_corpus"

ABSTRACT = "We study a problem and propose a method that works well on benchmarks."
ABSTRACT2 = "A second abstract about transformers, attention and long contexts in practice."


def corpus(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"corpus file not available: {path}")
    return path


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path
