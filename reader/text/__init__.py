"""Text handling for abstracts: LaTeX to Unicode, rendering, and extraction heuristics.

The functions named here load their module on first use (PEP 562 `__getattr__`): the store
imports only reader.text.citekeys, and a CLI command such as `reader star` need not load the
Markdown renderer and the extraction rules with it (~0.1 s of its start)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reader.text.extract import (
        derive_title,
        detect_method,
        extract_code_links,
        extract_links,
        sentences,
    )
    from reader.text.latex import latex_to_unicode
    from reader.text.render import (
        abstract_html,
        abstract_markdown,
        abstract_plain,
        note_html,
        plain_for_index,
        term_spans,
        title_plain,
    )

# Bump when abstract_plain's output changes: stored plain texts are then recomputed at open.
TEXT_VERSION = 2

_EXTRACT = frozenset({"derive_title", "detect_method", "extract_code_links", "extract_links", "sentences"})
_RENDER = frozenset({"abstract_html", "abstract_markdown", "abstract_plain", "note_html", "plain_for_index",
                     "term_spans", "title_plain"})

__all__ = [
    "TEXT_VERSION",
    "abstract_html",
    "abstract_markdown",
    "abstract_plain",
    "derive_title",
    "detect_method",
    "extract_code_links",
    "extract_links",
    "latex_to_unicode",
    "note_html",
    "plain_for_index",
    "sentences",
    "term_spans",
    "title_plain",
]


def __getattr__(name: str) -> Any:
    from types import ModuleType

    module: ModuleType
    if name in _EXTRACT:
        from reader.text import extract as module
    elif name in _RENDER:
        from reader.text import render as module
    elif name == "latex_to_unicode":
        from reader.text import latex as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value  # once found, a plain module attribute
    return value
