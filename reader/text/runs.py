"""Parse a raw abstract (Markdown, LaTeX, a little HTML) into styled text runs.

Every renderer (plain, HTML, Markdown) is built from the same runs, so the visible text of
the HTML is exactly the plain text and highlight offsets agree between them.
"""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache
from typing import NamedTuple

from reader.text.clean import Edit, apply_edits, clean_edits
from reader.text.latex import (
    _DOUBLE_STRUCK,
    _GREEK,
    _SYMBOLS,
    TEXT_ACCENTS,
    latex_to_unicode,
    match_brace,
)

# Run kinds.
TEXT, MATH, LINK = 0, 1, 2
# Style bits.
ITALIC, BOLD, CODE, SUP, SUB = 1, 2, 4, 8, 16


class Run(NamedTuple):
    """A piece of visible text with one kind and style."""

    text: str
    kind: int = TEXT
    style: int = 0
    href: str = ""  # LINK: an http(s) URL
    source: str = ""  # MATH: the original "$...$" for Markdown export ("" = use text)


_SPECIAL = re.compile(
    r"""
    \$\$ | \$ | \\\( | \\\[                                   # math
    | https?://[^\s<>"'`]+                                    # URLs
    | (?<![\w/.@-])(?:www\.|github\.com/|gitlab\.com/|huggingface\.co/)[^\s<>"'`]+
    | \\[A-Za-z]+\*? | \\.? | \\$                             # LaTeX commands, escapes
    | \*+ | __? | ``? | \[ | \{ | \}
    | <!--.*?--> | </?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]{0,300})?/?>
    | &(?:\#\d{1,7}|\#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});
    """,
    re.X | re.S,
)
# Scanning with _SPECIAL itself costs ~100 µs per abstract; a character-class trigger finds the
# candidate positions ~10x faster and _SPECIAL is then only matched there.
_TRIGGER = re.compile(r"[$\\*_`\[{}<&]")
_TRIGGER_URL = re.compile(
    r"[$\\*_`\[{}<&]|https?://|www\.|github\.com/|gitlab\.com/|huggingface\.co/", re.I)
_URL_HINTS = ("://", "www.", "github.com/", "gitlab.com/", "huggingface.co/")
_MD_LINK = re.compile(r"\[([^\[\]]{0,400})\]\(\s*<?([^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)>?"
                      r"(?:\s+\"[^\"]*\")?\s*\)")
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9]*)((?:\s[^<>]*)?)/?>", re.S)
_HREF_ATTR = re.compile(r"""href\s*=\s*["']?([^"'\s>]+)""", re.I)
_WS = re.compile(r"[\s\x00-\x08\x0e-\x1f\x7f\u200b\ufeff]+")
_URL_TRAIL = ".,;:!?)]}*'\"_>"
_DIGIT_AFTER = re.compile(r"\d")
_MATHY = re.compile(r"[\\^_{]")

_STYLE_TAGS = {"i": ITALIC, "em": ITALIC, "cite": ITALIC, "var": ITALIC, "dfn": ITALIC,
               "b": BOLD, "strong": BOLD, "code": CODE, "tt": CODE, "kbd": CODE, "samp": CODE,
               "sup": SUP, "sub": SUB}
_DROP_TAGS = frozenset(
    "u ins mark span font small big abbr del strike q bdi bdo wbr nobr label time math mi "
    "mo mn mrow msub msup".split())
_BLOCK_TAGS = frozenset(
    "br p div li ul ol hr tr td th h1 h2 h3 h4 h5 h6 blockquote table thead tbody tfoot pre "
    "section article header footer center dl dt dd img figure figcaption caption jats:p "
    "jats:title jats:sec".split())
_SKIP_CONTENT_TAGS = frozenset("script style head title iframe object template".split())

_TEXT_STYLE_CMDS = {
    "textit": ITALIC, "emph": ITALIC, "textsl": ITALIC, "mathit": ITALIC, "em": ITALIC,
    "it": ITALIC, "sl": ITALIC, "itshape": ITALIC, "textbf": BOLD, "bf": BOLD,
    "bfseries": BOLD, "texttt": CODE, "tt": CODE, "ttfamily": CODE, "code": CODE,
    "textsuperscript": SUP, "textsubscript": SUB,
    "textsc": 0, "textsf": 0, "textrm": 0, "textnormal": 0, "textup": 0, "textmd": 0,
    "text": 0, "mbox": 0, "hbox": 0, "underline": 0, "uline": 0, "sc": 0, "rm": 0, "sf": 0,
    "footnote": 0, "centering": 0, "small": 0, "large": 0, "normalsize": 0,
}
_GROUP_STYLE_CMDS = frozenset("em it sl itshape bf bfseries tt ttfamily sc rm sf".split())
_CITE_CMDS = frozenset("cite citep citet citealp citeauthor citeyear parencite textcite".split())
_DROP_ARG_CMDS = frozenset("label ref eqref begin end vspace hspace footnotemark".split())
_TEXT_ESCAPES = {"%": "%", "&": "&", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}",
                 " ": " ", ",": " ", ";": " ", ":": " ", "!": "", "-": "", "/": "", "@": "",
                 "\\": " ", "~": "~", "^": "^", "|": "‖", ">": " ", "<": " ", "*": "*",
                 "[": "[", "]": "]"}
_ARG_CMD = re.compile(r"\\[A-Za-z]+\*?")


def _braced(s: str, i: int) -> tuple[str, int] | None:
    """The braced argument starting at s[i] (after optional spaces): (inner, index after)."""
    j = i
    while j < len(s) and s[j] in " \t":
        j += 1
    if j < len(s) and s[j] == "{":
        k = match_brace(s, j)
        if k >= 0:
            return s[j + 1:k], k + 1
    return None


def _math_end(s: str, start: int, closer: str) -> int:
    """Index of the closing delimiter of a math span opened just before `start`, or -1."""
    pos = start
    limit = min(len(s), start + 1200)
    while True:
        k = s.find(closer, pos, limit)
        if k < 0:
            return -1
        if k > 0 and s[k - 1] == "\\" and closer == "$":
            pos = k + 1
            continue
        inner = s[start:k]
        if "\n\n" in inner or not inner.strip():
            return -1
        if closer == "$" and (_DIGIT_AFTER.match(s, k + 1) and " " in inner
                              or inner[-1].isspace()) and not _MATHY.search(inner):
            # "$5 and $10": prices, not math ("$\\leqslant$2" still is math).
            return -1
        return k


def _balanced_dollars(inner: str) -> bool:
    return (inner.count("$") - inner.count("\\$")) % 2 == 0


def _strip_url(url: str) -> str:
    """Drop trailing punctuation that belongs to the sentence, keeping balanced ')'."""
    while url and url[-1] in _URL_TRAIL:
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def _safe_href(url: str) -> str:
    """The URL if it is http(s), normalising bare hosts; else ''."""
    low = url.lower()
    if low.startswith(("http://", "https://")):
        return url
    if low.startswith(("www.", "github.com/", "gitlab.com/", "huggingface.co/")):
        return "https://" + url
    return ""


class _Parser:
    def __init__(self) -> None:
        self.runs: list[Run] = []

    def emit(self, text: str, style: int, kind: int = TEXT, href: str = "",
             source: str = "") -> None:
        if text:
            self.runs.append(Run(text, kind, style, href, source))

    def text(self, chunk: str, style: int) -> None:
        if chunk:
            if not style & CODE:
                if "--" in chunk:  # TeX dashes
                    chunk = chunk.replace("---", "—").replace("--", "–")
                if "''" in chunk:  # TeX closing quotes
                    chunk = chunk.replace("''", "”")
            self.emit(chunk, style)

    def parse(self, s: str, style: int, depth: int = 0) -> None:
        if depth > 40:  # pathological nesting: show the rest as text
            self.text(s, style)
            return
        pos = 0
        n = len(s)
        low = s.lower()
        search = (_TRIGGER_URL if any(h in low for h in _URL_HINTS) else _TRIGGER).search
        match = _SPECIAL.match
        chunk_start = 0  # start of pending plain text, flushed only before a token
        while pos < n:
            t = search(s, pos)
            if t is None:
                break
            start = t.start()
            m = match(s, start)
            if m is None:  # e.g. "www." inside a word: plain text
                pos = start + 1
                continue
            if start > chunk_start:
                self.text(s[chunk_start:start], style)
            pos = chunk_start = self.special(s, m.group(), start, m.end(), style, depth)
        if chunk_start < n:
            self.text(s[chunk_start:], style)

    # Each handler returns the position to continue scanning from.
    def special(self, s: str, tok: str, start: int, end: int, style: int, depth: int) -> int:
        c = tok[0]
        if c == "$":
            return self.math(s, start, end, tok, style)
        if c == "\\":
            if tok in ("\\(", "\\["):
                return self.math(s, start, end, tok, style)
            return self.command(s, tok, start, end, style, depth)
        if c.isalpha():
            url = _strip_url(tok)
            self.emit(url, style, LINK, _safe_href(url))
            return start + len(url)
        if c == "*" or c == "_":
            return self.emphasis(s, tok, start, end, style, depth)
        if c == "`":
            return self.backtick(s, tok, start, end, style, depth)
        if c == "[":
            return self.md_link(s, start, end, style, depth)
        if c == "{":
            return self.group(s, start, end, style, depth)
        if c == "}":
            return end  # stray closing brace from LaTeX source
        if c == "<":
            return self.tag(s, tok, start, end, style, depth)
        if c == "&":
            self.text(html.unescape(tok), style)
            return end
        self.text(tok, style)
        return end

    def math(self, s: str, start: int, end: int, tok: str, style: int) -> int:
        closer = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}[tok]
        k = _math_end(s, end, closer)
        if k < 0:
            self.text("$" if tok[0] == "$" else "", style)
            return start + 1 if tok[0] == "$" else end
        inner = s[end:k]
        text = latex_to_unicode(inner)
        if text:
            src = _WS.sub(" ", inner).strip()
            src = re.sub(r"<(?=[A-Za-z/!?])", "< ", src)
            self.emit(text, style & ~CODE, MATH, "", f"${src}$" if src else "")
        return k + len(closer)

    # Long by design: one flat branch per kind of LaTeX command (symbols, accents, fonts,
    # fractions, roots, …), read top to bottom like TeX's own table; splitting it would scatter that table.
    def command(self, s: str, tok: str, start: int, end: int, style: int, depth: int) -> int:
        if len(tok) <= 2 and not tok[1:2].isalpha():
            ch = tok[1:]
            if ch in TEXT_ACCENTS and ch not in "^~":
                return self.accent(s, ch, end, style)
            if ch in (")", "]"):
                return end
            self.text(_TEXT_ESCAPES.get(ch, ch), style)
            return end
        name = tok[1:].rstrip("*")
        if len(name) == 1 and name in TEXT_ACCENTS:
            return self.accent(s, name, end, style)
        if name in _TEXT_STYLE_CMDS:
            arg = _braced(s, end)
            if arg is None:
                return end  # "\em word": declaration outside a group; drop it
            inner, after = arg
            self.parse(inner, style | _TEXT_STYLE_CMDS[name], depth + 1)
            return after
        if name in ("textcolor", "colorbox"):
            first = _braced(s, end)
            if first:
                second = _braced(s, first[1])
                if second:
                    self.parse(second[0], style, depth + 1)
                    return second[1]
            return end
        if name in ("url", "href"):
            arg = _braced(s, end)
            if arg is None:
                return end
            url, after = arg
            url = url.strip()
            label = url
            if name == "href":
                second = _braced(s, after)
                if second:
                    label, after = second[0].strip() or url, second[1]
            self.link(label, url, style, depth)
            return after
        if name in _CITE_CMDS:
            arg = _braced(s, end)
            if arg is None:
                return end
            self.text(f"[{arg[0].strip()}]", style)
            return arg[1]
        if name in _DROP_ARG_CMDS:
            arg = _braced(s, end)
            return arg[1] if arg else end
        if name in _SYMBOLS and name not in _GREEK and not name[0].isupper() and len(name) > 1 \
                and name not in _DOUBLE_STRUCK:
            # Text-mode symbols (\ie, \ldots, \textendash ...); the space after a macro name is
            # swallowed by TeX, but "\ie the" needs one kept.
            self.text(_SYMBOLS[name], style)
            return end
        # Anything else is math written outside $...$ ("O(\sqrtT)", "\mathbbR^n", "\alpha"):
        # take the command, its braced arguments and scripts and convert them together.
        j = end
        n = len(s)
        while j < n:
            if s[j] == "{":
                k = match_brace(s, j)
                if k < 0:
                    break
                j = k + 1
            elif s[j] in "^_" and j + 1 < n:
                if s[j + 1] == "{":
                    k = match_brace(s, j + 1)
                    if k < 0:
                        break
                    j = k + 1
                elif s[j + 1] == "\\":
                    m = _ARG_CMD.match(s, j + 1)
                    j = m.end() if m else j + 2
                else:
                    j += 2
            else:
                break
        frag = s[start:j]
        text = latex_to_unicode(frag)
        if text:
            self.emit(text, style & ~CODE, MATH)
        return j

    def accent(self, s: str, mark: str, end: int, style: int) -> int:
        arg = _braced(s, end)
        if arg is not None:
            letter, after = arg
        elif end < len(s) and not s[end].isspace():
            letter, after = s[end], end + 1
        else:
            return end
        letter = letter.strip().replace("\\i", "ı").replace("\\j", "ȷ")
        if letter:
            self.text(unicodedata.normalize("NFC", letter[0] + TEXT_ACCENTS[mark] + letter[1:]),
                      style)
        return after

    def link(self, label: str, url: str, style: int, depth: int) -> None:
        href = _safe_href(url)
        before = len(self.runs)
        self.parse(label, style, depth + 1)
        if href:
            for i in range(before, len(self.runs)):
                r = self.runs[i]
                self.runs[i] = r._replace(kind=LINK if r.kind == TEXT else r.kind, href=href)

    def md_link(self, s: str, start: int, end: int, style: int, depth: int) -> int:
        m = _MD_LINK.match(s, start)
        if m is None:
            self.text("[", style)
            return end
        label, url = m.group(1), m.group(2)
        self.link(label.strip() or url, url, style, depth)
        return m.end()

    def emphasis(self, s: str, tok: str, start: int, end: int, style: int, depth: int) -> int:
        marker = tok if tok[0] == "_" else tok[:3]
        bits = {1: ITALIC, 2: BOLD, 3: ITALIC | BOLD}.get(len(marker), 0)
        if marker[0] == "_" and start > 0 and s[start - 1].isalnum():
            self.text(tok, style)  # snake_case, not emphasis
            return end
        if len(tok) > 3 or end >= len(s) or s[end].isspace():
            self.text(tok, style)
            return end
        pos = end
        while True:
            k = s.find(marker, pos)
            if k < 0 or "\n\n" in s[end:k]:
                break
            after = k + len(marker)
            ok = not s[k - 1].isspace() and k > end
            if marker[0] == "*":
                ok = ok and not (after < len(s) and s[after] == "*")
            else:
                ok = ok and not (after < len(s) and s[after].isalnum())
            if ok and _balanced_dollars(s[end:k]):
                self.parse(s[end:k], style | bits, depth + 1)
                return after
            pos = k + 1
            while pos < len(s) and s[pos] == marker[0]:
                pos += 1
        self.text(tok, style)
        return end

    def backtick(self, s: str, tok: str, start: int, end: int, style: int, depth: int) -> int:
        if tok == "``":
            k = s.find("``", end, end + 300)
            q = s.find("''", end, end + 300)
            if k > end and (q < 0 or k < q):
                self.text(s[end:k], style | CODE)
                return k + 2
            self.text("“", style)
            return end
        k = s.find("`", end, end + 300)
        if k > end and "\n" not in s[end:k]:
            self.text(s[end:k], style | CODE)
            return k + 1
        self.text("‘", style)
        return end

    def group(self, s: str, start: int, end: int, style: int, depth: int) -> int:
        k = match_brace(s, start)
        if k < 0:
            return end  # unbalanced '{' from LaTeX source: drop it
        inner = s[end:k]
        m = _ARG_CMD.match(inner.lstrip())
        if m and m.group()[1:] in _GROUP_STYLE_CMDS:
            name = m.group()[1:]
            inner = inner.lstrip()[m.end():]
            style |= _TEXT_STYLE_CMDS[name]
        self.parse(inner, style, depth + 1)
        return k + 1

    def tag(self, s: str, tok: str, start: int, end: int, style: int, depth: int) -> int:
        if tok.startswith("<!--"):
            return end
        m = _TAG.match(tok)
        if m is None:
            self.text(tok, style)
            return end
        closing, name, attrs = m.group(1), m.group(2).lower(), m.group(3)
        if name in _STYLE_TAGS or name == "a":
            if closing:
                return end  # stray closing tag
            close = re.compile(rf"</{name}\s*>", re.I).search(s, end)
            if close is None:
                return end
            inner = s[end:close.start()]
            if name == "a":
                href = _HREF_ATTR.search(attrs)
                self.link(inner, href.group(1) if href else "", style, depth)
            else:
                self.parse(inner, style | _STYLE_TAGS[name], depth + 1)
            return close.end()
        if name in _SKIP_CONTENT_TAGS:
            close = re.compile(rf"</{name}\s*>", re.I).search(s, end)
            return close.end() if close and not closing else end
        if name in _BLOCK_TAGS:
            self.text(" ", style)
            return end
        if name in _DROP_TAGS:
            return end
        self.text(tok[0], style)  # "<subject, relation>", "a <b": not markup
        return start + 1


def _normalise(runs: list[Run]) -> tuple[Run, ...]:
    """Collapse whitespace across runs, trim the ends and merge neighbours of the same style."""
    out: list[Run] = []
    prev_space = True  # drops leading whitespace
    for r in runs:
        text = r.text
        if "  " in text or not text.isprintable():  # isprintable() is False for \n, \t, NBSP
            text = _WS.sub(" ", text)
        if prev_space and text.startswith(" "):
            text = text[1:]
        if not text:
            continue
        prev_space = text.endswith(" ")
        if out and out[-1].kind == r.kind == TEXT and out[-1].style == r.style:
            out[-1] = out[-1]._replace(text=out[-1].text + text)
        elif (out and out[-1].kind == r.kind == LINK and out[-1].style == r.style
              and out[-1].href == r.href):
            out[-1] = out[-1]._replace(text=out[-1].text + text)
        else:
            out.append(r._replace(text=text))
    while out and out[-1].text.endswith(" "):
        last = out[-1]._replace(text=out[-1].text.rstrip(" "))
        if last.text:
            out[-1] = last
            break
        out.pop()
    return tuple(out)


def _clean(runs: tuple[Run, ...]) -> tuple[Run, ...]:
    """PDF-extraction damage undone in the text runs (math, code and links stay as written)."""
    out = list(runs)
    for i, r in enumerate(runs):
        edits = clean_edits(r.text) if r.kind == TEXT and not r.style & CODE else None
        if edits:
            out[i] = r._replace(text=apply_edits(r.text, edits))
    return tuple(out)


def uncleaned_runs(raw: str) -> tuple[Run, ...]:
    """The runs before cleaning (what TEXT_VERSION 1 stored): highlights made then are re-anchored
    through cleaning_edits."""
    if not raw:
        return ()
    p = _Parser()
    try:
        p.parse(raw, 0)
    except RecursionError:  # pragma: no cover - depth is bounded, this is a last resort
        p.runs = [Run(raw)]
    return _normalise(p.runs)


def cleaning_edits(raw: str) -> list[Edit]:
    """The edits turning the uncleaned plain text of raw into its plain text."""
    edits: list[Edit] = []
    pos = 0
    for r in uncleaned_runs(raw):
        if r.kind == TEXT and not r.style & CODE:
            edits.extend((pos + a, pos + b, new) for a, b, new in clean_edits(r.text))
        pos += len(r.text)
    return edits


@lru_cache(maxsize=512)
def parse_runs(raw: str) -> tuple[Run, ...]:
    """The styled runs of a raw abstract; their texts concatenate to the plain text."""
    return _clean(uncleaned_runs(raw))
