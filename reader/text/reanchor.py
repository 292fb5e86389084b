"""Move highlights (offsets into a paper's plain text) onto a new plain text of the same abstract."""

from __future__ import annotations

from collections.abc import Iterable

from reader.text.clean import OffsetMap, clean_text
from reader.text.render import abstract_plain
from reader.text.runs import cleaning_edits, uncleaned_runs

Span = tuple[int, int, str]  # start, end, quote


def reanchor(raw: str, old_plain: str, spans: Iterable[Span]) -> tuple[str, list[Span]]:
    """The plain text of raw now, and each span moved onto it.

    When old_plain is the uncleaned text of raw (what Reader stored before text cleaning),
    offsets are mapped exactly through the cleaning edits; otherwise (a text made by some
    other version) each quote is looked up near its old place, its own damage cleaned."""
    new_plain = abstract_plain(raw)
    spans = list(spans)
    if not spans or new_plain == old_plain:
        return new_plain, spans
    if "".join(r.text for r in uncleaned_runs(raw)) == old_plain:
        move = OffsetMap(cleaning_edits(raw))
        out = []
        for start, end, _ in spans:
            a, b = move(start), move(end, end=True)
            out.append((a, max(a, b), new_plain[a:b]))
        return new_plain, out
    return new_plain, [_by_quote(new_plain, s) for s in spans]


def reanchor_quoted(raw: str, spans: list[Span]) -> list[Span]:
    """Spans whose quotes came with them (a backup made by any version), moved onto raw's plain
    text: exactly through the cleaning when they were made on the uncleaned text."""
    plain = abstract_plain(raw)
    if all(plain[a:b] == q for a, b, q in spans):
        return spans
    old = "".join(r.text for r in uncleaned_runs(raw))
    if all(old[a:b] == q for a, b, q in spans):
        return reanchor(raw, old, spans)[1]
    return [_by_quote(plain, s) for s in spans]


def _by_quote(plain: str, span: Span) -> Span:
    start, end, quote = span
    if plain[start:end] == quote:
        return span
    want = clean_text(quote)
    if want:
        near = [i for i in (plain.rfind(want, 0, start + len(want)), plain.find(want, start))
                if i >= 0]
        if near:
            i = min(near, key=lambda j: abs(j - start))
            return i, i + len(want), want
    a = min(start, len(plain))
    b = min(max(end, a), len(plain))
    return a, b, plain[a:b]
