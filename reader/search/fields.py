"""The search fields, declared once: the schema, the document builder and the query parser read this table."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchField:
    """One indexed field.

    kind: "text" (stemmed words), "names" (accent-folded words), "words" (unstemmed words
    for similarity, schema.similarity_words), "keyword", "id", "numeric", "venue". `free`: searched by plain words; `boost`: its weight in ranking (1 = abstract).
    `aliases`: the names a user may type before ":" (empty: not addressable).
    `pairs`: has a `<name>_bi` twin with its word pairs, for phrases.
    `ranked`: scored by ranked plain-word queries (with its boost) though not free.
    """

    name: str
    kind: str
    aliases: tuple[str, ...] = ()
    boost: float = 1.0
    free: bool = False
    ranked: bool = False
    pairs: bool = False
    stored: bool = False
    highlight: bool = False


# The real title weighs more than the abstract. A title derived from the abstract (`dtitle`,
# its opening sentence) repeats the abstract's words: strict queries leave it out, ranked
# ones count it lightly (0.3), as the opening restates the paper's subject (known-item MRR@10
# on five held-out samples of 1,000 titles: +0.008; at weight 1 it was -0.011). The method
# name is detected in the abstract: `method:` only (counting it too added nothing).
FIELDS: tuple[SearchField, ...] = (
    SearchField("id", "id", stored=True),
    SearchField("title", "text", ("title",), 2.5, free=True, pairs=True, stored=True, highlight=True),
    SearchField("dtitle", "text", (), 0.3, ranked=True, pairs=True, highlight=True),
    SearchField("method", "text", ("method",), 1.0, pairs=True, highlight=True),
    SearchField("abstract", "text", ("abstract",), 1.0, free=True, pairs=True, stored=True,
                highlight=True),
    SearchField("authors", "names", ("author", "authors"), 1.0, free=True, pairs=True,
                highlight=True),
    SearchField("tagtext", "text", (), 1.0, free=True, pairs=True, highlight=True),
    SearchField("note", "text", ("note",), 1.0, free=True, pairs=True, highlight=True),
    SearchField("comments", "text", ("comment", "comments"), 1.0, free=True, pairs=True,
                highlight=True),
    SearchField("venue", "venue", ("venue",)),
    # The real title and the abstract, unstemmed: what similar.py compares; ranked queries
    # also score a word's typed form in it, at this boost (rank.EXACT_FIELD).
    SearchField("words", "words", (), 0.5),
    SearchField("year", "numeric", ("year",)),
    SearchField("tags", "keyword", ("tag", "tags")),
    SearchField("flags", "keyword"),
)
BY_NAME = {f.name: f for f in FIELDS}
# Fields searched by free words, in order of importance.
FREE_FIELDS = [f.name for f in FIELDS if f.free]
# Fields scored by ranked plain-word queries.
RANKED_FIELDS = [f.name for f in FIELDS if f.free or f.ranked]
# Every field with word pairs (phrases are matched on `<name>_bi`).
PAIR_FIELDS = [f.name for f in FIELDS if f.pairs]
# What a user may type before ":" -> field name.
ALIASES = {a: f.name for f in FIELDS for a in f.aliases}
# A typed field that also searches another field ("title:" finds derived titles too).
ALSO = {"title": "dtitle"}
HIGHLIGHT = frozenset(f.name for f in FIELDS if f.highlight)
# Years the index can hold (a 32-bit unsigned column); others are left out of the document.
YEAR_MIN, YEAR_MAX = 0, 9999
