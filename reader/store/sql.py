"""Small helpers shared by the store modules: timestamps and chunked IN (...) lists."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import TypeVar

# Long id lists go in chunks rather than one huge IN (...) (SQLite caps bound parameters).
CHUNK = 900
_T = TypeVar("_T")


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def chunks(items: Sequence[_T], size: int = CHUNK) -> Iterator[Sequence[_T]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def marks(n: int) -> str:
    return ",".join("?" * n)
