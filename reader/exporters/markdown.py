"""Markdown exports: a reading list in one file, or one file per paper with YAML front matter."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from ..errors import NotRegularFile, file_kind
from ..models import Paper
from ..output_files import name_unnamed, open_unnamed
from .filenames import safe_filename

AbstractRenderer = Callable[[str], str]
GroupBy = Literal["tag", "venue"] | None

UNTAGGED = "Untagged"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_BINARY_MODE = getattr(os, "O_BINARY", 0)


def tag_token(tag: str) -> str:
    """A tag as one #token (Obsidian and others end a tag at a space): spaces become hyphens."""
    return "-".join(str(tag).split())
UNKNOWN_VENUE = "Unknown venue"

# Characters that start emphasis, code, links, HTML or headings in Markdown.
_INLINE_SPECIAL = re.compile(r"([\\`*_\[\]#>])")
_LIST_MARK = re.compile(r"^(\s*)([-+=])")
_ORDERED_MARK = re.compile(r"^(\s*\d+)([.)])")
_ATX = re.compile(r"^( {0,3})(#{1,6})(?=[ \t]|$)(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_URL = re.compile(r"^https?://[^\s<>]+$")
# YAML double-quoted scalars must not carry raw non-printable or line-separator characters.
_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


def _identity(text: str) -> str:
    return text


def escape_inline(text: str) -> str:
    """Text that renders literally inside a Markdown paragraph or heading."""
    text = " ".join(str(text).split())
    text = _INLINE_SPECIAL.sub(r"\\\1", text).replace("<", "&lt;")
    # A leading "-", "+", "=" or "1." would start a list or underline a heading.
    text = _LIST_MARK.sub(r"\1\\\2", text, count=1)
    return _ORDERED_MARK.sub(r"\1\\\2", text, count=1)


def escape_block(text: str) -> str:
    """Multi-line plain text (a quote or comment) with each line escaped."""
    return "\n".join(escape_inline(line) for line in str(text).splitlines() if line.strip())


def demote_headings(markdown_text: str, top_level: int) -> str:
    """Shift the note's headings so the biggest is `top_level`; setext headings become ATX.

    Fenced code is left alone, and an unclosed fence is closed so it cannot swallow what follows.
    """
    lines = markdown_text.replace("\r\n", "\n").split("\n")
    levels: list[int | None] = [None] * len(lines)
    fence: str | None = None
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        atx = _ATX.match(line)
        if atx:
            levels[i] = len(atx.group(2))
            continue
        setext = _SETEXT.match(line)
        if setext and i > 0 and lines[i - 1].strip() and levels[i - 1] is None and (
            not _FENCE.match(lines[i - 1])
        ):
            levels[i - 1] = 1 if setext.group(1)[0] == "=" else 2
            levels[i] = -1  # the underline itself: dropped
    present = [lv for lv in levels if lv and lv > 0]
    if not present and fence is None:
        return markdown_text
    shift = max(0, top_level - min(present)) if present else 0
    out: list[str] = []
    for line, level in zip(lines, levels, strict=True):
        if level == -1:
            continue
        if level:
            atx = _ATX.match(line)
            text = atx.group(3).strip() if atx else line.strip()
            out.append("#" * min(6, level + shift) + (" " + text if text else ""))
        else:
            out.append(line)
    if fence is not None:
        out.append(fence)
    return "\n".join(out)


def paper_title(paper: Paper) -> str:
    """The title, or the abstract's first words when the paper has none."""
    title = " ".join(paper.title.split())
    if title:
        return title
    words = paper.abstract.split()
    if not words:
        return "Untitled"
    return " ".join(words[:10]) + ("…" if len(words) > 10 else "")


def _link(url: str) -> str:
    url = url.strip()
    return f"<{url}>" if _URL.match(url) else escape_inline(url)


def _meta_line(paper: Paper) -> str:
    parts: list[str] = []
    if paper.starred:
        parts.append("★")
    where = " ".join(str(v) for v in (paper.venue, paper.year) if v)
    if where:
        parts.append(escape_inline(where))
    if paper.read:
        parts.append("read")
    return " · ".join(parts)


def paper_body(
    paper: Paper,
    *,
    level: int,
    with_abstracts: bool = False,
    abstract_markdown: AbstractRenderer = _identity,
) -> str:
    """One paper: heading at `level`, details, optional abstract, note and highlights."""
    blocks = [f"{'#' * level} {escape_inline(paper_title(paper))}"]
    meta = _meta_line(paper)
    if meta:
        blocks.append(meta)
    authors = [a for a in paper.authors if a.strip()]
    if authors:
        blocks.append(escape_inline(", ".join(authors)))
    tags = [t for t in paper.tags if t.strip()]
    if tags:
        blocks.append("Tags: " + " ".join("#" + escape_inline(tag_token(t)) for t in tags))
    if paper.method:
        blocks.append("Method: " + escape_inline(paper.method))
    code = [u for u in paper.code_links if u.strip()]
    if code:
        blocks.append("Code: " + " ".join(_link(u) for u in code))
    if with_abstracts and paper.abstract:
        blocks.append(abstract_markdown(paper.abstract).strip())
    note = paper.note.strip()
    if note:
        blocks.append("**Note**")
        blocks.append(demote_headings(note, min(6, level + 1)))
    highlights = [h for h in paper.highlights if h.quote.strip()]
    if highlights:
        blocks.append("**Highlights**")
        for h in sorted(highlights, key=lambda h: (h.start, h.end)):
            quote = escape_block(h.quote)
            blocks.append("\n".join("> " + line for line in quote.split("\n")))
            comment = escape_block(h.comment)
            if comment:
                blocks.append(comment)
    return "\n\n".join(blocks) + "\n"


def _groups(papers: list[Paper], group_by: GroupBy) -> list[tuple[str, list[Paper]]]:
    groups: dict[str, list[Paper]] = {}
    fallback = UNTAGGED if group_by == "tag" else UNKNOWN_VENUE
    for paper in papers:
        if group_by == "tag":
            keys = list(dict.fromkeys(t for t in paper.tags if t.strip()))
        else:
            venue = " ".join(paper.venue.split())
            keys = [venue] if venue else []
        for key in keys or [fallback]:
            groups.setdefault(key, []).append(paper)
    named = sorted((k for k in groups if k != fallback), key=str.casefold)
    ordered = [(k, groups[k]) for k in named]
    if fallback in groups:
        ordered.append((fallback, groups[fallback]))
    return ordered


def reading_list(
    papers: Iterable[Paper],
    *,
    title: str,
    generated: datetime,
    group_by: GroupBy = None,
    with_abstracts: bool = False,
    abstract_markdown: AbstractRenderer = _identity,
) -> str:
    """A whole reading list as one Markdown document."""
    if group_by not in (None, "tag", "venue"):
        raise ValueError(f"group_by must be None, 'tag' or 'venue', not {group_by!r}")
    papers = list(papers)
    count = f"{len(papers)} paper" + ("" if len(papers) == 1 else "s")
    parts = [f"# {escape_inline(title)}", f"Generated {generated:%Y-%m-%d} · {count}"]
    def body(p: Paper, level: int) -> str:
        return paper_body(p, level=level, with_abstracts=with_abstracts, abstract_markdown=abstract_markdown)

    if group_by is None:
        parts += [body(p, 2) for p in papers]
    else:
        for name, members in _groups(papers, group_by):
            label = f"#{tag_token(name)}" if group_by == "tag" and name != UNTAGGED else name
            parts.append(f"## {escape_inline(label)}")
            parts += [body(p, 3) for p in members]
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"


def yaml_string(value: str) -> str:
    """A YAML double-quoted scalar (JSON string syntax, plus escapes YAML needs)."""
    text = json.dumps(value, ensure_ascii=False)
    return _YAML_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _yaml_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    return yaml_string(str(value))


def front_matter(paper: Paper) -> str:
    """YAML front matter with id, title, venue, year, tags, starred, read and code links."""
    year = paper.year
    fields = {
        "id": paper.id,
        "title": paper_title(paper),
        "venue": paper.venue or None,
        "year": year if isinstance(year, int) and not isinstance(year, bool) else None,
        "tags": list(paper.tags),
        "starred": paper.starred,
        "read": paper.read,
        "code": list(paper.code_links),
    }
    lines = ["---", *(f"{key}: {_yaml_value(value)}" for key, value in fields.items()), "---"]
    return "\n".join(lines) + "\n"


def write_per_paper(
    papers: Iterable[Paper],
    folder: Path,
    *,
    with_abstracts: bool = False,
    abstract_markdown: AbstractRenderer = _identity,
) -> list[Path]:
    """Write one `.md` per paper into `folder` (created if needed); returns the paths in order.

    Names are unique within this export; a file of the same name from an earlier export is
    replaced. Files are written atomically, only inside `folder`, never through a symlink.
    """
    folder = Path(folder)
    try:
        mode: int | None = os.stat(folder).st_mode
    except OSError:
        mode = None  # absent (made below), or mkdir says why not
    if mode is not None and not stat.S_ISDIR(mode):  # a file, a FIFO or a device where the folder belongs
        kind = "a file" if stat.S_ISREG(mode) else file_kind(mode)
        raise NotRegularFile(f"{folder} is {kind}, not a folder; not written")
    folder.mkdir(parents=True, exist_ok=True)
    root = folder.resolve()
    taken: set[str] = set()
    written: list[Path] = []
    for paper in papers:
        path = root / safe_filename(paper_title(paper), taken)
        if path.parent != root:  # belt and braces: safe_filename never yields separators
            raise ValueError(f"unsafe file name for paper {paper.id!r}")
        body = paper_body(
            paper, level=1, with_abstracts=with_abstracts, abstract_markdown=abstract_markdown
        )
        _write_in_folder(root, path.name, front_matter(paper) + "\n" + body)
        written.append(path)
    return written


def _write_in_folder(root: Path, name: str, text: str) -> None:
    """Write root/name atomically without ever following a link or leaving `root`.

    The text goes to a new temp file (O_CREAT | O_EXCL: never an existing file or link) in the
    same folder, which is then renamed over the name: a symlink left there is replaced, and the
    file it pointed to, wherever it is, stays untouched. A folder, FIFO or device under that name
    is refused (NotRegularFile, one line), never replaced.
    """
    _check_replaceable(root / name)
    tmp = root / f".{secrets.token_hex(8)}.md.tmp"
    # Unnamed until whole where the system allows (a killed export leaves nothing), else under
    # `tmp`; 0o666 minus the umask, like a normal open(); mkstemp would make it private (0o600).
    fd = open_unnamed(root)
    unnamed = fd is not None
    if fd is None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _BINARY_MODE, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            _check_replaceable(root / name)  # again, right before the rename
            if unnamed:
                name_unnamed(handle.fileno(), tmp)
        os.replace(tmp, root / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _check_replaceable(path: Path) -> None:
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise NotRegularFile(f"{path} is not a regular file (a folder, FIFO or device); not written")
