"""Fetching papers from public services (the only network code in Reader; no Qt).

- registry.py: one `Source` per service (name, base URL, pace, what it gives);
  READER_SOURCE_<NAME>_URL replaces a base URL.
- http.py: `Client.fetch`, the one place that does network I/O (User-Agent, pace across
  processes, retries and backoff, Retry-After, a bounded total time, cancellation), with
- cache.py: raw responses kept in the library folder, checked before use (offline re-adds).
- response.py: what a fetch returns."""

from __future__ import annotations

from .http import Client, FetchCancelled, FetchError, Settings
from .registry import Source, all_sources, get, register
from .response import Response

__all__ = ["Client", "FetchCancelled", "FetchError", "Response", "Settings", "Source", "all_sources",
           "get", "register"]
