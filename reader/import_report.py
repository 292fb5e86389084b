"""What an import says: one line per file, its problems grouped by cause (a few examples
each) by default, every problem on request (`reader import --verbose`, the GUI's Details…)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .models import ImportSummary, Problem
from .plural import count_noun

EXAMPLES = 5  # problems shown per cause by default
MAX_CAUSES = 6  # causes shown per file by default (the rest in one line)
_RECORD = re.compile(r"^record \d+: ")
_VALUE = re.compile(r'"[^"]*"|\([^)]*\)|\S*\d\S*')


def cause_of(problem: Problem) -> str:
    """What groups a problem with others: its cause, else its reason without the values
    ("year 1885 ignored" → "year ignored", "publisher left out: …" → "field left out: …")."""
    if problem.cause:
        return problem.cause
    reason = _RECORD.sub("", problem.reason)
    head, sep, tail = reason.partition(" left out")
    if sep:
        return "field left out" + tail
    return " ".join(_VALUE.sub(" ", reason).split()) or reason


def grouped(problems: Sequence[Problem]) -> list[tuple[str, list[Problem]]]:
    """Problems by cause, the commonest cause first (then in file order)."""
    groups: dict[str, list[Problem]] = {}
    for p in problems:
        groups.setdefault(cause_of(p), []).append(p)
    return sorted(groups.items(), key=lambda g: -len(g[1]))


def _sections(s: ImportSummary) -> list[tuple[str, str, list[Problem]]]:
    return ([("rejected", c, ps) for c, ps in grouped(s.skipped)]
            + [("kept, but", c, ps) for c, ps in grouped(s.notes)])


def file_lines(s: ImportSummary, *, verbose: bool = False) -> list[str]:
    """The lines for one file: the summary line, then one line per cause with up to EXAMPLES
    places (verbose: a heading per cause and every problem on its own line)."""
    if s.error:
        return [s.error]
    lines = [s.describe()]
    sections = _sections(s)
    shown = sections if verbose else sections[:MAX_CAUSES]
    for what, cause, problems in shown:
        head = f"  {what} {cause}: {count_noun(len(problems), 'entry')}"
        if verbose:
            lines.append(head)
            lines.extend(f"    {p}" for p in problems)
            continue
        places = ", ".join(p.where for p in problems[:EXAMPLES] if p.where)
        more = len(problems) - EXAMPLES
        lines.append(head + (f" ({places}{', …' if more > 0 else ''})" if places else ""))
    hidden = sections[MAX_CAUSES:] if not verbose else []
    if hidden:
        lines.append(f"  and {count_noun(sum(len(ps) for _, _, ps in hidden), 'other problem')}")
    return lines


def has_details(summaries: Sequence[ImportSummary]) -> bool:
    """True when there are problems to list (so a Details… is worth offering)."""
    return any(s.skipped or s.notes for s in summaries)


def details_text(summaries: Sequence[ImportSummary]) -> str:
    """Every problem of every file, grouped by cause (the GUI's Details…)."""
    return "\n".join(line for s in summaries for line in file_lines(s, verbose=True))
