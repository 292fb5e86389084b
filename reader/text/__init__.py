"""Text handling for abstracts: LaTeX to Unicode, rendering, and extraction heuristics."""

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
