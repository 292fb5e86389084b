"""Remember a function's last few results, found again by the identity of its arguments."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def remember_recent(size: int = 1) -> Callable[[F], F]:
    """Cache the last `size` calls by argument identity (`is`, not `==`): for a text that one
    pass analyses several times in turn (an abstract's field, word pairs, similarity words),
    where hashing or comparing the text would cost about what the cache saves.

    Positional arguments only. The held tuple is replaced whole, never changed in place, so
    threads read it without a lock (at worst one computes a result twice)."""

    def wrap(fn: F) -> F:
        held: list[tuple[tuple[tuple[Any, ...], Any], ...]] = [()]

        @functools.wraps(fn)
        def call(*args: Any) -> Any:
            recent = held[0]
            for key, value in recent:
                if len(key) == len(args) and all(map(_same, key, args)):
                    return value
            value = fn(*args)
            held[0] = ((args, value), *recent[:size - 1])
            return value

        return call  # type: ignore[return-value]

    return wrap


def _same(a: Any, b: Any) -> bool:
    return a is b
