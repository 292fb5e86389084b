"""File names from paper titles that are safe on Windows, macOS and Linux and unique per folder."""

from __future__ import annotations

import re
import unicodedata

from pathvalidate import ValidationError, sanitize_filename, validate_filename
from pathvalidate.handler import ReservedNameHandler

MAX_CHARS = 80
MAX_BYTES = 240  # file systems cap names at 255 bytes; leave room for the " (n)" suffix
FALLBACK = "Untitled"

_FORBIDDEN = re.compile(r'[/\\:*?"<>|\x00-\x1f\x7f-\x9f]')
_WINDOWS_RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{dev}{n}" for dev in ("COM", "LPT") for n in (*"123456789", "\u00b9", "\u00b2", "\u00b3")]
)


def _clean(title: str | None) -> str:
    text = unicodedata.normalize("NFC", title or "")
    # pathvalidate knows every platform's forbidden characters; reserved names, hidden dots,
    # invisible characters, length and uniqueness stay ours (it suffixes "NUL_" and keeps
    # ".hidden" and bidi overrides).
    text = sanitize_filename(text, replacement_text=" ", platform="universal",
                             reserved_name_handler=ReservedNameHandler.as_is,
                             max_len=len(text.encode("utf-8")) * 2 + 16)
    text = _FORBIDDEN.sub(" ", text)  # C1 controls, which pathvalidate allows
    # Drop invisible format characters (bidi overrides, zero-width) that can disguise a name.
    text = "".join(ch for ch in text if unicodedata.category(ch) not in ("Cf", "Cs", "Co", "Cn"))
    text = " ".join(text.split())
    # Leading dots hide files (and make "."/".."); Windows drops trailing dots and spaces.
    return text.lstrip(". ").rstrip(". ")


def _fit(stem: str, budget_chars: int) -> str:
    """Cut to the char and byte budgets, at a word boundary when one is near."""
    budget_bytes = MAX_BYTES - (MAX_CHARS - budget_chars)
    if len(stem) <= budget_chars and len(stem.encode("utf-8")) <= budget_bytes:
        return stem
    cut = stem[:budget_chars]
    while len(cut.encode("utf-8")) > budget_bytes:
        cut = cut[:-1]
    space = cut.rfind(" ")
    if space >= budget_chars // 2:
        cut = cut[:space]
    return cut.rstrip(". ")


def _is_reserved(stem: str) -> bool:
    # Windows ignores everything after the first dot when checking device names ("NUL.tar.md").
    return stem.split(".", 1)[0].rstrip(" ").upper() in _WINDOWS_RESERVED


def safe_filename(title: str | None, taken: set[str], *, ext: str = ".md") -> str:
    """A safe, unique file name (with `ext`) for `title`; records it in `taken` (case-folded).

    Never contains a path separator, never starts with a dot, is never a device name such as
    NUL, and is at most MAX_CHARS characters long including the extension.
    """
    stem = _fit(_clean(title), MAX_CHARS - len(ext)) or FALLBACK
    if _is_reserved(stem):
        stem = _fit("_" + stem, MAX_CHARS - len(ext))
    name = stem + ext
    number = 1
    while name.casefold() in taken:
        number += 1
        suffix = f" ({number})"
        name = (_fit(stem, MAX_CHARS - len(ext) - len(suffix)) or FALLBACK) + suffix + ext
    try:
        validate_filename(name, platform="universal")
    except ValidationError:  # never expected: every rule above is stricter; stay safe anyway
        name = f"{FALLBACK} ({len(taken) + 1}){ext}"
    taken.add(name.casefold())
    return name
