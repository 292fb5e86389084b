"""Abstract fragments with the matched words in <b>…</b>, as safe HTML."""

from __future__ import annotations

import html
import re

from reader.search.schema import cached_stem

_WORD = re.compile(r"\w+(?:\.?\w+)*")
WIDTH = 240  # characters of abstract shown


def _is_hit(word: str, stems: frozenset[str], prefixes: tuple[str, ...]) -> bool:
    w = word.lower()
    if w in stems or cached_stem(w) in stems:
        return True
    return bool(prefixes) and w.startswith(prefixes)


def make_snippet(
    text: str,
    stems: frozenset[str],
    prefixes: tuple[str, ...] = (),
    width: int = WIDTH,
) -> str:
    """The `width`-character window of `text` with the most distinct hits, HTML-escaped.

    `stems` are indexed (stemmed) terms; `prefixes` match word starts (for `word*`).
    """
    text = " ".join(text.split())
    # Stemming keeps a word's first letters: only words starting like a stem or a prefix
    # are stemmed (stemming every word of every snippet cost ~10 ms per hit).
    starts = tuple({t[:2] for t in stems} | {p[:2] for p in prefixes})
    hits = [
        (m.start(), m.end(), m.group().lower())
        for m in _WORD.finditer(text)
        if m.group().lower().startswith(starts) and _is_hit(m.group(), stems, prefixes)
    ] if starts else []
    if hits:
        # Slide over hit starts; keep the window covering the most distinct words.
        best_i, best_n = 0, -1
        for i, (start, _, _) in enumerate(hits):
            words = {h[2] for h in hits[i:] if h[1] <= start + width}
            if len(words) > best_n:
                best_i, best_n = i, len(words)
        start = hits[best_i][0]
        # Show a little context before the first hit, from a word boundary.
        lead = max(0, start - 40)
        if lead > 0:
            sp = text.find(" ", lead)
            start = sp + 1 if 0 <= sp < start else start
        else:
            start = 0
    else:
        start = 0
    end = min(len(text), start + width)
    if end < len(text):
        sp = text.rfind(" ", start, end)
        if sp > start + width // 2:
            end = sp
    out: list[str] = ["…"] if start > 0 else []
    pos = start
    for hs, he, _ in hits:
        if hs < start or he > end:
            continue
        out.append(html.escape(text[pos:hs]))
        out.append("<b>" + html.escape(text[hs:he]) + "</b>")
        pos = he
    out.append(html.escape(text[pos:end]))
    if end < len(text):
        out.append("…")
    return "".join(out)
