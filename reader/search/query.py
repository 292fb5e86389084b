"""The Reader query language: checks the query, then turns it into a Whoosh query."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from whoosh import qparser
from whoosh import query as wq
from whoosh.fields import Schema

from reader.search.fields import ALIASES, ALSO, BY_NAME, FREE_FIELDS, HIGHLIGHT, PAIR_FIELDS
from reader.search.schema import (
    cached_stem,
)
from reader.search.terms import (  # noqa: F401  (near_terms: used by the tests through here)
    MAX_FUZZY_DISTANCE,
    FastFuzzy,
    FastPrefix,
    FastRange,
    FastWildcard,
    PairPhrase,
    near_terms,
)

FLAGS = {
    "is:starred": "starred",
    "is:unstarred": "unstarred",
    "is:read": "read",
    "is:unread": "unread",
    "is:skipped": "skipped",
    "is:unskipped": "unskipped",
    "has:note": "hasnote",
    "has:abstract": "hasabstract",  # -has:abstract: the title-only papers
}
FIELD_ALIASES = ALIASES
# Fields whose words are highlighted in the abstract/title.
_HIGHLIGHT_FIELDS = HIGHLIGHT
_OPS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}
_BINARY = _OPS - {"NOT"}
_TOKEN = re.compile(r'\(|\)|"[^"]*"?|[^\s()"]+(?:"[^"]*"?)?')
_WORD = re.compile(r"\w+(?:\.?\w+)*")
_FIELD = re.compile(r"^(\w+):(.*)$", re.S)
_YEAR_RANGE = re.compile(r"^(\d{4})-(\d{4})$")
_YEAR_CMP = re.compile(r"^(?:[<>]=?)?\d{1,4}$")
_FUZZY = re.compile(r"^(.*?)~(\d*)$")
_FUZZY_WORD = re.compile(r"(?<!\w)(\w+)~")
MAX_WORD = 100  # longer words are cut (the parsers' regexes are quadratic in a word's length)
MAX_QUERY = 2000  # characters of a query searched
FUZZY_PREFIX = 2  # leading letters a fuzzy term must share (speed: ~3x per letter)


@dataclass
class ParsedQuery:
    """A checked query: `query` is None when there is nothing to search."""

    text: str
    query: wq.Query | None
    problem: str | None = None
    terms: list[str] = field(default_factory=list)
    filters_only: bool = False
    fallback: bool = False


def make_parser(schema: Schema) -> qparser.QueryParser:
    """Multifield parser: AND by default, fuzzy `~`, `year:>2019`, no `*:*` and no `^` boosts."""
    boosts = {name: BY_NAME[name].boost for name in FREE_FIELDS}
    p = qparser.MultifieldParser(FREE_FIELDS, schema, fieldboosts=boosts, group=qparser.AndGroup)
    p.remove_plugin_class(qparser.EveryPlugin)
    p.remove_plugin_class(qparser.BoostPlugin)
    p.add_plugin(qparser.FuzzyTermPlugin())
    p.add_plugin(qparser.GtLtPlugin())
    return p


class _Bad(Exception):
    """A query that can't be parsed as written; the message is shown to the user."""


def _rewrite(text: str, terms: list[str], problems: list[str]) -> tuple[str, bool]:
    """Check syntax and rewrite to Whoosh syntax; returns (text, has_non_filter_parts).

    Raises _Bad for structural errors (then the query is searched as plain words). Softer
    problems (unknown filter, bad year) are appended to `problems` and the part is dropped.
    """
    return _Rewriter(_TOKEN.findall(text), terms, problems).run()


class _Rewriter:
    """One pass over the query's tokens: groups, operators, then each term by its kind.

    A field group (`title:(a OR "b c")`) is written out as its single-word forms
    (`title:a OR title:"b c"`), so every check and companion field (`title:` also searches
    derived titles) applies inside a group exactly as outside one.
    """

    def __init__(self, toks: list[str], terms: list[str], problems: list[str]) -> None:
        self.toks = toks
        self.terms = terms
        self.problems = problems
        self.out: list[str] = []
        self.depth = 0
        self.has_words = False
        self.negate_next = False
        self.group_field: str | None = None  # a `field:` waiting for its "("
        self.groups: list[tuple[int, str]] = []  # (depth, field) of the open field groups

    def run(self) -> tuple[str, bool]:
        for i, tok in enumerate(self.toks):
            nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
            if tok == "(":
                self._open()
            elif tok == ")":
                self._close()
            elif tok in _OPS:
                self._operator(tok, nxt)
            else:
                negated = self.negate_next
                self.negate_next = False
                self._term(tok, nxt, negated)
        if self.depth > 0:
            raise _Bad('Unbalanced "("')
        return " ".join(self.out), self.has_words

    def _open(self) -> None:
        self.depth += 1
        if self.group_field is not None:
            self.groups.append((self.depth, self.group_field))
            self.group_field = None
        self.out.append("(")

    def _close(self) -> None:
        if self.groups and self.groups[-1][0] == self.depth:
            self.groups.pop()
        self.depth -= 1
        if self.depth < 0:
            raise _Bad('Unbalanced ")"')
        self.out.append(")")

    def _operator(self, tok: str, nxt: str | None) -> None:
        prev = self.out[-1] if self.out else None
        if tok in _BINARY and (prev is None or prev == "(" or prev in _OPS):
            raise _Bad(f'"{tok}" needs words on both sides')
        if prev is not None and prev.endswith(":"):
            raise _Bad(f'Nothing after "{prev}"')
        if nxt is None or nxt == ")" or nxt in _BINARY:
            raise _Bad(f'"{tok}" needs a word after it')
        self.out.append(tok)
        self.negate_next = tok in ("NOT", "ANDNOT")

    def _drop_not(self) -> None:
        """The part after a NOT was dropped: drop the NOT too."""
        if self.out and self.out[-1] == "NOT":
            self.out.pop()

    def _words(self, words: list[str], fname: str | None, negated: bool) -> None:
        """Searched words (highlighted and offered for "did you mean" unless negated)."""
        if words:
            self.has_words = True
            if not negated and fname not in ("tags", "venue", "year"):
                self.terms.extend(w.lower() for w in words)

    def _term(self, tok: str, nxt: str | None, negated: bool) -> None:
        if tok.startswith("-") and len(tok) > 1:
            self.out.append("NOT")
            tok = tok[1:]
            negated = True
        low = tok.lower()
        if low in FLAGS:
            self.out.append("flags:" + FLAGS[low])
            return
        m = _FIELD.match(tok)
        name = m.group(1).lower() if m else None
        if m and name in ("is", "has"):
            self.problems.append(
                f'Unknown filter "{tok}" (use is:starred, is:unstarred, is:read, is:unread, '
                "is:skipped, is:unskipped, has:note, has:abstract) — ignored"
            )
            self._drop_not()
            return
        if m and name not in FIELD_ALIASES and m.group(2) and not m.group(2).startswith("/"):
            self._unknown_field(m.group(1), m.group(2), negated)
            return
        fname = self.groups[-1][1] if self.groups else None
        value = tok
        if m and name in FIELD_ALIASES:
            fname = FIELD_ALIASES[name]
            value = m.group(2)
            if value == "":
                if nxt == "(":
                    self.group_field = fname
                    return
                raise _Bad(f'Nothing after "{tok}"')
        if value.startswith('"'):
            self._quoted(fname, value, negated)
        elif fname == "year":
            self._year(tok, value)
        else:
            self._word(tok, fname, value, negated)

    def _unknown_field(self, name: str, value: str, negated: bool) -> None:
        # "foo:bar" names no field: search its words and say so (URLs like http://… are words).
        words = _WORD.findall(value)
        self.problems.append(f'Unknown field "{name}:" (fields: title, abstract, author, venue, '
                             f'year, tag, note, method) — searched for {" ".join(words) or "nothing"}')
        if words:
            self.has_words = True
            if not negated:
                self.terms.extend(w.lower() for w in words)
            self.out.append("(" + " ".join(words) + ")")

    def _quoted(self, fname: str | None, value: str, negated: bool) -> None:
        if len(value) < 2 or not value.endswith('"'):
            raise _Bad("Unbalanced quote (\")")
        words = _WORD.findall(value)
        if fname == "tags":
            # A tag is one keyword even with spaces; single quotes keep it whole.
            value = "'" + value[1:-1].replace("'", " ").strip() + "'"
        elif not negated and fname not in ("year", "venue"):
            self.terms.extend(w.lower() for w in words)
        self.has_words = self.has_words or bool(words)
        self.out.append(_field_term(fname, value))

    def _year(self, tok: str, value: str) -> None:
        ym = _YEAR_RANGE.match(value)
        if ym:
            value = f"[{ym.group(1)} TO {ym.group(2)}]"
        elif not _YEAR_CMP.match(value):
            self.problems.append(f'"{tok}": year must be like 2020, 2018-2021 or >2019 — ignored')
            self._drop_not()
            return
        self.has_words = True
        self.out.append("year:" + value)

    def _word(self, tok: str, fname: str | None, value: str, negated: bool) -> None:
        """A plain word, prefix or fuzzy word (possibly with a field)."""
        fz = _FUZZY.match(value)
        core = value
        if fz:
            core = fz.group(1)
            dist = fz.group(2)
            if len(_WORD.findall(core)) != 1 or "*" in core:
                raise _Bad(f'"~" needs a word before it ({tok})')
            if len(core) <= FUZZY_PREFIX:
                self.problems.append(f'"{tok}": fuzzy search needs a word of 3 or more letters — '
                                     "searched exactly")
                value = core
            elif dist and int(dist) > 2:
                value = f"{core}~2"
        elif "~" in value and fname != "tags":
            # "~" inside a word ("a~5graph") is no fuzzy word; Whoosh would read one (any
            # distance) out of it. Search its words instead.
            words = _WORD.findall(value)
            self.problems.append(f'"~" only ends a word ({_short(tok)}) — searched for '
                                 f'{" ".join(words) or "nothing"}')
            if not words:
                self._drop_not()
                return
            self._words(words, fname, negated)
            self.out.append("(" + " ".join(_field_term(fname, w) for w in words) + ")")
            return
        if "*" in core:
            stem = core.split("*", 1)[0]
            if len(stem) < 2 or not _WORD.fullmatch(stem):
                raise _Bad(f'"{tok}": a prefix needs at least 2 letters before "*"')
            core = stem
        if fname == "tags":
            # Whole value is the tag (it may contain hyphens); quote to keep it one keyword.
            value = "'" + value.replace("'", " ") + "'"
        words = _WORD.findall(core)
        if not words:
            # Bare punctuation: nothing to search in this token.
            self._drop_not()
            return
        self.has_words = True
        if not negated and fname not in ("tags", "venue"):
            self.terms.extend(w.lower() for w in words)
        self.out.append(_field_term(fname, value))


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[: n - 3] + "…"


def _field_term(fname: str | None, value: str) -> str:
    """`field:value`, ORed with the field's companion (`title:` also finds derived titles)."""
    if fname is None:
        return value
    also = ALSO.get(fname)
    if also is None:
        return f"{fname}:{value}"
    return f"({fname}:{value} OR {also}:{value})"


def _plain(text: str) -> tuple[str, list[str]]:
    """Fallback: the words of the query (field names and operators dropped) plus its filters."""
    flags = [FLAGS[t.lower()] for t in text.split() if t.lower() in FLAGS]
    words = []
    for m in re.finditer(r"(\w+)(:?)", text):
        w, colon = m.group(1), m.group(2)
        if colon and w.lower() in FIELD_ALIASES or w in _OPS:
            continue
        if w.lower() in ("is", "has") and colon:
            continue
        words.append(w.lower())
    words = [w for w in words if w not in {"starred", "unstarred", "read", "unread", "skipped", "unskipped", "note"}
             or not flags]
    return " ".join(["flags:" + f for f in flags] + words), words


def _leaf_fields(q: wq.Query) -> set[str]:
    names = set()
    for leaf in q.leaves():
        fn = getattr(leaf, "fieldname", None)
        if fn is not None:
            names.add(fn)
    return names


def _tune(q: wq.Query, originals: dict[str, str]) -> wq.Query:
    """Faster prefix and fuzzy terms, each charged to the query's work budget. Fuzzy terms keep
    the first FUZZY_PREFIX letters (Whoosh otherwise scans the whole term list) and at most
    MAX_FUZZY_DISTANCE, whatever the parser read; free-word ones skip the author names."""

    def fix(node: wq.Query) -> wq.Query:
        if type(node) is wq.FuzzyTerm:
            fast = FastFuzzy(node.fieldname, node.text, boost=node.boost,
                             maxdist=min(node.maxdist, MAX_FUZZY_DISTANCE),
                             prefixlength=max(node.prefixlength, FUZZY_PREFIX))
            fast.original = originals.get(node.text, "")
            return fast
        if type(node) is wq.Prefix:
            return FastPrefix(node.fieldname, node.text, boost=node.boost)
        if type(node) is wq.Wildcard:
            return FastWildcard(node.fieldname, node.text, boost=node.boost)
        if type(node) is wq.TermRange:
            return FastRange(node.fieldname, node.start, node.end, node.startexcl,
                             node.endexcl, boost=node.boost, constantscore=True)
        if type(node) is wq.Phrase and node.fieldname in PAIR_FIELDS:
            return PairPhrase(node.fieldname, list(node.words), boost=node.boost,
                              char_ranges=node.char_ranges)
        if isinstance(node, wq.Or) and len(node.subqueries) > 1 and all(
            isinstance(c, wq.FuzzyTerm) for c in node.subqueries
        ):
            node.subqueries = [c for c in node.subqueries if c.fieldname != "authors"]
        return node

    return q.accept(fix)


def _bounded(text: str) -> tuple[str, str | None]:
    """`text` cut to MAX_QUERY characters and its words to MAX_WORD, with a note if cut."""
    note = None
    if len(text) > MAX_QUERY:
        text, note = text[:MAX_QUERY], f"Query cut to its first {MAX_QUERY} characters"
    if any(len(w) > MAX_WORD for w in text.split()):
        text = " ".join(w[:MAX_WORD] for w in text.split())
        note = note or f"Words longer than {MAX_WORD} letters were cut"
    return text, note


def parse_query(text: str, parser: qparser.QueryParser) -> ParsedQuery:
    """Check and parse `text`; never raises. Malformed queries are searched as plain words."""
    problems: list[str] = []
    terms: list[str] = []
    cleaned = text.replace("?", " ").strip()
    cleaned, cut = _bounded(cleaned)
    if cut:
        problems.append(cut)
    fallback = False
    try:
        rewritten, has_words = _rewrite(cleaned, terms, problems)
    except _Bad as e:
        fallback = True
        rewritten, words = _plain(cleaned)
        terms = words
        shown = cleaned if len(cleaned) <= 40 else cleaned[:37] + "…"
        tail = "searched as plain words" if words else "nothing to search"
        problems.insert(0, f"{e} in {shown} — {tail}")
        has_words = bool(words)
    if not rewritten.strip():
        if not problems and not cleaned:
            return ParsedQuery(text, None, None, [], False, fallback)
        return ParsedQuery(text, None, "; ".join(problems) or "Nothing to search for",
                           [], False, fallback)
    try:
        q = parser.parse(rewritten)
    except Exception as e:  # Whoosh's parser is lenient; this is a last resort
        fallback = True
        rewritten, terms = _plain(cleaned)
        problems.insert(0, f"Could not parse the query ({e}) — searched as plain words")
        q = parser.parse(rewritten) if rewritten else wq.NullQuery
    originals = {}
    for m in _FUZZY_WORD.finditer(rewritten):
        word = m.group(1).lower()
        originals[cached_stem(word)] = word
    q = _tune(q.normalize(), originals)
    if q is wq.NullQuery or isinstance(q, type(wq.NullQuery)):
        msg = "; ".join(problems) if problems else "Only common words — nothing to search"
        return ParsedQuery(text, None, msg, [], False, fallback)
    fields = _leaf_fields(q)
    filters_only = bool(fields) and fields <= {"flags"} and not has_words
    terms = list(dict.fromkeys(terms))
    return ParsedQuery(text, q, "; ".join(problems) or None, terms, filters_only, fallback)


def highlight_terms(q: wq.Query, reader) -> tuple[frozenset[str], tuple[str, ...]]:
    """Indexed terms (stems) and prefixes a snippet should highlight, negated parts excluded."""
    stems: set[str] = set()
    prefixes: list[str] = []

    def walk(node: wq.Query) -> None:
        if isinstance(node, wq.Not):
            return
        if isinstance(node, wq.AndNot):
            walk(node.a)
            return
        if isinstance(node, wq.Phrase):
            if node.fieldname in _HIGHLIGHT_FIELDS:
                stems.update(node.words)
            return
        if isinstance(node, wq.Prefix):
            if node.fieldname in _HIGHLIGHT_FIELDS:
                prefixes.append(node.text)
            return
        if isinstance(node, wq.FuzzyTerm):
            if node.fieldname in _HIGHLIGHT_FIELDS:
                # The words the search matched (expanding again would cost a second budget).
                found = getattr(node, "found", None)
                if found is None:
                    found = (t for _, t in node.expanded_terms(reader))
                for t in found:
                    stems.add(t.decode("utf-8") if isinstance(t, bytes) else t)
            return
        if isinstance(node, wq.Term):
            if node.fieldname in _HIGHLIGHT_FIELDS and isinstance(node.text, str):
                stems.add(node.text)
            return
        if node.is_leaf():
            return
        for child in node.children():
            walk(child)

    walk(q)
    return frozenset(stems), tuple(prefixes)


def truncated_parts(q: wq.Query) -> list[str]:
    """Expanding parts of `q` that were cut to their budget by the last search."""
    out = []
    for leaf in q.leaves():
        if getattr(leaf, "truncated", False):
            words = getattr(leaf, "words", None)
            shown = f'"{" ".join(words)}"' if words else getattr(leaf, "text", "") or "[range]"
            out.append(f"{leaf.fieldname}:{shown}")
    return list(dict.fromkeys(out))


@dataclass
class PlainQuery:
    """A query of plain words (and is:/has: filters), searched by ranked retrieval."""

    words: list[str]
    prefix: str | None
    flags: list[str]
    note: str | None = None  # the query was cut to its budget


_NOT_PLAIN = re.compile(r'[":()*~^\[\]{}]')
_EDGE_PUNCT = ".,;:!?'"


def plain_query(text: str, as_you_type: bool = False) -> PlainQuery | None:
    """The words of `text` if it is only plain words and filters, else None (strict syntax:
    operators, quotes, +/-, fields, wildcards and fuzzy keep their meaning). With
    `as_you_type`, an unfinished last word (no space after it) becomes a prefix."""
    note = None
    if len(text) > MAX_WORD:
        text, note = _bounded(text)
    toks = text.replace("?", " ").split()
    if not toks:
        return None
    words: list[str] = []
    flags: list[str] = []
    prefix: str | None = None
    for i, tok in enumerate(toks):
        low = tok.lower()
        if low in FLAGS:
            flags.append(FLAGS[low])
            continue
        if tok in _OPS or tok[0] in "+-":
            return None
        core = tok.strip(_EDGE_PUNCT)
        if _NOT_PLAIN.search(core):
            return None
        m = _FIELD.match(tok)
        if m and (m.group(1).lower() in FIELD_ALIASES or m.group(1).lower() in ("is", "has")):
            return None
        found = [w.lower() for w in _WORD.findall(core)]
        last = i == len(toks) - 1
        if last and as_you_type and found and not text[-1].isspace() and core == tok:
            prefix = found.pop()
        words.extend(found)
    if not words and not prefix:
        return None
    return PlainQuery(words, prefix, flags, note)


def as_prefix(query: str) -> str:
    """`query` with its unfinished last word (2+ letters, no space after) as `word*`."""
    m = re.search(r"(?<![\w~*\"])(\w{2,})$", query)
    return query + "*" if m else query


def replace_word(text: str, word: str, new: str) -> tuple[str, int]:
    return re.subn(rf"(?i)(?<!\w){re.escape(word)}(?!\w)", new, text, count=1)
