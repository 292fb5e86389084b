"""Undo PDF-extraction damage in plain text, as edits whose offsets map old positions to new.

What it fixes (all seen in real conference abstracts):
- `(cid:NNN)` glyph ids pdfminer writes for glyphs it can't name: TeX's ligature slots
  (`classi(cid:12)cation`, `e(cid:11)ective`), soft hyphens (`(cid:173)`), and a few
  symbols of TeX's math fonts (`(cid:96)1` = ℓ1); unknown ids are dropped;
- ligature characters (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ) spelled out;
- soft hyphens, and the line break after one (`piri\\xad form` → `piriform`);
- UTF-8 read as Latin-1 (`Ã\\x97` → ×, `â\\x80\\x93` → –) and stray C0/C1 control characters;
- words hyphenated at a line end (`learn- ing` → `learning`, `high- dimensional` →
  `high-dimensional`), but not a suspended hyphen (`pre- and post-training`).

Hand-written rather than ftfy: ftfy (Apache-2.0, ~200 kB + wcwidth) fixes mojibake and
ligatures, but neither cid ids nor line-end hyphens, and it returns a new string without an
offset map, which the highlights (offsets into the plain text) need. This is one regex pass,
linear in the text; each match is decided from a few characters around it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

Edit = tuple[int, int, str]  # replace text[start:end] by the string

_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
              "\ufb05": "st", "\ufb06": "st"}
# cid ids by what they are in TeX's fonts (OT1 text: 11-15 ligatures; cmsy/cmmi: symbols).
# A ligature slot inside a word is the ligature; the same id on its own is the font's symbol.
_CID_LIGATURE = {2: "fi", 3: "fl", 11: "ff", 12: "fi", 13: "fl", 14: "ffi", 15: "ffl", 222: "fi"}
_CID_SYMBOL = {0: "−", 1: "·", 2: "×", 15: "ε", 22: "μ", 28: "≪", 96: "ℓ", 147: "“", 148: "”",
               246: "ö"}
_SOFT_HYPHEN_CID = 173
# A line-end hyphen before one of these is a suspended hyphen ("pre- and post-processing").
_SUSPENDED = frozenset("and or nor to vs versus but as than with without via through".split())
# The right half of a hyphenated compound: "high- dimensional" keeps its hyphen.
_COMPOUND_HEADS = frozenset(
    "based driven dimensional world art scale level wise free aware specific order time "
    "shot supervised trained training learning agnostic dependent independent invariant "
    "efficient optimal like style end off up down class label step stage task domain "
    "source sum norm rank layer head view hop grained term resolution making standing forward "
    "tuning sensitive increasing temporal theoretic".split())
# Prefixes written with a hyphen ("self- supervised"); "pre", "sub", "non" are left out:
# as often joined ("prediction", "subspace", "nonlinear").
_HYPHEN_PREFIXES = frozenset("self cross semi quasi pseudo state real".split())

_BASIC = (r"(?P<cid>\(cid:(?P<n>\d{1,5})\))"
          r"|(?P<lig>[\ufb00-\ufb06])"
          r"|(?P<soft>\xad)"
          r"|(?P<moji>[\xc2-\xf4][\x80-\xbf]{1,3})"
          r"|(?P<ctrl>[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f])")
# A word may hold damage of its own ("ef(cid:2)- cient"), cleaned before the hyphen is judged.
_WORD = r"(?:[^\W\d_]|\(cid:\d{1,5}\)|\xad){1,40}"
_LEFT = re.compile(rf"(?<![^\W\d_]){_WORD}$")
_RIGHT = re.compile(rf"{_WORD}(?![^\W\d_])")
_BASIC_PATTERN = re.compile(_BASIC)
# Scanning for a character class is cheap; for "letter, hyphen, space" with a Unicode class it
# costs ~100 µs per abstract, so hyphens are found with str.find and their words matched there.
_TRIGGER = re.compile(r"[\ufb00-\ufb06\xad\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|[\xc2-\xf4][\xa0-\xbf]")


def _letter(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].isalpha()


def _join_after(text: str, start: int, end: int) -> int:
    """End of a soft hyphen's edit: its line break too when a word goes on after it."""
    j = end
    while j < len(text) and text[j] in " \t\r\n":
        j += 1
    return j if j > end and _letter(text, start - 1) and _letter(text, j) else end


def _cid(text: str, m: re.Match[str]) -> Edit:
    start, end, n = m.start(), m.end(), int(m.group("n"))
    if n == _SOFT_HYPHEN_CID:
        return start, _join_after(text, start, end), ""
    if n in _CID_LIGATURE and (_letter(text, start - 1) or _letter(text, end)):
        return start, end, _CID_LIGATURE[n]
    if n in _CID_SYMBOL:
        return start, end, _CID_SYMBOL[n]
    if (start == 0 or text[start - 1] == " ") and end < len(text) and text[end] == " ":
        end += 1  # "a (cid:6) b": don't leave two spaces
    return start, end, ""


def _mojibake(seq: str) -> str | None:
    """A UTF-8 character that was decoded as Latin-1, or None if the bytes aren't one."""
    lead = ord(seq[0])
    need = 1 if lead < 0xE0 else 2 if lead < 0xF0 else 3
    if len(seq) != need + 1:
        return None
    try:
        fixed = seq.encode("latin-1").decode("utf-8")
    except UnicodeError:
        return None
    return fixed if len(fixed) == 1 else None


def _hyphen(text: str, i: int) -> Edit | None:
    """The edit of a line-end hyphen at text[i] ("learn- ing"), or None if it is not one."""
    lm, rm = _LEFT.search(text, max(0, i - 400), i), _RIGHT.match(text, i + 2)
    if lm is None or rm is None:
        return None
    left, right = _cleaned(text, *lm.span()), _cleaned(text, *rm.span())
    if right.lower() in _SUSPENDED or (left.isupper() and len(left) > 1) or right[:1].isupper():
        return None  # "pre- and post-", "GPU- CPU": no line-end break
    keep = (
        (lm.start() > 0 and text[lm.start() - 1] == "-")  # "state-of- the-art"
        or text.startswith("-", rm.end())
        or right.lower() in _COMPOUND_HEADS
        or left.lower() in _HYPHEN_PREFIXES
        or f"{left}-{right}" in text
    ) and f"{left}{right}" not in text
    return i, i + 2, "-" if keep else ""


def _cleaned(text: str, start: int, end: int) -> str:
    edits = _edits_in(text, start, end)
    return apply_edits(text[start:end], [(a - start, b - start, new) for a, b, new in edits])


def _edits_in(text: str, start: int, end: int) -> list[Edit]:
    out: list[Edit] = []
    for m in _BASIC_PATTERN.finditer(text, start, end):
        edit = _basic(text, m)
        if edit is not None and (not out or edit[0] >= out[-1][1]):
            out.append(edit)
    return out


def _basic(text: str, m: re.Match[str]) -> Edit | None:
    kind = m.lastgroup
    if kind == "cid":
        return _cid(text, m)
    if kind == "lig":
        return m.start(), m.end(), _LIGATURES[m.group()]
    if kind == "soft":
        return m.start(), _join_after(text, m.start(), m.end()), ""
    if kind == "moji":
        fixed = _mojibake(m.group())
        return (m.start(), m.end(), fixed) if fixed else None
    return m.start(), m.end(), ""  # a control character


def clean_edits(text: str) -> list[Edit]:
    """The edits that clean text, in order and not overlapping (empty when nothing to do)."""
    if not text:
        return []
    dirty = "(cid:" in text or not text.isascii() and _TRIGGER.search(text) is not None \
        or not text.isprintable()
    edits = _edits_in(text, 0, len(text)) if dirty else []
    i = text.find("- ")
    if i < 0:
        return edits
    hyphens = []
    while i >= 0:
        edit = _hyphen(text, i)
        if edit is not None:
            hyphens.append(edit)
        i = text.find("- ", i + 2)
    merged: list[Edit] = []
    for edit in sorted(edits + hyphens):
        if not merged or edit[0] >= merged[-1][1]:
            merged.append(edit)
    return merged


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    if not edits:
        return text
    out: list[str] = []
    pos = 0
    for start, end, new in edits:
        out.append(text[pos:start])
        out.append(new)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def clean_text(text: str) -> str:
    """text with PDF-extraction damage undone (see the module docstring)."""
    return apply_edits(text, clean_edits(text))


class OffsetMap:
    """Maps offsets in the text before some edits to offsets in the text after them."""

    def __init__(self, edits: Sequence[Edit]) -> None:
        self._starts = [e[0] for e in edits]
        self._edits = list(edits)
        shifts, total = [], 0
        for start, end, new in edits:
            total += len(new) - (end - start)
            shifts.append(total)
        self._shifts = shifts  # the shift after each edit

    def __call__(self, pos: int, *, end: bool = False) -> int:
        """New offset of old offset pos. A start inside an edited span moves to the span's new
        start, an end inside one to its new end, so a highlight keeps whole replacements."""
        i = bisect_right(self._starts, pos - 1 if end else pos) - 1
        if i < 0:
            return pos
        start, stop, new = self._edits[i]
        if pos >= stop:
            return pos + self._shifts[i]
        before = self._shifts[i - 1] if i > 0 else 0
        return start + before + (len(new) if end else 0)
