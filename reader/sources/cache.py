"""Raw responses kept in the library folder, so a paper or venue fetched once re-adds offline.

Layout: `<library>/sources/cache/<source>/<2 hex>/<sha256 of the key>.resp`; the key is the
request's URL relative to the source's base URL (`/api/query?id_list=...`), so a mirror or a test
server set with READER_SOURCE_<NAME>_URL finds what the service gave. Each file is one JSON
header line (source, key, URL, fetch time, status, length, SHA-256 of the body) and the body's
bytes. Files are written atomically (a unique temporary name beside them, then renamed), only
ever as regular files; a file is used only when its header names this key and its body has the
recorded length and hash, else it is ignored (and refetched). The cache is derived data: deleting
the folder loses nothing but the offline copies. The day's maintenance keeps the fetched files
(these and the parsed records) under a size cap, dropping the least recently used first
(reader.store.health.prune_fetched; READER_SOURCES_CACHE_MB, default 1024)."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from reader.derived_files import NotRegularFile, mark_used, read_regular, write_atomic

from .response import Response

log = logging.getLogger(__name__)

_VERSION = 1
MAX_CACHED = 512 * 1024 * 1024  # a cached file larger than this is not read


def cache_key(base: str, url: str) -> str:
    """The URL relative to the base in force (what the service's own path and query are)."""
    return url[len(base):] if url.startswith(base) and url[len(base):len(base) + 1] in ("/", "?", "") else url


class ResponseCache:
    """The cache folder of one library (`<library>/sources/cache`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, source: str, key: str) -> Path:
        digest = hashlib.sha256(f"{source}\x1f{key}".encode()).hexdigest()
        return self.root / source / digest[:2] / f"{digest}.resp"

    def get(self, source: str, key: str) -> Response | None:
        """The cached response for the key, or None (absent, damaged, not a regular file)."""
        path = self.path(source, key)
        data = read_regular(path, MAX_CACHED)
        if data is None:
            return None
        head, sep, body = data.partition(b"\n")
        try:
            meta = json.loads(head) if sep else None
        except ValueError:
            meta = None
        if (not isinstance(meta, dict) or meta.get("version") != _VERSION or meta.get("source") != source
                or meta.get("key") != key or meta.get("length") != len(body)
                or meta.get("sha256") != hashlib.sha256(body).hexdigest()):
            log.warning("cached response %s is damaged or not for %s; fetching anew", path, key)
            return None
        mark_used(path)  # pruning (reader.store.health) drops the least recently used first
        return Response(body=body, url=str(meta.get("url") or key), status=int(meta.get("status") or 200),
                        fetched_at=str(meta.get("fetched_at") or ""), from_cache=True)

    def put(self, source: str, key: str, response: Response) -> None:
        """Keep the response (atomically); a cache that cannot be written is logged, never raised."""
        path = self.path(source, key)
        meta = {"version": _VERSION, "source": source, "key": key, "url": response.url,
                "fetched_at": response.fetched_at, "status": response.status,
                "length": len(response.body), "sha256": hashlib.sha256(response.body).hexdigest()}
        try:
            write_atomic(path, (json.dumps(meta, ensure_ascii=True).encode() + b"\n", response.body), ".resp")
        except NotRegularFile:
            log.warning("%s is not a regular file; the response is not cached", path)
        except OSError as exc:
            log.warning("could not cache %s: %s", key, exc)
