"""One paper's Markdown file: front matter, Reader's managed blocks, and everything else the user's.

A managed block sits between two HTML comment lines, `<!-- reader:note -->` and
`<!-- /reader:note -->`. CommonMark (and Obsidian's reading view) renders an HTML comment as
nothing, so the machinery is invisible, yet a line like that is hard to damage by accident.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from ..exporters.markdown import escape_block, escape_inline
from ..models import without_controls
from ..store.tags import clean_tags
from ..text import abstract_markdown
from . import properties
from .properties import FrontMatterError
from .snapshot import PaperSnapshot

BLOCKS = ("paper", "highlights", "note")
_MARKER = re.compile(r"^[ \t]*<!--[ \t]*(/?)reader:([A-Za-z_-]*)[ \t]*-->[ \t]*\r?$", re.M)
_ID = re.compile(r"^[0-9a-f]{16}$")
# Reader's own id line, found even when the YAML around it is broken.
_ID_LINE = re.compile(r"""^id:[ \t]*["']?([0-9a-f]{16})["']?[ \t]*\r?$""", re.M)
_LEADING_BLANK = re.compile(r"\A(?:[ \t]*\r?\n)+")

# The front matter keys Reader writes, in the order a new file lists them.
KEYS = ("id", "title", "authors", "venue", "year", "tags", "starred", "read", "code", "links", "added")


class DamagedFile(ValueError):
    """The file is Reader's (or claims to be) but its structure cannot be trusted."""

    def __init__(self, reason: str, paper_id: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.paper_id = paper_id


def digest(value: Any) -> str:
    data = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return hashlib.blake2b(data.encode("utf-8"), digest_size=12).hexdigest()


def normalize_note(text: str) -> str:
    """A note as compared and stored: LF line ends, no leading blank lines, no trailing space."""
    return _LEADING_BLANK.sub("", text.replace("\r\n", "\n")).rstrip()


def tag_key(tags: Any) -> tuple[str, ...]:
    return tuple(sorted({t.casefold() for t in tags}))


# --- what Reader holds ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Parts:
    """The two-way synced parts of a paper, on either side."""

    title: str
    note: str
    tags: tuple[str, ...]
    starred: bool
    read: bool


def reader_parts(p: PaperSnapshot) -> Parts:
    return Parts(" ".join(p.title.split()), normalize_note(p.note), tuple(clean_tags(p.tags)), p.starred, p.read)


def owned_values(p: PaperSnapshot) -> dict[str, Any]:
    """The front matter values only Reader writes."""
    added = None
    try:
        added = dt.date.fromisoformat(p.added_at[:10]) if p.added_at else None
    except ValueError:
        pass
    return {
        "authors": list(p.authors),
        "venue": p.venue or None,
        "year": p.year,
        "code": list(p.code_links),
        "links": list(p.links),
        "added": added,
    }


def owned_hash(p: PaperSnapshot) -> str:
    return digest([p.abstract, list(p.authors), p.venue, p.year, list(p.code_links), list(p.links),
                   p.added_at[:10], [[h.start, h.end, h.quote, h.comment] for h in p.highlights]])


def reader_hash(p: PaperSnapshot) -> str:
    return state_hash(owned_hash(p), reader_parts(p))


def state_hash(owned: str, parts: Parts) -> str:
    """Everything Reader contributes to a file, in one hash."""
    return digest([owned, parts.title, parts.note, list(tag_key(parts.tags)), parts.starred, parts.read])


def paper_block(p: PaperSnapshot, title: str) -> str:
    lines = [f"# {escape_inline(title or 'Untitled')}"]
    meta = " · ".join(x for x in (
        escape_inline(", ".join(a for a in p.authors if a.strip())),
        escape_inline(" ".join(str(v) for v in (p.venue, p.year) if v)),
    ) if x)
    if meta:
        lines.append(meta)
    if p.abstract.strip():
        lines.append(abstract_markdown(p.abstract).strip())
    return "\n\n".join(lines)


def highlights_block(p: PaperSnapshot) -> str:
    items = [h for h in sorted(p.highlights, key=lambda h: (h.start, h.end)) if h.quote.strip()]
    if not items:
        return ""
    out = ["## Highlights"]
    for h in items:
        quote = [f"> {line}" for line in escape_block(h.quote).split("\n")]
        comment = escape_block(h.comment)
        if comment:
            quote += [">", *(f"> — {line}" if i == 0 else f"> {line}" for i, line in enumerate(comment.split("\n")))]
        out.append("\n".join(quote))
    return "\n\n".join(out)


def front_values(p: PaperSnapshot, parts: Parts) -> dict[str, Any]:
    values: dict[str, Any] = {"id": p.id, "title": parts.title, **owned_values(p),
                              "tags": list(parts.tags), "starred": parts.starred, "read": parts.read}
    return {k: values[k] for k in KEYS}


def _region(content: str) -> str:
    """The text between a block's two marker lines (blank lines around it, for Obsidian)."""
    return f"\n{content}\n\n" if content else "\n"


def _block(name: str, content: str) -> str:
    return f"<!-- reader:{name} -->\n{_region(content)}<!-- /reader:{name} -->\n"


def new_file(p: PaperSnapshot, parts: Parts) -> str:
    """A paper's file as first written; after that only the managed parts are ever replaced."""
    return "".join([
        properties.render(front_values(p, parts)), "\n",
        _block("paper", paper_block(p, parts.title)), "\n",
        _block("highlights", highlights_block(p)), "\n",
        "## Notes\n\n",
        _block("note", parts.note),
    ])


# --- what the file holds -------------------------------------------------------------------------

@dataclass(frozen=True)
class VaultFile:
    """A parsed Reader file: its text, front matter and the spans of its managed blocks."""

    text: str
    fm: properties.FrontMatter
    blocks: dict[str, tuple[int, int]]  # name -> (content start, content end)
    id: str

    def block(self, name: str) -> str:
        start, end = self.blocks[name]
        return self.text[start:end]

    def parts(self, base: Parts | None) -> Parts:
        """The synced parts as the file has them; a missing key counts as unchanged (base)."""
        v = self.fm.values
        fallback = base or Parts("", "", (), False, False)
        title = v.get("title")
        # Without control characters, as the store keeps titles (YAML's "\0" or "\a" would be
        # written raw into the file's heading, a NUL into a Markdown file).
        title = " ".join(without_controls(str(title)).split()) if title is not None and not isinstance(title, list | dict) else ""
        return Parts(
            title=title or fallback.title,
            note=normalize_note(self.block("note")),
            tags=_tags(v["tags"]) if "tags" in v else fallback.tags,
            starred=_flag(v, "starred", fallback.starred),
            read=_flag(v, "read", fallback.read),
        )


def _tags(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):  # "a, b" or "#a #b": Obsidian accepts both
        items = [t for chunk in value.split(",") for t in (chunk.split() if "#" in chunk else [chunk])]
        return tuple(clean_tags(items))
    if isinstance(value, list):
        if any(isinstance(t, list | dict) for t in value):
            raise DamagedFile("'tags' must be a list of words")
        return tuple(clean_tags(str(t) for t in value if t is not None))
    raise DamagedFile("'tags' must be a list of words")


def _flag(values: dict[str, Any], key: str, default: bool) -> bool:
    if key not in values or values[key] is None:
        return default
    value = values[key]
    if isinstance(value, bool):
        return value
    raise DamagedFile(f"'{key}' must be true or false")


def sniff_id(text: str) -> str | None:
    """The Reader id of a file whose front matter may be broken (None when it has none)."""
    if not text.startswith("---"):
        return None
    m = _ID_LINE.search(text, 0, min(len(text), 20000))
    return m.group(1) if m else None


def parse(text: str) -> VaultFile | None:
    """The parsed file; None when it is not a Reader file; DamagedFile when it is but is broken."""
    has_markers = _MARKER.search(text) is not None
    try:
        fm = properties.split(text)
    except FrontMatterError as exc:
        if has_markers or sniff_id(text):
            raise DamagedFile(str(exc), sniff_id(text)) from None
        return None
    raw_id = fm.values.get("id") if fm else None
    pid = str(raw_id).strip() if isinstance(raw_id, str) else None
    if isinstance(raw_id, int) and not isinstance(raw_id, bool):
        pid = sniff_id(text)  # an all-digit id someone wrote unquoted: its exact digits
    if fm is None or pid is None or not _ID.match(pid):
        if has_markers:
            raise DamagedFile("Reader's blocks are here but the front matter has no Reader id")
        return None
    blocks = _blocks(text, fm.body_start, pid)
    for key in ("tags",):
        if key in fm.values:
            _tags(fm.values[key])
    for key in ("starred", "read"):
        try:
            _flag(fm.values, key, False)
        except DamagedFile as exc:
            raise DamagedFile(exc.reason, pid) from None
    return VaultFile(text, fm, blocks, pid)


def _blocks(text: str, body_start: int, pid: str) -> dict[str, tuple[int, int]]:
    opened: dict[str, int] = {}
    blocks: dict[str, tuple[int, int]] = {}
    current: str | None = None
    for m in _MARKER.finditer(text, body_start):
        closing, name = m.group(1) == "/", m.group(2)
        if name not in BLOCKS:
            raise DamagedFile(f"unknown Reader marker 'reader:{name}'", pid)
        if name in blocks or (not closing and name in opened):
            raise DamagedFile(f"the reader:{name} markers appear more than once", pid)
        if not closing:
            if current is not None:
                raise DamagedFile(f"reader:{name} starts inside reader:{current}", pid)
            line_end = text.find("\n", m.end())
            opened[name] = len(text) if line_end < 0 else line_end + 1
            current = name
        else:
            if current != name:
                raise DamagedFile(f"a closing reader:{name} marker without its opening one", pid)
            blocks[name] = (opened[name], m.start())
            current = None
    if current is not None:
        raise DamagedFile(f"the reader:{current} block is not closed", pid)
    missing = [n for n in BLOCKS if n not in blocks]
    if missing:
        raise DamagedFile(f"the reader:{missing[0]} block is missing", pid)
    return blocks


def rewrite(vf: VaultFile, fm_updates: dict[str, Any], block_updates: dict[str, str]) -> str:
    """The file with only the given keys and blocks replaced; every other byte as it was."""
    edits = properties.rewrite(vf.fm, fm_updates) if fm_updates else []
    nl = vf.fm.newline
    for name, content in block_updates.items():
        start, end = vf.blocks[name]
        edits.append((start, end, _region(content).replace("\n", nl) if nl != "\n" else _region(content)))
    text = vf.text
    for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + new + text[end:]
    return text


def contains_marker(text: str) -> bool:
    return _MARKER.search(text) is not None
