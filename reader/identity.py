"""When two records are the same paper: DOI, arXiv id, OpenReview id, abstract + compatible
titles, or title + first author + year; and the normalised keys the store keeps to find them.

Rules (issue 18): entries with the same DOI, arXiv id or OpenReview forum id (issue 28: fetched
papers) are one paper, unless both carry real
titles that share almost no words (a book's DOI on its chapters, a DOI pasted on the wrong
entry); entries with the same abstract are one paper when their titles match or one has no
real title (the seeds); different real titles sharing an abstract (an edited book's chapters)
are different papers; the same normalised title, first author and year are one paper, unless
they carry different DOIs (a conference abstract and the article it became)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import unquote

from .models import Record, normalize_abstract

_NON_WORD = re.compile(r"[\W_]+")
_DOI = re.compile(r"\b(10\.\d{1,9}(?:\.\d+)*/\S+)", re.IGNORECASE)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^\s?#]+?)(?:v\d+)?(?:\.pdf)?$", re.IGNORECASE)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_ID = re.compile(r"^(?:arxiv:)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?$", re.IGNORECASE)
_OPENREVIEW_URL = re.compile(r"openreview\.net/(?:forum|pdf|attachment)\?(?:[^#\s]*&)?id=([A-Za-z0-9_-]+)",
                             re.IGNORECASE)
_OPENREVIEW_ID = re.compile(r"^[A-Za-z0-9_-]{5,40}$")
MIN_SHARED_WORDS = 0.5  # two real titles of one DOI are the same paper from this word overlap up


def fold(text: str) -> str:
    """Lower-case words without accents or punctuation, single-spaced: what keys compare."""
    if text.isascii():  # most titles and names: NFKD changes nothing, casefold is lower
        return " ".join(_NON_WORD.sub(" ", text.lower()).split())
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(_NON_WORD.sub(" ", text.casefold()).split())


def title_key(title: str | None) -> str:
    return fold(title) if title else ""


def doi_key(value: str | None) -> str:
    """A DOI as found in a field or a link (resolver URL, doi: prefix), lower-cased; '' if none."""
    if not value or ("10." not in value and "%" not in value):  # no DOI can be in it
        return ""
    match = _DOI.search(unquote(value))  # a resolver URL's or BibTeX export's %5C is a backslash
    return match.group(1).rstrip(".,;").lower() if match else ""


def arxiv_key(value: str | None) -> str:
    """An arXiv id (no version) from an id, an abs/pdf URL or an arXiv DOI; '' if none."""
    if not value:
        return ""
    value = value.strip()
    for pattern in (_ARXIV_URL, _ARXIV_DOI):
        match = pattern.search(value)
        if match:
            value = match.group(1)
            break
    match = _ARXIV_ID.match(value)
    return match.group(1).lower() if match else ""


def openreview_key(value: str | None, *, bare: bool = False) -> str:
    """An OpenReview forum id from a forum/pdf URL (as written: ids are case-sensitive); a bare
    id only with bare=True (a record's own `openreview` field), else ''."""
    if not value:
        return ""
    value = value.strip()
    match = _OPENREVIEW_URL.search(value)
    if match:
        return match.group(1)
    return value if bare and _OPENREVIEW_ID.match(value) else ""


def first_author_key(authors: list[str]) -> str:
    """The first author's family name, folded ("Vaswani, Ashish" and "Ashish Vaswani" agree)."""
    if not authors:
        return ""
    name = authors[0]
    family = name.split(",")[0] if "," in name else (name.split() or [""])[-1]
    return fold(family).replace(" ", "")


def ident_key(title: str, authors: list[str], year: int | None) -> str:
    """Title + first author + year, only when all three are known (else too weak to match on)."""
    author = first_author_key(authors)
    return f"{title}|{author}|{year}" if title and author and year else ""


@dataclass
class Keys:
    """The identity keys of one record or stored paper."""

    abstract: str  # paper_id_for(abstract), '' without one
    title: str  # the folded real title, '' when the paper has none (a title made from the abstract)
    doi: str
    arxiv: str
    ident: str
    citekey: str = ""  # the entry's citation key, as written
    openreview: str = ""  # the OpenReview forum id
    chapter: str = field(default="", compare=False)  # bases()' second id, made with the others

    @classmethod
    def of(cls, rec: Record) -> Keys:
        doi = doi_key(rec.doi) or next((k for k in map(doi_key, rec.links) if k), "")
        arxiv = arxiv_key(rec.arxiv) or next((k for k in map(arxiv_key, [*rec.links, doi]) if k), "")
        title = title_key(rec.title)
        openreview = openreview_key(rec.openreview, bare=True) or links_openreview(
            [*([rec.url] if rec.url else []), *rec.links])
        abstract = chapter = ""
        if rec.abstract:  # normalised once (the import's costliest key): paper_id_for's hash
            norm = normalize_abstract(rec.abstract)
            abstract, chapter = _hash(norm), _hash(norm + "\x1f" + title)
        return cls(abstract, title, doi, arxiv, ident_key(title, rec.authors, rec.year),
                   (rec.citation_key or "").strip(), openreview, chapter)

    def bases(self, rec: Record) -> list[str]:
        """The ids a new paper may take, in order: the abstract's hash (as always), then one
        that also names the title (a chapter sharing its book's abstract); a title-only
        paper's is a hash of what the entry has (its key too when that is all there is)."""
        if self.abstract:
            return [self.abstract, self.chapter or _hash(normalize_abstract(rec.abstract) + "\x1f" + self.title)]
        weak = "" if self.ident or self.doi or self.arxiv or self.openreview else (rec.citation_key or "")
        parts = ["", self.title, self.ident, self.doi, self.arxiv, weak]
        if self.openreview:  # (only then: the ids of title-only papers made before stay the same)
            parts.append(self.openreview)
        return [_hash("\x1f".join(parts))]

    def new_id(self, rec: Record, taken: set[str]) -> str:
        """The first of `bases` not in `taken` (else a numbered variant of the last)."""
        bases = self.bases(rec)
        for base in bases:
            if base not in taken:
                return base
        n = 2
        while (candidate := _hash(f"{bases[-1]}#{n}")) in taken:
            n += 1
        return candidate


def links_openreview(links: Iterable[str]) -> str:
    """The first OpenReview forum id among links ('' if none)."""
    return next((k for k in map(openreview_key, links) if k), "")


def _hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def titles_agree(a: str, b: str) -> bool:
    """Two real (folded) titles of one DOI name the same paper: equal, one a prefix of the
    other (a subtitle dropped), or sharing most words."""
    if not a or not b or a == b or a.startswith(b) or b.startswith(a):
        return True
    wa, wb = set(a.split()), set(b.split())
    return len(wa & wb) / max(1, min(len(wa), len(wb))) >= MIN_SHARED_WORDS


@dataclass
class Matcher:
    """Known papers by their keys; `find` says which one a record is, or None when it is new."""

    by_doi: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # key -> [(id, title)]
    by_arxiv: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    by_openreview: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    by_abstract: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    by_ident: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)  # -> [(id, doi, arxiv)]
    by_citekey: dict[str, list[tuple[str, str, str, str]]] = field(default_factory=dict)  # -> [(id, title, doi, arxiv)]
    ids: set[str] = field(default_factory=set)

    def add(self, pid: str, keys: Keys) -> None:
        self.ids.add(pid)
        entry = (pid, keys.title)
        for index, key in ((self.by_doi, keys.doi), (self.by_arxiv, keys.arxiv),
                           (self.by_openreview, keys.openreview), (self.by_abstract, keys.abstract)):
            if key:
                index.setdefault(key, []).append(entry)
        if keys.ident:
            self.by_ident.setdefault(keys.ident, []).append((pid, keys.doi, keys.arxiv))
        if keys.citekey and keys.title:
            self.by_citekey.setdefault(keys.citekey, []).append((pid, keys.title, keys.doi, keys.arxiv))

    def find(self, keys: Keys, weak_id: str | None = None) -> str | None:
        for index, key in ((self.by_doi, keys.doi), (self.by_arxiv, keys.arxiv),
                           (self.by_openreview, keys.openreview)):
            for pid, title in index.get(key, ()) if key else ():
                if titles_agree(keys.title, title):
                    return pid
        for pid, title in self.by_abstract.get(keys.abstract, ()) if keys.abstract else ():
            if not keys.title or not title or keys.title == title:
                return pid
        for pid, doi, arxiv in self.by_ident.get(keys.ident, ()) if keys.ident else ():
            # Two DOIs (or arXiv ids) that differ are two publications of one title: a
            # conference abstract and the article, say.
            if not (doi and keys.doi and doi != keys.doi) and not (arxiv and keys.arxiv and arxiv != keys.arxiv):
                return pid
        # Reader's own export read back (perhaps edited in JabRef): the paper's citation key and
        # title. What a title-only entry without authors, year or DOI can be known by.
        for pid, title, doi, arxiv in self.by_citekey.get(keys.citekey, ()) if keys.citekey else ():
            if keys.title == title and not _differ(doi, keys.doi) and not _differ(arxiv, keys.arxiv):
                return pid
        if weak_id and weak_id in self.ids:  # a title-only entry seen before, exactly
            return weak_id
        return None


def _differ(a: str, b: str) -> bool:
    return bool(a and b and a != b)


def lookup_values(keys: Iterable[Keys]) -> dict[str, set[str]]:
    """The values to look the stored papers up by, per key column."""
    out: dict[str, set[str]] = {"doi": set(), "arxiv": set(), "abstract_key": set(), "ident_key": set(),
                                "citation_key": set(), "openreview": set()}
    for k in keys:
        for column, value in (("doi", k.doi), ("arxiv", k.arxiv), ("openreview", k.openreview),
                              ("abstract_key", k.abstract),
                              ("ident_key", k.ident), ("citation_key", k.citekey if k.title else "")):
            if value:
                out[column].add(value)
    return out
