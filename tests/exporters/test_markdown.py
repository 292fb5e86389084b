"""Markdown exports: rendered output, note demotion, YAML front matter and safe file names."""

from __future__ import annotations

import json
import re
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest

from reader.exporters import reading_list, safe_filename, write_per_paper
from reader.exporters.filenames import MAX_CHARS
from reader.exporters.markdown import demote_headings, escape_inline
from reader.models import Paper

ABSTRACT = "We study $x_1$ and *emphasis* in a long enough abstract for tests."
WHEN = datetime(2025, 3, 14, 9, 30)


def paper(**changes):
    base = {
        "id": "0123456789abcdef", "title": "A paper", "venue": "ICML", "year": 2025,
        "starred": False, "read": False, "tags": [], "code_links": [], "abstract": ABSTRACT,
        "note": "", "highlights": [], "method": None, "authors": ["Ann Lee", "Bo Chen"],
    }
    base.update(changes)
    return Paper.from_dict(base)


class Outline(HTMLParser):
    """Collects headings (level, text), emphasis tags and blockquote text from rendered HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.headings: list[tuple[int, str]] = []
        self.tags: list[str] = []
        self.quotes: list[str] = []
        self._heading: int | None = None
        self._quote = 0
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = int(tag[1])
            self.headings.append((self._heading, ""))
        if tag == "blockquote":
            self._quote += 1
            self.quotes.append("")

    def handle_endtag(self, tag):
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = None
        if tag == "blockquote":
            self._quote -= 1

    def handle_data(self, data):
        self.text.append(data)
        if self._heading is not None:
            level, text = self.headings[-1]
            self.headings[-1] = (level, text + data)
        if self._quote:
            self.quotes[-1] += data


def render(md: str) -> Outline:
    outline = Outline()
    outline.feed(markdown.markdown(md, extensions=["fenced_code"]))
    return outline


# --- reading list -------------------------------------------------------------------------


def test_reading_list_renders_cleanly():
    papers = [
        paper(title="snake_case_name and *stars* [link](x) <b>tag</b> #1", starred=True,
              read=True, tags=["rl", "my_tag"], code_links=["https://github.com/a/b_c"],
              note="Some **bold** note.",
              highlights=[{"start": 30, "end": 40, "quote": "emphasis *x*", "color": "yellow",
                           "comment": "check_this"}]),
        paper(id="2", title="- 1. Second", venue=None, year=None),
    ]
    md = reading_list(papers, title="My_list", generated=WHEN)
    out = render(md)
    assert out.headings[0] == (1, "My_list")
    assert (2, "snake_case_name and *stars* [link](x) <b>tag</b> #1") in out.headings
    assert (2, "- 1. Second") in out.headings
    assert "2025-03-14" in md and "2 papers" in md
    # Only the note's own **bold** produces emphasis; titles, tags and quotes stay literal.
    assert out.tags.count("strong") == 3  # the Note and Highlights labels + the note's bold
    assert "em" not in out.tags and "b" not in out.tags and "li" not in out.tags
    text = "".join(out.text)
    assert "★" in text and "ICML 2025" in text
    assert "#rl" in text and "#my_tag" in text
    assert "https://github.com/a/b_c" in text and "a" in out.tags
    assert out.quotes == ["\nemphasis *x*\n"]
    assert "check_this" in text
    assert ABSTRACT not in md  # abstracts only on request


def test_reading_list_counts_strong_exactly():
    md = reading_list([paper(note="plain", highlights=[{"start": 0, "end": 2, "quote": "We"}])],
                      title="T", generated=WHEN)
    out = render(md)
    assert out.tags.count("strong") == 2  # the "Note" and "Highlights" labels


def test_abstract_uses_callable():
    md = reading_list([paper()], title="T", generated=WHEN, with_abstracts=True,
                      abstract_markdown=lambda s: "RENDERED: " + s.upper())
    assert "RENDERED: WE STUDY $X_1$" in md


def test_note_headings_never_outrank_paper_heading():
    note = "# Top\n\ntext\n\nSetext\n======\n\n## Sub\n\n```\n# code, not a heading\n```\n\n###### Six"
    md = reading_list([paper(tags=["x"], note=note)], title="T", generated=WHEN, group_by="tag")
    out = render(md)
    assert [lvl for lvl, _ in out.headings] == [1, 2, 3, 4, 4, 5, 6]
    assert out.headings[2] == (3, "A paper")
    assert (4, "Top") in out.headings and (4, "Setext") in out.headings
    assert "# code, not a heading" in md


def test_unclosed_fence_in_note_cannot_swallow_next_paper():
    papers = [paper(note="```python\nx = 1"), paper(id="2", title="Next one")]
    md = reading_list(papers, title="T", generated=WHEN)
    fences = [i for i, line in enumerate(md.split("\n")) if line.startswith("```")]
    assert len(fences) == 2
    assert fences[1] < md.split("\n").index("## Next one")
    assert (2, "Next one") in render(md).headings


def test_demote_headings_leaves_small_headings():
    assert demote_headings("#### Small\n\ntext", 3) == "#### Small\n\ntext"
    assert demote_headings("# A\n## B", 4) == "#### A\n##### B"
    assert demote_headings("no headings", 3) == "no headings"


def test_group_by_tag_lists_paper_under_each_tag():
    papers = [paper(id="1", title="Both", tags=["vision", "RL"]),
              paper(id="2", title="Bare", tags=[]),
              paper(id="3", title="Only rl", tags=["RL"])]
    out = render(reading_list(papers, title="T", generated=WHEN, group_by="tag"))
    assert out.headings[1:] == [
        (2, "#RL"), (3, "Both"), (3, "Only rl"),
        (2, "#vision"), (3, "Both"),
        (2, "Untagged"), (3, "Bare"),
    ]


def test_group_by_venue():
    papers = [paper(id="1", title="X", venue="NeurIPS"), paper(id="2", title="Y", venue=None),
              paper(id="3", title="Z", venue="ICLR")]
    out = render(reading_list(papers, title="T", generated=WHEN, group_by="venue"))
    assert [h for h in out.headings if h[0] == 2] == [(2, "ICLR"), (2, "NeurIPS"),
                                                      (2, "Unknown venue")]


def test_bad_group_by():
    with pytest.raises(ValueError):
        reading_list([], title="T", generated=WHEN, group_by="year")  # type: ignore[arg-type]


def test_untitled_paper_uses_abstract_words():
    out = render(reading_list([paper(title=None)], title="T", generated=WHEN))
    assert out.headings[1] == (2, "We study $x_1$ and *emphasis* in a long enough abstract…")


def test_escape_inline_round_trip():
    for text in ["a_b_c", "*x*", "**y**", "`code`", "[a](b)", "<i>x</i>", "1. item", "# h",
                 "> q", "back\\slash", "+ plus", "x_1^2 & y"]:
        html = markdown.markdown(escape_inline(text))
        assert html == f"<p>{text.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}</p>", text


# --- per-paper files ----------------------------------------------------------------------


def parse_front_matter(text: str) -> tuple[dict, str]:
    """A tiny YAML subset parser: `key: <JSON-compatible flow value>` lines between --- fences."""
    lines = text.split("\n")
    assert lines[0] == "---"
    end = lines.index("---", 1)
    data = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(": ")
        assert sep and re.fullmatch(r"[a-z_]+", key), line
        # Scalars we emit are JSON literals, which YAML 1.2 reads the same way.
        data[key] = json.loads(value)
    return data, "\n".join(lines[end + 1 :])


HOSTILE_TITLES = [
    'Colons: "quotes" and #hash',
    "Line\nbreak\tand tab",
    "Unicode \u2028 separator \x85 and \x7f",
    "- starts like a list",
    "null",
    "@at & *star [bracket] {brace} | pipe > gt % pct ! bang",
]


def test_write_per_paper_front_matter(tmp_path):
    papers = [paper(id=f"1e{i}", title=t, tags=["a:b", 'q"t'], starred=i % 2 == 0,
                    code_links=["https://github.com/x/y"], year=2020 + i)
              for i, t in enumerate(HOSTILE_TITLES)]
    paths = write_per_paper(papers, tmp_path / "out", with_abstracts=True)
    assert len(paths) == len(papers)
    for path, source in zip(paths, papers, strict=True):
        text = path.read_text(encoding="utf-8")
        data, body = parse_front_matter(text)
        assert data == {
            "id": source.id, "title": " ".join(source.title.split()),
            "venue": "ICML", "year": source.year, "tags": ["a:b", 'q"t'],
            "starred": source.starred, "read": False, "code": ["https://github.com/x/y"],
        }
        assert ABSTRACT in body
        out = render(body)
        assert out.headings[0] == (1, " ".join(source.title.split()))
        for bad in ("\u2028", "\x85", "\x7f"):
            assert bad not in text.split("---")[1]


def test_write_per_paper_unique_names(tmp_path):
    papers = [paper(id=str(i), title=t) for i, t in
              enumerate(["Same", "same", "SAME", "Same.", "../Same", "", None, "NUL", "nul"])]
    paths = write_per_paper(papers, tmp_path)
    names = [p.name for p in paths]
    assert len({n.casefold() for n in names}) == len(names)
    assert names[:4] == ["Same.md", "same (2).md", "SAME (3).md", "Same (4).md"]
    assert all(p.parent == tmp_path.resolve() and p.is_file() for p in paths)
    assert len(list(tmp_path.iterdir())) == len(papers)


# --- safe file names ----------------------------------------------------------------------

EVIL = [
    "../../etc/passwd", "/abs/path", "C:\\x\\y", "C:x", "NUL", "nul.txt", "CON", "com1",
    "LPT9.tar", "COM\u00b9", "", "   ", ".", "..", "...", ".hidden", "trailing dot.",
    "a/b\\c:d*e?f\"g<h>i|j", "tab\tnew\nline\x00nul\x1b", "\u202eevil\u200b", "x" * 300,
    "é" * 200, "🙂" * 100, "word " * 40, "..\\..\\windows",
]


@pytest.mark.parametrize("title", EVIL)
def test_safe_filename_properties(title):
    name = safe_filename(title, set())
    assert name.endswith(".md")
    assert 4 <= len(name) <= MAX_CHARS
    assert len(name.encode("utf-8")) <= 255
    assert not re.search(r'[/\\:*?"<>|\x00-\x1f\x7f]', name)
    assert not name.startswith((".", " "))
    assert name not in (".", "..") and ".." not in name.split("/")
    assert name.split(".")[0].strip().upper() not in {"CON", "PRN", "AUX", "NUL", "COM1",
                                                      "LPT9", "COM\u00b9"}
    assert "\u202e" not in name and "\u200b" not in name


def test_safe_filename_files_stay_in_folder(tmp_path):
    folder = tmp_path / "export"
    folder.mkdir()
    taken: set[str] = set()
    for title in EVIL + EVIL:
        name = safe_filename(title, taken)
        path = folder / name
        assert path.resolve().parent == folder.resolve(), title
        path.write_text("x", encoding="utf-8")
    # Every name was distinct, so every write created a new file inside the folder.
    assert len(list(folder.iterdir())) == 2 * len(EVIL)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]


def test_safe_filename_unique_and_short():
    taken: set[str] = set()
    long_title = "Attention " * 20
    names = [safe_filename(long_title, taken) for _ in range(12)]
    assert len({n.casefold() for n in names}) == 12
    assert all(len(n) <= MAX_CHARS for n in names)
    assert names[0] == "Attention Attention Attention Attention Attention Attention Attention.md"
    assert names[11].endswith(" (12).md")
    assert safe_filename("Plain title", set(), ext=".txt") == "Plain title.txt"


def test_safe_filename_reserved_and_empty():
    assert safe_filename("NUL", set()) == "_NUL.md"
    assert safe_filename("con.txt", set()) == "_con.txt.md"
    assert safe_filename("Console", set()) == "Console.md"
    assert safe_filename("", set()) == "Untitled.md"
    assert safe_filename("../../etc/passwd", set()) == "etc passwd.md"
    assert Path(safe_filename("/abs", set())).name == "abs.md"
