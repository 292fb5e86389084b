"""Render raw abstracts as plain text, safe HTML and Markdown; render users' Markdown notes."""

from __future__ import annotations

import html
import re
import threading
import xml.etree.ElementTree as etree
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from reader.models import HighlightColour
from reader.recent import remember_recent
from reader.text.latex import latex_to_unicode
from reader.text.runs import BOLD, CODE, ITALIC, LINK, MATH, SUB, SUP, Run, parse_runs

if TYPE_CHECKING:  # Markdown loads with the first note rendered, not at the window's start
    import markdown
    from markdown.extensions import Extension

HIT_STYLE = "background-color:#fff3a0;color:#000"
DEFAULT_HIGHLIGHT = HighlightColour.YELLOW.hex
_COLOUR = re.compile(
    r"^(?:#[0-9a-fA-F]{3,8}|rgba?\(\s*[\d.%]+\s*(?:,\s*[\d.%]+\s*){2,3}\)|[A-Za-z]{3,20})$")


@remember_recent()
def abstract_plain(raw: str) -> str:
    """Readable plain text: LaTeX converted, markup removed; the text highlights index into.

    The last result is remembered: an import derives the plain text, method and title of
    one abstract after the other, each starting from its plain text."""
    return "".join([r.text for r in parse_runs(raw or "")])


_TITLE_MARKUP = re.compile(r"[$\\{}*_<>&`~^]")


@lru_cache(maxsize=8192)
def title_plain(raw: str) -> str:
    """A title as every place shows it (table, pane, triage, status, exports' display): math
    and symbols rendered as the abstract renders them (`Cu$_2$O` → Cu₂O, `$\\ell_0$` → ℓ₀),
    markup removed, whitespace collapsed to single spaces.

    Memoised: the table asks for the titles on screen at every repaint."""
    if not raw:
        return ""
    if _TITLE_MARKUP.search(raw):
        raw = "".join([r.text for r in parse_runs(raw)])
    return " ".join(raw.split())


def plain_for_index(abstract: str) -> str:
    """The text the search index stores for an abstract (same as abstract_plain)."""
    return abstract_plain(abstract)


# --- HTML ------------------------------------------------------------------------------------

def _esc(text: str) -> str:
    return html.escape(text, quote=False)


def _open_tags(run: Run) -> tuple[str, str]:
    opening: list[str] = []
    closing: list[str] = []
    if run.kind == LINK and run.href:
        opening.append(f'<a href="{html.escape(run.href, quote=True)}">')
        closing.append("</a>")
    if run.kind == MATH:
        opening.append('<span class="math" style="font-style:italic">')
        closing.append("</span>")
    for bit, tag in ((BOLD, "b"), (ITALIC, "i"), (CODE, "code"), (SUP, "sup"), (SUB, "sub")):
        if run.style & bit:
            opening.append(f"<{tag}>")
            closing.append(f"</{tag}>")
    return "".join(opening), "".join(reversed(closing))


@lru_cache(maxsize=64)
def _terms_pattern(terms: tuple[str, ...]) -> re.Pattern[str] | None:
    words: list[str] = []
    for term in terms:
        t = (term or "").strip().strip("\"'").rstrip("*?").strip()
        if not t or not any(ch.isalnum() for ch in t):
            continue
        words.append(r"\s+".join(re.escape(w) for w in t.split()))
    if not words:
        return None
    words.sort(key=len, reverse=True)  # longest first so phrases win over their words
    return re.compile(r"(?<!\w)(?:" + "|".join(words) + r")\w*", re.I)


def term_spans(plain: str, terms: Iterable[str]) -> list[tuple[int, int]]:
    """(start, end) of each word-prefix, case-insensitive occurrence of the terms in plain."""
    pattern = _terms_pattern(tuple(terms))
    if pattern is None:
        return []
    return [m.span() for m in pattern.finditer(plain)]


def _css_colour(colour: str) -> str:
    named = HighlightColour.parse(colour) if colour.isalpha() else None
    if named is not None:
        return named.hex
    return colour if _COLOUR.match(colour) else DEFAULT_HIGHLIGHT


def abstract_html(raw: str, highlights: Sequence[tuple[int, int, str]] = (),
                  terms: Sequence[str] = (), hit_style: str = HIT_STYLE) -> str:
    """A safe HTML <p> whose visible text equals abstract_plain(raw) character for character.

    highlights are (start, end, colour) spans over the plain text (later ones win where
    they overlap); a colour is a HighlightColour name, shown in its own hex, or a css colour; terms are search terms to mark with class "hit", styled with hit_style.
    """
    runs = parse_runs(raw or "")
    plain = "".join(r.text for r in runs)
    n = len(plain)
    marks: list[tuple[int, int, str]] = []
    for item in highlights or ():
        try:
            start, end, colour = int(item[0]), int(item[1]), str(item[2])
        except (TypeError, ValueError, IndexError):
            continue
        start, end = max(0, start), min(n, end)
        if start < end:
            marks.append((start, end, _css_colour(colour)))
    hits = term_spans(plain, terms) if terms else []

    cuts = {0, n}
    pos = 0
    for r in runs:
        pos += len(r.text)
        cuts.add(pos)
    for start, end, _ in marks:
        cuts.update((start, end))
    for start, end in hits:
        cuts.update((start, end))
    bounds = sorted(cuts)

    out: list[str] = ["<p>"]
    run_start = 0
    hit_i = 0
    b = 0
    for r in runs:
        run_end = run_start + len(r.text)
        opening, closing = _open_tags(r)
        out.append(opening)
        while b + 1 < len(bounds) and bounds[b + 1] <= run_end:
            a, z = bounds[b], bounds[b + 1]
            b += 1
            if a < run_start:
                continue
            piece = _esc(plain[a:z])
            while hit_i < len(hits) and hits[hit_i][1] <= a:
                hit_i += 1
            if hit_i < len(hits) and hits[hit_i][0] <= a:
                piece = f'<span class="hit" style="{hit_style}">{piece}</span>'
            colour = ""
            for start, end, c in marks:
                if start <= a and z <= end:
                    colour = c
            if colour:
                piece = f'<span class="hl" style="background-color:{colour}">{piece}</span>'
            out.append(piece)
        out.append(closing)
        run_start = run_end
    out.append("</p>")
    return "".join(out)


# --- Markdown export -------------------------------------------------------------------------

_MD_ESCAPE = re.compile(r"([\\`*_\[\]$])")
_MD_LT = re.compile(r"<")
_MD_AMP = re.compile(r"&(?=#?\w+;)")
_MD_LINE_START = re.compile(r"^(#|>|[-+] |\d+[.)] )")


def _md_text(text: str) -> str:
    text = _MD_ESCAPE.sub(r"\\\1", text)
    text = _MD_AMP.sub("&amp;", text)
    return _MD_LT.sub("&lt;", text)


def _md_styled(text: str, style: int) -> str:
    if style & CODE:
        core = text.strip()
        fence = "``" if "`" in core else "`"
        pad = " " if fence == "``" else ""
        body = f"{fence}{pad}{core}{pad}{fence}"
    else:
        core = text.strip()
        body = _md_text(core)
        marker = {ITALIC: "*", BOLD: "**", ITALIC | BOLD: "***"}.get(style & (ITALIC | BOLD), "")
        if marker and core:
            body = f"{marker}{body}{marker}"
    if not core:
        return text
    lead = text[: len(text) - len(text.lstrip())]
    trail = text[len(text.rstrip()):]
    return f"{lead}{body}{trail}"


def abstract_markdown(raw: str) -> str:
    """One Markdown paragraph: math kept as $...$, emphasis and links as Markdown, HTML escaped."""
    runs = parse_runs(raw or "")
    parts: list[str] = []
    i = 0
    while i < len(runs):
        r = runs[i]
        if r.kind == LINK and r.href:
            j = i
            label: list[str] = []
            while j < len(runs) and runs[j].kind == LINK and runs[j].href == r.href:
                label.append(_md_styled(runs[j].text, runs[j].style))
                j += 1
            text = "".join(label)
            inner = text.strip()
            href = r.href.replace("(", "%28").replace(")", "%29").replace(" ", "%20")
            lead = text[: len(text) - len(text.lstrip())]
            trail = text[len(text.rstrip()):]
            parts.append(f"{lead}[{inner}]({href}){trail}")
            i = j
            continue
        if r.kind == MATH and r.source:
            lead = r.text[: len(r.text) - len(r.text.lstrip())]
            trail = r.text[len(r.text.rstrip()):]
            parts.append(f"{lead}{r.source}{trail}")
        else:
            parts.append(_md_styled(r.text, r.style if r.kind != MATH else 0))
        i += 1
    text = "".join(parts)
    m = _MD_LINE_START.match(text)
    if m:
        text = "\\" + text if m.group(1) in ("#", ">") or m.group(1)[0] in "-+" else \
            re.sub(r"^(\d+)([.)])", r"\1\\\2", text)
    return text


# --- notes -----------------------------------------------------------------------------------

_SAFE_SCHEMES = ("http://", "https://", "mailto:")


@cache
def _no_raw_html() -> type[Extension]:
    """The notes' Markdown extension, made once: Markdown is imported with the first note shown."""
    from markdown.extensions import Extension
    from markdown.treeprocessors import Treeprocessor

    class _SafeLinks(Treeprocessor):
        """Unlink anything that is not http/https/mailto and replace images by their alt text."""

        def run(self, root: etree.Element) -> None:
            for parent in root.iter():
                for child in list(parent):
                    if child.tag == "a":
                        href = (child.get("href") or "").strip()
                        if not href.lower().startswith(_SAFE_SCHEMES):
                            child.tag = "span"
                            child.attrib.clear()
                    elif child.tag == "img":
                        alt = child.get("alt") or ""
                        child.tag = "span"
                        child.attrib.clear()
                        child.text = alt

    class _NoRawHtml(Extension):
        def extendMarkdown(self, md: markdown.Markdown) -> None:  # markdown API
            md.preprocessors.deregister("html_block")
            md.inlinePatterns.deregister("html")
            md.treeprocessors.register(_SafeLinks(md), "safe_links", 0)

    return _NoRawHtml


_local = threading.local()


def _note_md() -> markdown.Markdown:
    md = getattr(_local, "md", None)
    if md is None:
        import markdown

        md = markdown.Markdown(
            extensions=["fenced_code", "tables", "sane_lists", "nl2br", _no_raw_html()()],
            output_format="html",
        )
        _local.md = md
    return md


# Code (fenced blocks, inline spans) is left alone; `$$…$$` / `$…$` outside it become Unicode.
_NOTE_CODE_OR_MATH = re.compile(
    r"(?P<fence>^(?:```|~~~).*?(?:^(?:```|~~~)[^\n]*$|\Z))"
    r"|(?P<code>`+)(?:.+?)(?P=code)"
    r"|(?<!\\)\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$])\$(?P<inline>[^\s$](?:[^$\n]*?[^\s$\\])?)\$(?!\d)",
    re.MULTILINE | re.DOTALL,
)
_NOTE_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|{}])")


def _note_math(match: re.Match[str]) -> str:
    math = match.group("display") or match.group("inline")
    if math is None:
        return match.group(0)
    text = _NOTE_MD_SPECIAL.sub(r"\\\1", latex_to_unicode(math.strip()))
    return f"*{text}*" if text else ""


def note_html(markdown_text: str) -> str:
    """A user's Markdown note as HTML; raw HTML shows as text, links only http/https/mailto,
    and `$…$` math outside code shows as readable (italic) Unicode."""
    if not markdown_text or not markdown_text.strip():
        return ""
    if "$" in markdown_text:
        markdown_text = _NOTE_CODE_OR_MATH.sub(_note_math, markdown_text)
    md = _note_md()
    try:
        return md.reset().convert(markdown_text)
    except Exception:  # a Markdown bug must not break the notes pane
        md.reset()
        return "<p>" + _esc(markdown_text).replace("\n", "<br />") + "</p>"
