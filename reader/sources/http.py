"""The ONE place Reader talks to the network: `Client.fetch`, polite, bounded and cached.

Contract (the source modules code against it; keep it stable)::

    client = Client(library_folder, cancelled=callable_or_None)
    response = client.fetch(source, url, params=None, *, refresh=False, cache=True)   # -> Response

`source` is a registry.Source or its name; `url` is absolute or a path under the source's base
URL in force ("/api/query", see registry.Source.base); `params` are added to the query string.
The Response (response.py) has `.body` (bytes), `.url` (final, with its query), `.status`,
`.fetched_at` (UTC ISO) and `.from_cache`. Responses with status < 500 other than 429 are
returned (a 400 or 404 is the caller's to read); only 200s are cached.

What every request does:
- sends `User-Agent: Reader/<version> (reader-abstracts desktop app[; mailto:READER_SOURCE_MAILTO])`;
- keeps the source's pace ACROSS PROCESSES: a small file per source under
  `<library>/sources/pace/` holds the earliest time of the next request, reserved under an
  fcntl lock (arXiv: one request per 3 s); the wait happens on the caller's (worker) thread;
- connect/read timeouts; up to READER_SOURCE_RETRIES tries (default 4) with exponential backoff
  (READER_SOURCE_BACKOFF, default 2 s: 2, 4, 8...) on 5xx, refused/reset/dropped connections,
  timeouts and bodies cut short (fewer bytes than Content-Length); `Retry-After` (seconds or an
  HTTP date) is honoured on 429 and 503;
- a bounded total time (READER_SOURCE_DEADLINE, default 100 s, so under 2 minutes) after which it
  raises FetchError, one line naming the source, host, last problem, tries and URL, e.g.
  `arxiv: export.arxiv.org did not answer (503 Service Unavailable) after 4 tries: URL`;
- checks `cancelled()` between steps and while waiting (FetchCancelled);
- with refresh=False, a cached copy (cache.py) is returned without touching the network.

Environment (tests shorten budgets; the defaults are the polite ones): READER_SOURCE_RETRIES,
READER_SOURCE_BACKOFF, READER_SOURCE_DEADLINE, READER_SOURCE_TIMEOUT (read timeout per try, default
30 s), READER_SOURCE_PACE_SCALE (multiplies every pace, default 1), READER_SOURCE_MAILTO, and
READER_SOURCE_<NAME>_URL (registry.py). The system's HTTPS_PROXY / HTTP_PROXY / NO_PROXY are
used as urllib reads them (never for 127.0.0.1 or localhost)."""

from __future__ import annotations

import email.utils
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlencode, urlsplit
from urllib.request import getproxies, proxy_bypass

import urllib3
from urllib3.exceptions import (
    ConnectTimeoutError,
    HTTPError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

from .. import __version__
from ..errors import ReaderError
from .cache import ResponseCache, cache_key
from .registry import Source, get
from .response import Response

log = logging.getLogger(__name__)

Cancelled = Callable[[], bool] | None
Params = Mapping[str, str | int] | Iterable[tuple[str, str | int]] | None

MAX_BODY = 256 * 1024 * 1024  # a response larger than this is refused
_CHUNK = 64 * 1024
_TICK = 0.1  # seconds between cancel checks while waiting


class FetchError(ReaderError):
    """A service could not be reached or kept failing: one line naming source, host and URL."""


class FetchCancelled(ReaderError):
    """The user cancelled while a request was waiting or running."""


def _env_float(name: str, default: float, low: float = 0.0) -> float:
    try:
        return max(low, float(os.environ.get(name, default)))
    except ValueError:
        return default


@dataclass(frozen=True)
class Settings:
    """The budgets of every request (see the module docstring for their variables)."""

    tries: int = 4
    backoff: float = 2.0
    deadline: float = 100.0
    timeout: float = 30.0
    connect_timeout: float = 10.0
    pace_scale: float = 1.0
    mailto: str = ""

    @classmethod
    def from_env(cls) -> Settings:
        return cls(
            tries=int(_env_float("READER_SOURCE_RETRIES", 4, 1)),
            backoff=_env_float("READER_SOURCE_BACKOFF", 2.0),
            deadline=_env_float("READER_SOURCE_DEADLINE", 100.0, 0.1),
            timeout=_env_float("READER_SOURCE_TIMEOUT", 30.0, 0.05),
            pace_scale=_env_float("READER_SOURCE_PACE_SCALE", 1.0),
            mailto=os.environ.get("READER_SOURCE_MAILTO", "").strip(),
        )

    @property
    def user_agent(self) -> str:
        contact = f"; mailto:{self.mailto}" if self.mailto else ""
        return f"Reader/{__version__} (reader-abstracts desktop app{contact})"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Pace:
    """The earliest time of each source's next request, shared by every process on the library.

    `<folder>/<source>` holds that time (seconds since the epoch, as text); `reserve` takes the
    next slot under an exclusive fcntl lock held only for the read-and-write, so a waiting process
    never holds the lock. Without a folder (or without fcntl) the pace holds within the process."""

    _local: dict[str, float] = {}
    _local_lock = threading.Lock()

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def reserve(self, source: str, interval: float) -> float:
        """The time (time.time()) at which this request may go; the slot after it is reserved."""
        if interval <= 0:
            return time.time()
        with self._local_lock:
            try:
                return self._reserve_file(source, interval)
            except (OSError, ImportError) as exc:
                if self.folder is not None and not isinstance(exc, ImportError):
                    log.warning("pace file for %s unusable (%s); pacing within this process", source, exc)
                now = time.time()
                at = max(now, self._local.get(source, 0.0))
                self._local[source] = at + interval
                return at

    def _reserve_file(self, source: str, interval: float) -> float:
        import fcntl

        if self.folder is None:
            raise ImportError("no folder")
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / source
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
                     0o644)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{path} is not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = os.pread(fd, 64, 0)
            try:
                booked = float(raw.decode("ascii").strip() or 0)
            except ValueError:
                booked = 0.0
            now = time.time()
            if booked > now + max(600.0, 200 * interval):  # a clock set back: start afresh
                booked = 0.0
            at = max(now, booked)
            text = repr(at + interval).encode("ascii")
            os.ftruncate(fd, 0)
            os.pwrite(fd, text, 0)
            return at
        finally:
            os.close(fd)  # releases the lock


class Client:
    """Fetches for one library folder: its cache (`sources/cache`) and pace files (`sources/pace`).

    `folder` None: no cache and a pace within this process only (tests of parsers, benchmarks).
    One client may be used from one thread at a time; make one per task."""

    def __init__(self, folder: Path | None, *, cancelled: Cancelled = None,
                 settings: Settings | None = None) -> None:
        self.folder = folder
        self.cancelled = cancelled
        self.settings = settings or Settings.from_env()
        self.cache = ResponseCache(folder / "sources" / "cache") if folder is not None else None
        self.pace = Pace(folder / "sources" / "pace" if folder is not None else None)
        self._pool = urllib3.PoolManager(num_pools=4, maxsize=1, block=False)
        self._proxies: dict[str, urllib3.ProxyManager] = {}
        self.requests = 0  # sent by this client (tests and benchmarks)

    def close(self) -> None:
        self._pool.clear()
        for proxy in self._proxies.values():
            proxy.clear()

    def _pool_for(self, url: str) -> urllib3.PoolManager:
        """The system's proxy for the URL's scheme (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, as
        urllib reads them), else a direct connection; never a proxy for this machine itself."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        if host in ("localhost", "127.0.0.1", "::1") or host.startswith("127."):
            return self._pool
        proxy = getproxies().get(parts.scheme)
        if not proxy or proxy_bypass(host):
            return self._pool
        if proxy not in self._proxies:
            self._proxies[proxy] = urllib3.ProxyManager(proxy, num_pools=4, maxsize=1, block=False)
        return self._proxies[proxy]

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the one entry point
    def fetch(self, source: Source | str, url: str, params: Params = None, *, refresh: bool = False,
              cache: bool = True) -> Response:
        """The answer to GET url (see the module docstring); cache=False: neither read nor kept
        (answers that are stale by the next ask, like a feed's newest page)."""
        src = get(source)
        full = self.url_for(src, url, params)
        if not refresh and cache:
            cached = self.cached(src, url, params)
            if cached is not None:
                return cached
        response = self._fetch_network(src, full)
        if response.status == 200 and cache:
            self.keep(src, url, params, response)
        return response

    @staticmethod
    def url_for(source: Source | str, url: str, params: Params = None) -> str:
        """The full URL fetch asks for (under the base in force, with the params' query)."""
        src = get(source)
        full = src.at(url) if url.startswith("/") else url
        if params:
            query = urlencode(list(params.items()) if isinstance(params, Mapping) else list(params))
            full += ("&" if "?" in full else "?") + query
        return full

    def cached(self, source: Source | str, url: str, params: Params = None) -> Response | None:
        """The cached answer to this request, without the network (None if there is none)."""
        if self.cache is None:
            return None
        src = get(source)
        return self.cache.get(src.name, cache_key(src.base, self.url_for(src, url, params)))

    def keep(self, source: Source | str, url: str, params: Params, response: Response) -> None:
        """Cache `response` as the answer to this request. A source may keep part of a batched
        answer under the request for that part alone (arXiv: one id's entry of an id_list
        batch), so a later request for it alone is answered offline; `response.url` still says
        where the bytes came from."""
        if self.cache is not None:
            src = get(source)
            self.cache.put(src.name, cache_key(src.base, self.url_for(src, url, params)), response)

    # ------------------------------------------------------------------ internals
    def _check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise FetchCancelled("cancelled")

    def _sleep_until(self, wall_time: float) -> None:
        while True:
            self._check()
            left = wall_time - time.time()
            if left <= 0:
                return
            time.sleep(min(_TICK, left))

    def _fetch_network(self, src: Source, url: str) -> Response:
        s = self.settings
        start = time.monotonic()
        end = start + s.deadline
        problem = "no try made"
        tries = 0
        wait_next = 0.0  # the wait a Retry-After or the backoff asks before the next try
        for attempt in range(1, s.tries + 1):
            if wait_next:
                if time.monotonic() + wait_next > end:
                    problem += f"; the next try would be after {wait_next:.0f} s, past the time allowed"
                    break
                self._sleep_until(time.time() + wait_next)
            self._check()
            at = self.pace.reserve(src.name, src.pace * s.pace_scale)
            if time.monotonic() + (at - time.time()) > end:
                problem += "; the service's pace left no time for another try"
                break
            self._sleep_until(at)
            left = end - time.monotonic()
            if left <= 0:
                break
            tries = attempt
            self.requests += 1
            try:
                response, retry_after = self._once(url, left)
            except FetchCancelled:
                raise
            except _Transient as exc:
                problem = str(exc)
                log.info("%s: try %d of %s: %s", src.name, attempt, url, problem)
                wait_next = s.backoff * 2 ** (attempt - 1)
                continue
            if response is not None:
                return response
            problem = str(retry_after[1])
            wait_next = retry_after[0] if retry_after[0] is not None else s.backoff * 2 ** (attempt - 1)
            log.info("%s: try %d of %s: %s", src.name, attempt, url, problem)
        tried = f"after {tries} {'try' if tries == 1 else 'tries'}"
        raise FetchError(f"{src.name}: {src.host} did not answer ({problem}) {tried}: {url}")

    def _once(self, url: str, left: float) -> tuple[Response | None, tuple[float | None, str]]:
        """One request: the Response, or (None, (Retry-After or None, problem)) for a status to retry."""
        s = self.settings
        timeout = urllib3.Timeout(connect=min(s.connect_timeout, left), read=min(s.timeout, left))
        retries = urllib3.Retry(total=None, connect=0, read=0, status=0, other=0, redirect=5,
                                raise_on_redirect=True, raise_on_status=False)
        headers = {"User-Agent": s.user_agent, "Accept-Encoding": "gzip, deflate"}
        try:
            r = self._pool_for(url).request("GET", url, headers=headers, timeout=timeout, retries=retries,
                                   preload_content=False, decode_content=True)
        except MaxRetryError as exc:
            raise _Transient(_describe(exc.reason or exc)) from None
        except HTTPError as exc:
            raise _Transient(_describe(exc)) from None
        try:
            status = r.status
            if status == 429 or status >= 500:
                reason = _status_text(status)
                after = _retry_after(r.headers.get("Retry-After")) if status in (429, 503) else None
                return None, (after, reason)
            chunks: list[bytes] = []
            size = 0
            deadline = time.monotonic() + left
            try:
                for chunk in r.stream(_CHUNK):
                    self._check()
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > MAX_BODY:
                        raise FetchError(f"{url}: the response is larger than {MAX_BODY // 2**20} MB")
                    if time.monotonic() > deadline:
                        raise _Transient("timed out reading the response")
            except HTTPError as exc:
                raise _Transient(_describe(exc)) from None
            body = b"".join(chunks)
            final = r.url or url
            if final and not final.startswith(("http://", "https://")):
                final = url
            return Response(body=body, url=final, status=status, fetched_at=utc_now()), (None, "")
        finally:
            try:
                r.drain_conn()  # a status to retry left its body unread; a cut one fails here
            except Exception:
                pass
            r.release_conn()


class _Transient(Exception):
    """A try that failed in a way worth another (dropped, refused, timed out, cut short)."""


def _describe(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, NewConnectionError) or "refused" in text.lower():
        return "connection refused"
    if isinstance(exc, ConnectTimeoutError):
        return "connection timed out"
    if isinstance(exc, ReadTimeoutError):
        return "timed out waiting for the response"
    if isinstance(exc, ProtocolError):
        if "IncompleteRead" in text or "incomplete" in text.lower():
            return "the response was cut short"
        return "the connection dropped"
    return type(exc).__name__


def _status_text(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (seconds or an HTTP date); None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())
