"""Citation keys in the Better BibTeX style: `vaswani2017attention`, made once, unique per library.

A key is the first author's family name folded to ASCII, the year and the first significant
word of the title. A paper without authors (the bundled seeds) is keyed by its method name,
else its first title word, then the year and the next title word (`flashattention2025`,
`sparse2025attention`). Clashes get a/b/c... suffixes, like Better BibTeX. Only ASCII letters,
digits and `_-:./+` are allowed: BibTeX, biber, pandoc and LaTeX's \\cite all accept them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from itertools import count, product
from string import ascii_lowercase

MAX_KEY_CHARS = 64
FALLBACK = "paper"
_ALLOWED = re.compile(r"[A-Za-z0-9_\-:./+]+")
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_\-:./+]+")
_WORD = re.compile(r"[A-Za-z0-9]+")
_MATH = re.compile(r"\$[^$]*\$")
# Letters NFKD does not take apart into an ASCII letter and an accent.
_FOLD = str.maketrans({
    "ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i", "ħ": "h", "ŋ": "n",
})
# Words a key skips in a title (Better BibTeX's list, shortened to what titles use).
_SKIP = frozenset(
    "a an the on of in for to with and or but at by from into onto via over under towards toward "
    "is are be as its it this that these those we our how what when why which do does can not "
    "using use new".split()
)
_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())


def fold_ascii(text: str) -> str:
    """ASCII letters for accented ones (é → e, ß → ss); anything without an ASCII form dropped."""
    if text.isascii():  # most titles and names: nothing to fold
        return text
    text = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return text.encode("ascii", "ignore").decode("ascii")


def family_name(author: str) -> str:
    """The family name of an author as Reader stores them ('First von Last Jr' or 'Last, First')."""
    if "," in author:
        return author.split(",", 1)[0].strip()
    words = [w for w in author.split() if w.lower() not in _SUFFIXES]
    return words[-1] if words else ""


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(fold_ascii(_MATH.sub(" ", text)))]


def _significant(title: str) -> list[str]:
    words = _words(title)
    return [w for w in words if w not in _SKIP] or words


def base_key(authors: Sequence[str], year: int | None, title: str, method: str = "") -> str:
    """The key a paper would get before clashes are resolved (never empty)."""
    when = str(year) if year else ""
    first = next((w for a in authors[:1] for w in [''.join(_words(family_name(a)))] if w), "")
    words = _significant(title)
    if first:
        key = first + when + (words[0] if words else "")
    elif method_word := "".join(_words(method)):
        key = method_word + when + ("" if when else next((w for w in words if w != method_word), ""))
    else:
        key = (words[0] if words else "") + when + (words[1] if len(words) > 1 else "")
    key = key or FALLBACK + when
    if key[0].isdigit():  # pandoc's @key needs a letter or _ first
        key = FALLBACK + key
    return key[:MAX_KEY_CHARS]


def key_problem(key: str) -> str | None:
    """Why `key` cannot be a citation key (empty, too long, a character BibTeX refuses), or None."""
    if not key:
        return "the citation key is empty"
    if len(key) > MAX_KEY_CHARS:
        return f"the citation key is too long ({len(key)} characters; the limit is {MAX_KEY_CHARS})"
    if not _ALLOWED.fullmatch(key):
        bad = _NOT_ALLOWED.search(key)
        shown = repr(bad.group()[0]) if bad else "a character"
        return (f"the citation key contains {shown}: use letters A-Z, digits and _ - : . / + "
                "(no spaces or accents)")
    return None


def sanitize(key: str) -> str:
    """An imported key made allowable (accents folded, other characters dropped); may be ''."""
    return _NOT_ALLOWED.sub("", fold_ascii(key))[:MAX_KEY_CHARS]


def _suffixes() -> Iterable[str]:
    yield ""
    for size in count(1):
        for letters in product(ascii_lowercase, repeat=size):
            yield "".join(letters)


def unique_key(base: str, taken: set[str]) -> str:
    """`base`, or `base` + a, b, ... z, aa, ... : the first not in `taken` (case-folded keys).

    Adds the key to `taken`."""
    for suffix in _suffixes():
        key = base[:MAX_KEY_CHARS - len(suffix)] + suffix
        if key.casefold() not in taken:
            taken.add(key.casefold())
            return key
    raise AssertionError("unreachable: the suffixes never end")
