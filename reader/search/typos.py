"""Typo tolerance: the library's own words near a word it lacks, for ranking and "did you mean".

A finished query word whose stem no paper has ("atention") is searched as its nearest
library words ("attention"): within 1 edit from MIN_TYPO_LEN letters, 2 from TWO_TYPOS_LEN
(an edit: a letter dropped, added, changed, or two neighbours swapped), the most frequent at
the least distance first, each counting only TYPO_WEIGHT of a word typed right, so a paper
with the typed word itself always ranks above one found through a correction.

The vocabulary is the unstemmed `words` field (title and abstract as written), whose words
are what a user types and a suggestion shows. Near words are found with a symmetric-delete
table per segment (SymSpell's idea: a word and a typo of it share a form with up to two
letters deleted): every word's 1-letter deletions, and for long words their 2-letter ones,
hashed into one sorted array of 64-bit integers (8 bytes per form), so a lookup is a few
dozen bisections instead of an edit-distance scan of the lexicon. Segments never change, so
a table is built once per segment (bench_quality prints its size and build time at 50k);
`warm` builds them off the GUI thread, and a keystroke never builds a big one.
"""

from __future__ import annotations

import functools
import threading
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import product, repeat
from typing import Literal

from reader.search.schema import analyze, cached_stem, pair_bucket, plain_words
from reader.search.segments import (
    cached_lexicon,
    doc_frequency,
    postings,
    segment_lexicon,
)
from reader.search.stopwords import SIMILARITY_STOP
from reader.search.terms import near_terms

VOCAB_FIELD = "words"  # unstemmed title and abstract words
MIN_TYPO_LEN = 4  # shorter words are never corrected (every 3-letter word is near dozens)
TWO_TYPOS_LEN = 8  # words this long may have two typos
MAX_TYPO_LEN = 24  # longer "words" are not looked up (formulas, hashes, pasted junk)
MAX_NEAR = 4  # near words one typo'd word is searched as
# A near word's contribution, as a share of the typed word's: below any exact match of a
# word of the query (a typo of a rarer word can still beat a common exact word).
TYPO_WEIGHT = {1: 0.6, 2: 0.4}
MAX_TYPO_WORDS = 8  # words of one query looked up (the rest of a long garbage query: none)
# A word few papers have (as typed, or its stem: "sparce" -> "sparc", as in SPARC), with a
# near word RARE_RATIO times as frequent, is a typo too; its own papers still rank first.
RARE_MAX = 25
RARE_RATIO = 200
# "Did you mean" rewrites a word a few papers have only if it is this rare: a real word
# missing from the library ("lime", "greed") is better left than turned into "time".
SUGGEST_RARE_MAX = 1
_STEMMED_TEXT = frozenset({"title", "dtitle", "abstract"})  # `words` has them as typed
COLD_BUILD_DOCS = 5000  # bigger segments' tables are built by `warm` only (~1-2 s per 25k)
SUGGEST_COMBINATIONS = 64
PAIR_COUNT_FIELDS = ("title_bi", "dtitle_bi", "abstract_bi")  # corrected queries compared for co-occurrence
_HASH_BITS = 40
_INDEX_BITS = 24  # up to 16M words per segment
NUMPY_SORT_FROM = 100_000  # keys: below, a list's sort takes < 50 ms
BUILD_STEP = 500  # words per step of a table's build (~20 ms of CPU at 100k)
NUMPY_BUILD_FROM = 4000  # words: a bigger table is built by numpy (_numpy_keys)
NUMPY_STEP = 2000  # equally long words per step of numpy's build
_INDEX_MASK = (1 << _INDEX_BITS) - 1
_HASH_MASK = (1 << _HASH_BITS) - 1


@dataclass(frozen=True)
class Near:
    """A library word near a typed one: its edit distance and document frequency."""

    word: str
    distance: int
    df: int


class _Table:
    """One segment's symmetric-delete table over its vocabulary words."""

    __slots__ = ("words", "dfs", "keys")

    def __init__(self, lex: dict[str, tuple[int, int, int]], extra: dict[str, int],
                 pause: Callable[[], object] | None = None) -> None:
        """`pause`: called between the build's steps (warm's gives way to the user's keys; a
        search's own cold build of a small segment only lets the GIL go)."""
        words = [w for w in lex if MIN_TYPO_LEN - 1 <= len(w) <= MAX_TYPO_LEN + 2 and w.isalpha()]
        words += [w for w in extra if w not in lex]
        self.words = words
        self.dfs = array("I", (lex[w][0] if w in lex else extra[w] for w in words))
        # Built on a worker beside the GUI thread: in steps, the GIL let go between them, and
        # sorted where the GIL is released (a list's sort of the 1.3M keys of a 100k library's
        # segment held it for a second: a J/K step waited that long).
        if len(words) >= NUMPY_BUILD_FROM:
            self.keys = _numpy_keys(words, self.dfs, pause or _let_go)
            return
        keys = array("Q")
        for start in range(0, len(words), BUILD_STEP):
            keys.extend(_python_keys(words, self.dfs, range(start, min(start + BUILD_STEP, len(words)))))
            (pause or _let_go)()
        self.keys = sorted_keys(keys)

    def candidates(self, forms: set[str]) -> set[int]:
        keys, out = self.keys, set()
        n = len(keys)
        for form in forms:
            h = form_hash(form)
            j = bisect_left(keys, h << _INDEX_BITS)
            while j < n and keys[j] >> _INDEX_BITS == h:
                out.add(keys[j] & _INDEX_MASK)
                j += 1
        return out

    def nbytes(self) -> int:
        return self.keys.itemsize * len(self.keys) + self.dfs.itemsize * len(self.dfs) + 8 * len(self.words)


def _depth(word: str, df: int) -> int:
    """How many deleted letters a library word's forms have: two typos only towards words in
    2+ papers (half the table and build time at 50k: most words in one paper are themselves
    typos or one-off names)."""
    return 2 if len(word) >= TWO_TYPOS_LEN - 1 and df >= 2 else 1


# A form's hash: its UTF-8 bytes as one integer (little-endian, base 256), modulo a prime
# below 2**32. Not Python's hash(), which changes with every process and which numpy cannot
# compute: this one is the same in both builds (numpy's, for the ASCII words of big tables,
# computes a word's deletions from its prefix sums modulo the prime, _numpy_keys) and in
# lookups. Two forms with one hash only make an extra candidate, which the distance check drops.
_PRIME = 3000000019  # 256**4 % _PRIME = 1294967277
_LITTLE: repeat[Literal['little']] = repeat("little")


def form_hash(form: str) -> int:
    """A form's hash in the table (< 2**32 <= 2**_HASH_BITS), the same in every process."""
    return int.from_bytes(form.encode(), "little") % _PRIME


def _python_keys(words: list[str], dfs: array, indexes: Iterable[int]) -> list[int]:
    """The keys of these words' forms, hashed one form at a time (form_hash, its calls made
    by map)."""
    out: list[int] = []
    extend, bits, prime = out.extend, _INDEX_BITS, _PRIME
    for i in indexes:
        w = words[i]
        forms = map(str.encode, _deletes(w, _depth(w, dfs[i])))
        extend([(x % prime) << bits | i for x in map(int.from_bytes, forms, _LITTLE)])
    return out


def _numpy_keys(words: list[str], dfs: array, pause: Callable[[], object]) -> array:
    """A big table's keys (form_hash(form) << _INDEX_BITS | word index, for each word's forms
    of _deletes), sorted and unique, computed by numpy a group of equally long ASCII words at
    a time (other words one form at a time): ~4x less CPU than hashing each form's string
    (~2.5 s at 100k, each time the window started). A deletion's hash comes from the word's
    prefix sums, so no form is built."""
    import numpy as np

    u64 = np.uint64
    groups: dict[tuple[int, int], list[int]] = {}
    others: list[int] = []
    for i, w in enumerate(words):
        if w.isascii():
            groups.setdefault((len(w), _depth(w, dfs[i])), []).append(i)
        else:
            others.append(i)
    parts = [np.array(_python_keys(words, dfs, others), dtype=u64)]
    for (n, depth), members in groups.items():
        for start in range(0, len(members), NUMPY_STEP):
            chunk = members[start:start + NUMPY_STEP]
            text = "".join(words[i] for i in chunk).encode("ascii")
            codes = np.frombuffer(text, dtype=np.uint8).reshape(len(chunk), n).astype(u64)
            h = _form_hashes(np, codes, n, depth)
            parts.append((h << u64(_INDEX_BITS) | np.array(chunk, dtype=u64)).ravel())
            pause()
    keys = np.concatenate(parts)
    keys.sort()  # (with the GIL let go); then each key once (np.unique hashes first: 5x slower)
    keep = np.ones(len(keys), dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    out = array("Q")
    out.frombytes(keys[keep].tobytes())
    return out


def _form_hashes(np, codes, n: int, depth: int):
    """Each word's forms' integers modulo _PRIME (rows: the word, its n deletions, then its
    n(n-1)/2 double deletions; columns: the words). Every product stays below 2**64."""
    u64 = np.uint64
    p = u64(_PRIME)
    inv = pow(256, -1, _PRIME)
    powers = np.array([pow(256, j, _PRIME) for j in range(n)], dtype=u64)
    prefix = np.zeros((codes.shape[0], n + 1), dtype=u64)  # bytes < 2**8, powers < 2**32
    np.cumsum(codes * powers, axis=1, dtype=u64, out=prefix[:, 1:])
    prefix %= p
    total = prefix[:, n]
    rows = [total]
    if n > 2:  # one letter deleted (a form of 2 letters or fewer is never cut)
        inv1 = u64(inv)
        rows += [(prefix[:, i] + (total + p - prefix[:, i + 1]) % p * inv1) % p for i in range(n)]
    if depth >= 2 and n > 3:  # two deleted
        inv1, inv2 = u64(inv), u64(inv * inv % _PRIME)
        rows += [(prefix[:, i] + (prefix[:, j] + p - prefix[:, i + 1]) % p * inv1 % p
                  + (total + p - prefix[:, j + 1]) % p * inv2) % p
                 for i in range(n) for j in range(i + 1, n)]
    return np.stack(rows)


def _let_go() -> None:
    time.sleep(0)


# What `pause` does: the window sets its own (it waits while the user is pressing keys, so
# that warm-up work gives way to J/K and typing); by default the GIL is let go.
_pause_hook: list[Callable[[], object]] = [_let_go]


def set_pause(hook: Callable[[], object] | None) -> None:
    """Make `pause` call `hook` (None: the default, which only lets the GIL go)."""
    _pause_hook[0] = hook or _let_go


def pause() -> None:
    """Between two steps of a long build on a worker (the index's warm-up): let the GIL go (the
    GUI thread, waiting for it, takes it now rather than at the interpreter's next forced
    switch), and wait there while the window says the user is interacting."""
    _pause_hook[0]()


def sorted_keys(keys: array) -> array:
    """`keys` sorted (unsigned 64-bit integers). A big table's by numpy, which sorts with the GIL
    released (a list's sort of 1.3M keys held it for a second beside the GUI thread); a small
    one's by a list's sort, the same order, without importing numpy (a CLI search of a small
    library builds its tables and must not load it)."""
    if len(keys) < NUMPY_SORT_FROM:
        return array("Q", sorted(keys))
    import numpy as np

    out = array("Q")
    out.frombytes(np.sort(np.frombuffer(keys, dtype=np.uint64)).tobytes())
    return out


def _deletes(word: str, depth: int) -> set[str]:
    """`word` and its forms with up to `depth` letters deleted."""
    out = {word}
    edge = {word}
    for _ in range(depth):
        edge = {w[:i] + w[i + 1:] for w in edge if len(w) > 2 for i in range(len(w))}
        out |= edge
    return out


# segment id -> its table; segments never change (a rebuild's is ~2 s and ~30 MB at 50k).
_tables: dict[str, _Table] = {}
_tables_lock = threading.Lock()


def _table(leaf, build: bool = True) -> _Table | None:
    if leaf.segment() is None:  # an empty index's reader
        return None
    key = leaf.segment().segment_id()
    table = _tables.get(key)
    if table is None and build:
        table = _store(key, segment_lexicon(leaf, VOCAB_FIELD), _stop_words(leaf))
    return table


def _stop_words(leaf) -> dict[str, int]:
    """The similarity stop list's words (not in `words`: "between", "however") that this
    segment's abstracts have, so that a typo of one is corrected too."""
    lex = cached_lexicon(leaf, "abstract") or segment_lexicon(leaf, "abstract")
    out = {}
    for w in SIMILARITY_STOP:
        entry = lex.get(cached_stem(w)) if len(w) >= MIN_TYPO_LEN - 1 and w.isalpha() else None
        if entry:
            out[w] = entry[0]
    return out


def warm(searcher) -> None:
    """Build every segment's table (off the GUI thread, once per segment)."""
    for build in pending_tables(searcher):
        build()


def pending_tables(searcher) -> list[Callable[[], object]]:
    """The tables still to build, as steps: the lexicons are read here (under the index's
    read lock: Whoosh shares file handles), the CPU work (~1-2 s per 25k papers) is the
    steps', which need no lock, so searches typed meanwhile are not held up."""
    if VOCAB_FIELD not in searcher.schema:
        return []
    steps: list[Callable[[], object]] = []
    for leaf, _ in searcher.reader().leaf_readers():
        key = leaf.segment().segment_id() if leaf.segment() is not None else None
        if key is not None and key not in _tables:
            lex, extra = segment_lexicon(leaf, VOCAB_FIELD), _stop_words(leaf)
            steps.append(functools.partial(_store, key, lex, extra, pause))
    return steps


def _store(key: str, lex: dict[str, tuple[int, int, int]], extra: dict[str, int],
           pause: Callable[[], object] | None = None) -> _Table:
    table = _Table(lex, extra, pause)
    with _tables_lock:
        if len(_tables) > 256:
            _tables.clear()
        _tables[key] = table
    return table


def max_distance(word: str) -> int:
    n = len(word)
    if n < MIN_TYPO_LEN or n > MAX_TYPO_LEN or not word.isalpha():
        return 0
    return 2 if n >= TWO_TYPOS_LEN else 1


def near_words(reader, word: str, *, limit: int = MAX_NEAR) -> list[Near]:
    """Library words within `max_distance(word)` edits of `word` (itself excluded), nearest
    and then most frequent first. A big segment whose table `warm` has not built (a one-off
    CLI search) is searched more cheaply, 1 edit after the first letter (terms.near_terms,
    a regex over the words with that letter: tens of ms); a query never builds one."""
    maxd = max_distance(word)
    if not maxd or VOCAB_FIELD not in reader.schema:
        return []
    forms = _deletes(word, maxd)
    found: dict[str, int] = {}
    for leaf, _ in reader.leaf_readers():
        table = _table(leaf, build=leaf.doc_count_all() <= COLD_BUILD_DOCS)
        if table is None:
            if leaf.segment() is not None:
                lex = segment_lexicon(leaf, VOCAB_FIELD)
                for w in near_terms(leaf, VOCAB_FIELD, word, 1):
                    if w in lex:
                        found[w] = found.get(w, 0) + lex[w][0]
            continue
        words, dfs = table.words, table.dfs
        for i in table.candidates(forms):
            w = words[i]
            found[w] = found.get(w, 0) + dfs[i]
    out = []
    for w, df in found.items():
        if w != word:
            d = distance(word, w, maxd)
            if d <= maxd:
                out.append(Near(w, d, df))
    out.sort(key=lambda n: (n.distance, -n.df, n.word))
    return out[:limit]


def distance(a: str, b: str, maxd: int) -> int:
    """Optimal-string-alignment edit distance (a swap of neighbours is one edit), or
    maxd + 1 once it must exceed maxd."""
    if abs(len(a) - len(b)) > maxd:
        return maxd + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        ca = a[i - 1]
        for j in range(1, len(b) + 1):
            cost = ca != b[j - 1]
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        if min(cur) > maxd:
            return maxd + 1
        prev2, prev = prev, cur
    return prev[-1] if prev[-1] <= maxd else maxd + 1


def word_df(reader, fields: list[str], word: str, surface: bool = False) -> int:
    """Documents with `word` in the most frequent of `fields` (its stem) or as typed.
    `surface`: as typed only (in title and abstract; "baseed" stems to "base", known to the
    ranking, but a suggestion should still spell it "based")."""
    st = cached_stem(word)
    if surface and word in SIMILARITY_STOP:
        return RARE_MAX + 1  # common English: not in `words`, and spelled right
    own = [f for f in fields if f in reader.schema and not (surface and f in _STEMMED_TEXT)]
    best = max((doc_frequency(reader, f, st) for f in own), default=0)
    if VOCAB_FIELD in reader.schema:
        best = max(best, doc_frequency(reader, VOCAB_FIELD, word))
    return best


def corrections(reader, words: list[str], fields: list[str], *,
                max_words: int = MAX_TYPO_WORDS, surface: bool = False) -> dict[str, list[Near]]:
    """Typed word -> its near library words, for each word (up to `max_words` of them: counted,
    never timed) that no paper has, or that a few papers have where a near word is far
    commoner (`surface`: as typed, and fewer: SUGGEST_RARE_MAX, for "did you mean")."""
    out: dict[str, list[Near]] = {}
    looked = 0
    rare = SUGGEST_RARE_MAX if surface else RARE_MAX
    for w in dict.fromkeys(words):
        if not max_distance(w):
            continue
        if looked >= max_words:
            break
        df = word_df(reader, fields, w, surface)
        if df > rare:
            continue
        looked += 1
        near = near_words(reader, w)
        if near and (df == 0 or near[0].df >= RARE_RATIO * df):
            out[w] = near
    return out


def expand(reader, qwords: list[tuple[str, list[tuple[str, str]]]], words: list[str],
           fields: list[str], max_words: int = MAX_TYPO_WORDS) -> dict[tuple[str, str, str], float]:
    """rank's hook: add each typo'd word's near words to its alternatives (in place) and
    return their weights, (word label, field, term) -> share of a typed word's score.

    At most `max_words` words are looked up (a long garbage query: its first words only)."""
    typed: dict[str, str] = {}
    for w in plain_words(" ".join(words)):
        typed.setdefault(cached_stem(w), w)
    fixes = corrections(reader, list(typed.values()), fields, max_words=max_words)
    weights: dict[tuple[str, str, str], float] = {}
    if not fixes:
        return weights
    for label, alts in qwords:
        near = fixes.get(typed.get(label, ""))
        if not near:
            continue
        have = set(alts)
        exact = any(f == VOCAB_FIELD for f, _ in alts)
        top = max(n.df for n in near)
        for n in near:
            wt = TYPO_WEIGHT[n.distance] * (n.df / top) ** 0.5
            st = cached_stem(n.word)
            new = [(f, st) for f in fields] + ([(VOCAB_FIELD, n.word)] if exact else [])
            for f, t in new:
                key = (label, f, t)
                if (f, t) in have and key not in weights:
                    continue  # the typed word's own term (another form of the same stem)
                if key not in weights:
                    alts.append((f, t))
                    have.add((f, t))
                weights[key] = max(weights.get(key, 0.0), wt)
    return weights


def corrected(searcher, words: list[str], fields: list[str]) -> dict[str, str]:
    """Typed word -> its correction for "did you mean": every typo'd word at once, the
    nearest combination, and among those the one whose words are most often neighbours,
    then appear together in the most papers (with the query's other words), then the
    commonest. Bounded by counts (MAX_TYPO_WORDS words, SUGGEST_COMBINATIONS combinations),
    never by time."""
    reader = searcher.reader()
    fixes = corrections(reader, words, fields, surface=True)
    if not fixes:
        return {}
    known = [w for w in dict.fromkeys(words) if w not in fixes]
    memo: dict[str, set[int]] = {}

    def docs(stem: str) -> set[int]:
        if stem not in memo:
            memo[stem] = _docs(reader, stem)
        return memo[stem]

    context = [d for d in (docs(cached_stem(w)) for w in known) if d]
    typo_words = list(fixes)
    options = [fixes[w] for w in typo_words]
    best: tuple | None = None
    choice: tuple[Near, ...] = tuple(o[0] for o in options)
    for n, combo in enumerate(product(*options)):
        if n >= SUGGEST_COMBINATIONS:
            break
        together = _together([docs(cached_stem(c.word)) for c in combo])
        with_context = _together([together, *context]) if context else together
        fixed = [next((c.word for w2, c in zip(typo_words, combo, strict=True) if w2 == w), w)
                 for w in words]
        score = (-sum(c.distance for c in combo), _pairs(reader, fixed, docs), bool(together),
                 len(with_context), len(together), sum(c.df for c in combo))
        if best is None or score > best:
            best, choice = score, combo
    return {w: c.word for w, c in zip(typo_words, choice, strict=True)}


def _pairs(reader, words: list[str], docs: Callable[[str], set[int]]) -> int:
    """Papers with the query's neighbouring words next to each other ("sparse attention" is
    a pair in 19 abstracts at 50k, "space attention" in none): a frequent pair is its own
    term in the word-pair fields; a rarer one is in a hashed bucket, counted in the papers
    having both words (a false count needs a hash collision too)."""
    stems = analyze(" ".join(words))
    n = 0
    for a, b in zip(stems, stems[1:], strict=False):
        both = _together([docs(a), docs(b)])
        if not both:
            continue
        pair = f"{a} {b}"
        found: set[int] = set()
        for f in PAIR_COUNT_FIELDS:
            if f in reader.schema:
                for term in (pair, pair_bucket(pair)):
                    found |= _term_docs(reader, f, term)
        n += len(found & both)
    return n


def _docs(reader, stem: str) -> set[int]:
    """Documents (searcher-wide numbers) with the stem in the title or abstract."""
    out: set[int] = set()
    for f in ("title", "abstract"):
        out |= _term_docs(reader, f, stem)
    return out


def _term_docs(reader, fieldname: str, term: str) -> set[int]:
    out: set[int] = set()
    if fieldname not in reader.schema:
        return out
    for leaf, base in reader.leaf_readers():
        lex = cached_lexicon(leaf, fieldname) if leaf.segment() is not None else None
        entry = lex.get(term) if lex is not None else None
        if entry is not None or lex is None:
            ids, _ = postings(leaf, fieldname, term, entry)
            out.update(d + base for d in ids)
    return out


def _together(sets: list[set[int]]) -> set[int]:
    if not sets:
        return set()
    out = min(sets, key=len)
    for s in sets:
        if s is not out:
            out = out & s
    return out
