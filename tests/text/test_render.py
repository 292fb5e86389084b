"""Tests for LaTeX conversion and abstract/note rendering (reader.text.latex, reader.text.render)."""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path

import markdown
import pytest

from reader.bundled import seed_files
from reader.text import (
    abstract_html,
    abstract_markdown,
    abstract_plain,
    latex_to_unicode,
    note_html,
    plain_for_index,
)

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora"
PAPERS = CORPUS / "ml_conference_corpus" / "papers.jsonl"
_TAG = re.compile(r"<[^>]+>")


def seed_abstracts() -> list[str]:
    out: list[str] = []
    for f in seed_files():
        blocks = [b.strip() for b in f.read_text(encoding="utf-8").split("\n\n") if b.strip()]
        out += blocks[1:]  # first block is the "ICML 2025 Papers" header
    return out


def visible(fragment: str) -> str:
    return html.unescape(_TAG.sub("", fragment))


def corpus_sample(n: int) -> list[str]:
    if not PAPERS.exists():
        pytest.skip("shared corpus not available")
    with PAPERS.open(encoding="utf-8") as fh:
        abstracts = [json.loads(line)["abstract"] for line in fh]
    # Always include every abstract with LaTeX or HTML-ish markup, plus a random rest.
    marked = [a for a in abstracts if "$" in a or "\\" in a or "<" in a or "&" in a]
    rnd = random.Random(7)
    return rnd.sample(marked, min(n // 2, len(marked))) + rnd.sample(abstracts, n // 2)


# --- latex_to_unicode ------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("math", "expected"),
    [
        (r"\mathbf{x}", "x"),
        (r"<7", "<7"),
        (r"\approx 90", "≈ 90"),
        (r"TA^{2}Net", "TA²Net"),
        (r"\alpha + \beta", "α + β"),
        (r"\ell_1", "ℓ₁"),
        (r"x_{ij}", "xᵢⱼ"),
        (r"x_{\max}", "xₘₐₓ"),
        (r"x_q", "x_q"),  # no Unicode subscript q: readable fallback
        (r"x_{iq}", "x_(iq)"),
        (r"O(d^4\varepsilon^{-2})", "O(d⁴ε⁻²)"),
        (r"\frac{k}{\varepsilon}", "k/ε"),
        (r"\frac{n+1}{2}", "(n+1)/2"),
        (r"\sqrt{n}", "√n"),
        (r"\sqrt{n+1}", "√(n+1)"),
        (r"\sqrt[3]{x}", "∛x"),
        (r"a \leq b", "a ≤ b"),
        (r"a\neq b", "a ≠ b"),
        (r"x \in \mathbb{R}^d", "x ∈ ℝᵈ"),
        (r"\sum_{i=1}^n x_i", "∑ᵢ₌₁ⁿ xᵢ"),
        (r"n \log n", "n log n"),
        (r"\sim 0.1\%", "∼ 0.1%"),
        (r"\{\pm1\}^n", "{±1}ⁿ"),
        (r"\left( a \right)", "( a)"),
        (r"\text{poly}(n)", "poly(n)"),
        (r"\operatorname{KL}(p\|q)", "KL(p‖q)"),
        (r"\mathcal{O}(n)", "O(n)"),
        (r"2 \times 3", "2 × 3"),
        (r"x \to \infty", "x → ∞"),
        (r"a\,b", "a b"),
        (r"\tilde{O}(\sqrt{T})", "Õ(√T)"),
        (r"\sqrtT", "√T"),  # braces lost upstream
        (r"\mathbbR^n", "ℝⁿ"),
        (r"\foo{bar}", "foobar"),  # unknown command: backslash dropped, argument kept
        (r"t*", "t*"),
        (r"x^{\top}", "xᵀ"),
    ],
)
def test_latex_to_unicode(math: str, expected: str) -> None:
    assert latex_to_unicode(math) == expected


@pytest.mark.parametrize("bad", ["", "\\", "{", "}", "}{", "x^", "x_", r"\frac{", r"\sqrt[",
                                 r"\left(", "{{{{", "\\\\\\", r"\begin{array}", "^^__"])
def test_latex_to_unicode_never_raises(bad: str) -> None:
    out = latex_to_unicode(bad)
    assert isinstance(out, str) and "\\" not in out


# --- abstract_plain --------------------------------------------------------------------------

def test_plain_converts_seed_latex_and_markdown() -> None:
    raw = (r"from $<7$\% to $\approx 90$\%, **AsymRnR** uses *it* and \textit{x} and "
           r"\texttt{WikiBigEdit} [code](https://github.com/a/b) ok")
    assert abstract_plain(raw) == "from <7% to ≈ 90%, AsymRnR uses it and x and WikiBigEdit code ok"


def test_plain_math_is_protected_from_emphasis() -> None:
    raw = "a constant noise level $t*$ for all samples. an optimal $t*$ for each sample"
    assert abstract_plain(raw) == "a constant noise level t* for all samples. an optimal t* for " \
                                  "each sample"
    assert "<i>" not in abstract_html(raw)


def test_plain_strips_markup_tags_but_keeps_comparisons() -> None:
    assert abstract_plain("a <i>b</i> c<sup>2</sup> <b>d</b>") == "a b c2 d"
    assert abstract_plain("if a < b and c > d") == "if a < b and c > d"
    assert abstract_plain("triplets <subject, relation, object> here") == \
        "triplets <subject, relation, object> here"
    assert abstract_plain("x <script>alert(1)</script> y") == "x y"


def test_plain_entities_dashes_quotes_and_whitespace() -> None:
    assert abstract_plain("A&amp;B &mdash; ok") == "A&B — ok"
    assert abstract_plain("heads---one and 1.8x--2.4x") == "heads—one and 1.8x–2.4x"
    assert abstract_plain("``quoted''  text\n\nnext") == "“quoted” text next"
    assert abstract_plain("  lead and trail \n") == "lead and trail"


def test_plain_latex_text_commands() -> None:
    assert abstract_plain(r"M\"ollenhoff and {\em emph} and \emph{e} \cite{x}") == \
        "Möllenhoff and emph and e [x]"
    assert abstract_plain(r"regret O(\sqrtT) on \mathbbR^n") == "regret O(√T) on ℝⁿ"
    assert abstract_plain(r"see \url{https://x.org/a}.") == "see https://x.org/a."


def test_plain_dollar_amounts_are_not_math() -> None:
    assert abstract_plain("costs $5 and $10 today") == "costs $5 and $10 today"
    assert abstract_plain(r"a lone $ sign") == "a lone $ sign"


def test_plain_for_index_is_plain() -> None:
    raw = r"We use $\alpha$ **bold**"
    assert plain_for_index(raw) == abstract_plain(raw) == "We use α bold"


@pytest.mark.parametrize("bad", ["", "$", "$$", "\\", "{", "}", "**", "*", "_", "`", "[", "](",
                                 "<", "<i>", "</b>", "&", "&#99999999;", "$\\frac{", "\\textit{",
                                 "[a](javascript:alert(1))", "$a$b$c", "\\\\\\", "{" * 300,
                                 "*" * 50, "<" * 20])
def test_never_raises_on_odd_input(bad: str) -> None:
    plain = abstract_plain(bad)
    assert visible(abstract_html(bad)) == plain
    assert isinstance(abstract_markdown(bad), str)


# --- abstract_html ---------------------------------------------------------------------------

def test_html_visible_text_equals_plain_for_every_seed() -> None:
    seeds = seed_abstracts()
    assert len(seeds) == 57
    for raw in seeds:
        assert visible(abstract_html(raw)) == abstract_plain(raw)


def test_html_formatting_and_safety() -> None:
    raw = (r"**bold** *it* \texttt{code} $\alpha$ [gh](https://github.com/a/b) "
           r"[bad](javascript:alert(1)) <script>x</script> <img src=x onerror=y>")
    out = abstract_html(raw)
    assert out.startswith("<p>") and out.endswith("</p>")
    assert "<b>bold</b>" in out and "<i>it</i>" in out and "<code>code</code>" in out
    assert '<span class="math"' in out and "α" in out
    assert '<a href="https://github.com/a/b">gh</a>' in out
    assert "javascript" not in out and "<script" not in out and "<img" not in out
    assert "onerror" not in out


def test_html_escapes_source_html_text() -> None:
    out = abstract_html("a < b & c <subject, object>")
    assert "&lt; b &amp; c &lt;subject, object&gt;" in out


def test_html_highlights_split_across_runs() -> None:
    raw = "plain **bold part** tail"
    plain = abstract_plain(raw)
    assert plain == "plain bold part tail"
    start, end = plain.index("in bo"), plain.index("rt t") + 3  # crosses both run boundaries
    out = abstract_html(raw, highlights=[(start, end, "#ffcc00")])
    assert visible(out) == plain
    spans = re.findall(r'<span class="hl" style="background-color:#ffcc00">(.*?)</span>', out)
    assert "".join(visible(s) for s in spans) == plain[start:end]
    assert len(spans) == 3  # before, inside and after the <b> run
    assert "<b><span" in out


def test_html_overlapping_highlights_and_bad_colour() -> None:
    raw = "alpha beta gamma delta"
    out = abstract_html(raw, highlights=[(0, 10, "#111111"), (6, 16, "#222222"),
                                         (17, 22, "red;position:fixed"), (50, 60, "#333")])
    assert visible(out) == abstract_plain(raw)
    assert "#222222\">beta" in out  # later highlight wins on the overlap
    assert "position" not in out
    assert "#333" not in out  # out of range


def test_html_terms_word_prefix_case_insensitive() -> None:
    raw = "Attention and attentions; reattention is not a hit. Self-attention is."
    out = abstract_html(raw, terms=["attention"])
    hits = re.findall(r'<span class="hit"[^>]*>(.*?)</span>', out)
    assert hits == ["Attention", "attentions", "attention"]
    assert "background-color:#fff3a0" in out
    assert visible(out) == abstract_plain(raw)


def test_html_terms_and_highlights_together() -> None:
    raw = r"We study $\alpha$-divergence and diffusion models."
    plain = abstract_plain(raw)
    out = abstract_html(raw, highlights=[(0, len(plain), "#abcdef")], terms=["diffusion", "α"])
    assert visible(out) == plain
    assert out.count('class="hit"') == 2


@pytest.mark.corpus
def test_corpus_sample_renders_and_plain_is_clean() -> None:
    sample = corpus_sample(2000)
    leftovers = 0
    for raw in sample:
        plain = abstract_plain(raw)
        out = abstract_html(raw, highlights=[(3, 40, "#ffe08a"), (20, 90, "#a0e0ff")],
                            terms=["learn", "model"])
        assert visible(out) == plain
        abstract_markdown(raw)
        if re.search(r"\\[A-Za-z]", plain) or re.search(r"\$[^$\s]+\$", plain):
            leftovers += 1
    # Raw LaTeX may survive only where the source itself is broken ($\backslash$emph ...).
    assert leftovers <= len(sample) // 200


# --- abstract_markdown -----------------------------------------------------------------------

def test_markdown_keeps_math_emphasis_and_links() -> None:
    raw = (r"from $<7$\% to $\approx 90$\%, **AsymRnR**, *it*, \textit{x}, \texttt{W}, "
           r"[code](https://github.com/a/b) and <b>x</b> a<b")
    md = abstract_markdown(raw)
    assert "$< 7$" not in md and "$<7$" in md
    assert "$\\approx 90$" in md
    assert "**AsymRnR**" in md and "*it*" in md and "*x*" in md and "`W`" in md
    assert "[code](https://github.com/a/b)" in md
    assert "\n" not in md
    rendered = markdown.markdown(md)
    assert "<b>" not in rendered and "&lt;b&gt;" not in rendered  # the tag became bold text
    assert "<strong>x</strong>" in rendered
    assert "a&lt;b" in rendered


def test_markdown_escapes_raw_html_and_markdown_chars() -> None:
    md = abstract_markdown("use <script>x</script> a <div> and 2 * 3 and snake_case")
    rendered = markdown.markdown(md)
    assert "<script" not in rendered and "<div" not in rendered
    assert "<em>" not in rendered


def test_markdown_for_every_seed_is_one_paragraph() -> None:
    for raw in seed_abstracts():
        md = abstract_markdown(raw)
        assert "\n" not in md
        rendered = markdown.markdown(md)
        assert rendered.count("<p>") == 1


# --- note_html -------------------------------------------------------------------------------

def test_note_html_renders_markdown_features() -> None:
    note = "# Head\n\n**b** line1\nline2\n\n```\ncode <x>\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    out = note_html(note)
    assert "<h1>Head</h1>" in out and "<strong>b</strong>" in out
    assert "<br" in out  # nl2br
    assert "<pre><code>code &lt;x&gt;" in out
    assert "<table>" in out


def test_note_html_escapes_raw_html_and_unsafe_links() -> None:
    note = ("<script>alert(1)</script>\n\n<b>x</b> [ok](https://a.org) [mail](mailto:a@b.c) "
            "[js](javascript:alert(1)) ![img](file:///etc/passwd)")
    out = note_html(note)
    assert "<script" not in out and "&lt;script&gt;" in out
    assert "<b>" not in out and "&lt;b&gt;" in out
    assert '<a href="https://a.org">ok</a>' in out
    assert '<a href="mailto:a@b.c">mail</a>' in out
    assert "javascript" not in out
    assert "<img" not in out and "file://" not in out


def test_note_html_empty() -> None:
    assert note_html("") == ""
    assert note_html("   \n") == ""


def test_note_html_renders_math_but_not_code() -> None:
    out = note_html("- compare with $O(n \\log n)$ baseline\n\n`$x$` and $5 or $10")
    assert "<em>O(n log n)</em>" in out
    assert "\\log" not in out
    assert "<code>$x$</code>" in out  # code stays as typed
    assert "$5 or $10" in out  # prices are not math
    assert "<em>αᵢ</em>" in note_html("$\\alpha_i$")
