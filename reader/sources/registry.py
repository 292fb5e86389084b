"""The public services Reader fetches papers from: one `Source` record each, registered by one line.

A `Source` names the service (`name`, lower-case: the CLI's, the cache folder's and the pace
file's), its base `url`, whether it needs a key (never: keys are optional settings), what it
gives (one line for `reader sources`) and its pace (the least time between two requests to it,
across every Reader process on the library).

`READER_SOURCE_<NAME>_URL` (NAME upper-case, e.g. `READER_SOURCE_ARXIV_URL=http://127.0.0.1:8123`)
replaces a source's base URL, for mirrors, proxies and tests; the paths and queries under it
stay the service's own (arXiv's `/api/query?id_list=...` under the new base)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..errors import ReaderError


@dataclass(frozen=True)
class Source:
    """One public service. `url` is the default base URL; `base` is the one in force."""

    name: str
    url: str
    gives: str
    pace: float = 1.0  # seconds between two requests to the service (all processes together)
    needs_key: bool = False

    @property
    def env_var(self) -> str:
        return f"READER_SOURCE_{self.name.upper()}_URL"

    @property
    def base(self) -> str:
        """The base URL in force: READER_SOURCE_<NAME>_URL when set, else `url` (no trailing /)."""
        return (os.environ.get(self.env_var) or self.url).rstrip("/")

    @property
    def host(self) -> str:
        """The host of the base URL in force, as error messages name it."""
        return urlsplit(self.base).netloc or self.base

    def at(self, path: str) -> str:
        """The URL of `path` (the service's own path, e.g. "/api/query") under the base in force."""
        return self.base + ("" if path.startswith("/") else "/") + path

    def to_dict(self) -> dict[str, object]:
        """What `reader sources --json` prints for it (the base in force as `url`)."""
        return {"name": self.name, "url": self.base, "needs_key": self.needs_key, "gives": self.gives}


_SOURCES: dict[str, Source] = {}


def register(source: Source) -> Source:
    """Add (or replace) a source; one line per source in the modules that use them."""
    if source.name != source.name.lower() or not source.name.isidentifier():
        raise ValueError(f"a source's name is a lower-case word: {source.name!r}")
    _SOURCES[source.name] = source
    return source


def get(name: str | Source) -> Source:
    """The source of that name (a ReaderError naming the known ones if there is none)."""
    if isinstance(name, Source):
        return name
    try:
        return _SOURCES[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(_SOURCES))
        raise ReaderError(f"no source named {name!r} (known: {known})") from None


def all_sources() -> list[Source]:
    """Every registered source, by name."""
    return [_SOURCES[n] for n in sorted(_SOURCES)]


# The services of this layer (helper modules register theirs the same way, one line each).
ARXIV = register(Source("arxiv", "https://export.arxiv.org",
                        "arXiv papers by id (new and old style) and the newest of a category",
                        pace=3.0))
CROSSREF = register(Source("crossref", "https://api.crossref.org",
                           "papers by DOI (title, authors, venue, year; abstract when deposited)",
                           pace=1.0))
OPENREVIEW = register(Source("openreview", "https://api2.openreview.net",
                             "OpenReview papers by forum id or URL (API v2, as a guest)", pace=1.0))
# The venue sources (reader/sources/pmlr.py, acl.py, cvf.py; OpenReview venues use OPENREVIEW).
PMLR = register(Source("pmlr", "https://proceedings.mlr.press", "ICML, AISTATS, COLT, UAI, CoRL... a volume's BibTeX with abstracts"))
ACL = register(Source("acl", "https://raw.githubusercontent.com/acl-org/acl-anthology/master", "ACL Anthology events' XML with abstracts: ACL, EMNLP, NAACL, EACL, COLING, Findings"))
CVF = register(Source("cvf", "https://openaccess.thecvf.com", "CVPR, ICCV, WACV from 2021: the listing and each paper's page (abstract)"))
