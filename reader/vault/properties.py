"""YAML front matter ("properties") read whole but rewritten key by key, keeping the user's keys verbatim."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import yaml

from ..exporters.markdown import yaml_string

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Front matter: "---" on the first line, up to the next "---" (or "...") line.
_HEAD = re.compile(r"\A---[ \t]*\r?\n")
_END = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)
# A top-level key line: `key:` or `"key":` at column 0, followed by a space or the line end.
# A plain key's characters are taken possessively (`*+`, up to the first colon) and its trailing
# blanks stripped by the caller: a lazy `*?` before `[ \t]*:` retried the blanks at every
# position, quadratic in a line's trailing whitespace (80k tabs in a quoted title's next line
# cost seconds per sync).
_KEY = re.compile(r"""(?:"([^"\n]+)"|'([^'\n]+)'|([^\s#'"\-?:][^:#\n]*+|-[^\s:#\n][^:#\n]*+))[ \t]*:(?=[ \t]|\r?$)""")
# A plain YAML scalar we can write without quotes and read back as the same string.
_PLAIN = re.compile(r"^[^\W\d_][^:#\"'\[\]{},&*!|>%@`\n\r\t\\]*$")
_PLAIN_WORDS = frozenset("true false yes no on off null y n ~".split())
# The work budget: YAML costs ~2 s a MB to load; Reader's own keys take a few KB (60 KB for a
# paper with 3,000 authors), so a larger front matter is refused rather than parsed for seconds.
MAX_FRONT_MATTER = 256 << 10
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


class FrontMatterError(ValueError):
    """The front matter cannot be read or its layout is not one we can rewrite key by key."""


@dataclass(frozen=True)
class Segment:
    """One top-level key's text: [start, value_end) is the key and its value; trivia follows."""

    key: str
    start: int
    value_end: int


@dataclass(frozen=True)
class FrontMatter:
    text: str  # the whole file
    start: int  # where the YAML content starts (after the opening "---" line)
    end: int  # where it ends (the start of the closing "---" line)
    body_start: int  # after the closing line
    values: dict[str, Any]
    segments: dict[str, Segment]
    newline: str


def split(text: str) -> FrontMatter | None:
    """The file's front matter, None when it has none; FrontMatterError when it is broken."""
    head = _HEAD.match(text)
    if head is None:
        return None
    end = _END.search(text, head.end())
    if end is None:
        raise FrontMatterError("front matter has no closing '---' line")
    start, stop = head.end(), end.start()
    if stop - start > MAX_FRONT_MATTER:
        raise FrontMatterError(f"front matter larger than {MAX_FRONT_MATTER >> 10} KB")
    body_start = end.end()
    if text.startswith("\r\n", body_start):
        body_start += 2
    elif text.startswith("\n", body_start):
        body_start += 1
    source = text[start:stop]
    try:
        values = yaml.load(source, Loader=_Loader) if source.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise FrontMatterError(f"front matter is not valid YAML{where}") from None
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise FrontMatterError("front matter is not a list of keys and values")
    segments = _segments(text, start, stop)
    if set(segments) != {str(k) for k in values} or len(segments) != len(values):
        raise FrontMatterError("front matter layout not understood (repeated or non-text keys)")
    newline = "\r\n" if text[head.end() - 2: head.end()] == "\r\n" else "\n"
    return FrontMatter(text, start, stop, body_start, {str(k): v for k, v in values.items()}, segments, newline)


def _segments(text: str, start: int, stop: int) -> dict[str, Segment]:
    out: dict[str, Segment] = {}
    keys: list[tuple[str, int]] = []
    pos = start
    while pos < stop:
        nl = text.find("\n", pos, stop)
        line_end = stop if nl < 0 else nl + 1
        m = _KEY.match(text, pos, line_end)
        if m:
            keys.append((m.group(1) or m.group(2) or m.group(3).strip(), pos))
        pos = line_end
    for i, (key, begin) in enumerate(keys):
        limit = keys[i + 1][1] if i + 1 < len(keys) else stop
        if key in out:
            raise FrontMatterError(f"front matter repeats the key {key!r}")
        out[key] = Segment(key, begin, _value_end(text, begin, limit))
    return out


def _value_end(text: str, begin: int, limit: int) -> int:
    """Where a key's value ends: trailing blank and comment lines belong to the user's layout."""
    lines = text[begin:limit].splitlines(keepends=True)
    end = limit
    for line in reversed(lines[1:]):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        end -= len(line)
    return end


def scalar(value: Any) -> str:
    """One YAML scalar that reads back as exactly `value`."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value)
    if (_PLAIN.match(text) and text == text.strip() and " #" not in text and ": " not in text
            and text.lower() not in _PLAIN_WORDS and not _UNSAFE.search(text)):
        return text
    return yaml_string(text)


def entry(key: str, value: Any, newline: str = "\n") -> str:
    """A whole `key: value` entry, lists in block style as Obsidian writes them."""
    if isinstance(value, list | tuple):
        if not value:
            return f"{key}: []{newline}"
        return f"{key}:{newline}" + "".join(f"  - {scalar(v)}{newline}" for v in value)
    text = scalar(value)
    return f"{key}:{' ' + text if text else ''}{newline}"


def render(values: dict[str, Any]) -> str:
    """A new front matter block, fences included."""
    return "---\n" + "".join(entry(k, v) for k, v in values.items()) + "---\n"


def rewrite(fm: FrontMatter, updates: dict[str, Any]) -> list[tuple[int, int, str]]:
    """Replacements (start, end, text) that set `updates`; other keys and all layout stay as they are."""
    out: list[tuple[int, int, str]] = []
    missing: list[str] = []
    for key, value in updates.items():
        seg = fm.segments.get(key)
        if seg is None:
            missing.append(key)
            continue
        old = fm.text[seg.start: seg.value_end]
        new = entry(key, value, fm.newline)
        if not old.endswith(("\n", "\r")):  # the last key before the closing line keeps its layout
            new = new.rstrip("\r\n")
        out.append((seg.start, seg.value_end, new))
    if missing:
        prefix = "" if fm.end == fm.start or fm.text[fm.end - 1] == "\n" else fm.newline
        out.append((fm.end, fm.end, prefix + "".join(entry(k, updates[k], fm.newline) for k in missing)))
    return out
