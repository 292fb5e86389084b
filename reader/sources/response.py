"""What a fetch returns: the body's bytes with where and when they came from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Response:
    """One HTTP response (or its cached copy).

    `url` is the final URL with its query (after redirects); `fetched_at` the UTC ISO time it
    was fetched from the service (a cached copy keeps its original time); `from_cache` says
    whether it came from the library's cache instead of the network."""

    body: bytes
    url: str
    status: int
    fetched_at: str
    from_cache: bool = False

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def text(self) -> str:
        """The body as UTF-8 text (undecodable bytes replaced)."""
        return self.body.decode("utf-8", errors="replace")
