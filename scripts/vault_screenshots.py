"""Save docs/vault.png (a synced vault file rendered as Obsidian-style Markdown) and docs/vault-window.png.

The file is a real one: the main window on the bundled seeds syncs to a temporary vault, the
paper is starred, tagged, highlighted and annotated through the GUI, and the file Reader wrote is
rendered with markdown-it-py (front matter shown as a properties table, as Obsidian does)."""

from __future__ import annotations

import html
import os
import re
import sys
import tempfile
from pathlib import Path

from shots import wait  # scripts/ is on sys.path when run

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

ROOT = Path(__file__).resolve().parents[1]
CSS = """
body { font-family: 'DejaVu Sans', sans-serif; font-size: 15px; color: #222; background: #ffffff; }
h1 { font-size: 26px; font-weight: 600; margin: 6px 0 10px 0; }
h2 { font-size: 20px; font-weight: 600; margin: 18px 0 6px 0; }
p { line-height: 150%; margin: 6px 0; }
blockquote { color: #444; background: #fbf4d0; margin: 6px 0 6px 0; padding: 4px 12px; }
code { font-family: 'DejaVu Sans Mono', monospace; background: #f3f3f3; }
a { color: #705dcf; text-decoration: none; }
table.props { margin: 0 0 14px 0; }
table.props td { padding: 3px 14px 3px 0; font-size: 13px; }
td.key { color: #777; }
span.tag { background: #ede9fb; color: #5a49b8; }
"""




def _value_html(key: str, value: object) -> str:
    if isinstance(value, list):
        if key == "tags":
            return " ".join(f"<span class='tag'>&nbsp;#{html.escape(str(v))}&nbsp;</span>" for v in value)
        return "<br>".join(html.escape(str(v)) for v in value)
    if isinstance(value, bool):
        return "☑" if value else "☐"
    return html.escape(str(value))


def render(path: Path) -> str:
    """The file as Obsidian's reading view shows it: properties, then the rendered body."""
    import frontmatter
    from markdown_it import MarkdownIt

    post = frontmatter.loads(path.read_text(encoding="utf-8"))
    rows = "".join(f"<tr><td class='key'>{html.escape(k)}</td><td>{_value_html(k, v)}</td></tr>"
                   for k, v in post.metadata.items() if k != "id" and v not in ([], "", None))
    from reader.text.latex import latex_to_unicode

    # Obsidian's own syntax on top of CommonMark: [[wiki links]], task boxes and $math$ (which
    # Obsidian typesets with MathJax; Reader's own LaTeX-to-Unicode stands in for it here).
    content = re.sub(r"\[\[([^\]|]+)\]\]", lambda m: f"[{m.group(1)}](#)", post.content)
    content = re.sub(r"\$([^$\n]+)\$", lambda m: f"<i>{html.escape(latex_to_unicode(m.group(1)))}</i>", content)
    body = MarkdownIt("commonmark", {"html": True}).render(content)
    body = body.replace("<li>[ ] ", "<li>☐ ").replace("<li>[x] ", "<li>☑ ")
    return (f"<html><head><style>{CSS}</style></head><body>"
            f"<p style='color:#999;font-size:12px'>{html.escape(path.name)}</p>"
            f"<table class='props'>{rows}</table>{body}</body></html>")


def main() -> int:
    from PySide6.QtCore import QSize
    from PySide6.QtWidgets import QTextBrowser

    from reader.library import Library
    from reader.ui.app import make_app
    from reader.ui.operations import highlights, papers
    from reader.ui.window.main_window import MainWindow

    docs = ROOT / "docs"
    app = make_app()
    with tempfile.TemporaryDirectory(prefix="reader-vault-shots-") as tmp:
        library = Library.open(Path(tmp) / "library")
        vault_dir = Path(tmp) / "Research vault"
        window = MainWindow(library, theme="light")
        window.resize(1280, 800)
        window.show()
        wait(app, lambda: window.index_ready and not window.runner.busy)
        window.searchBox.setText("masked diffusion")
        wait(app, lambda: window.search_results is not None and not window.runner.busy)
        pid = window.model.ids()[0]
        window.select_paper(pid)
        wait(app, lambda: window.pane.paper_id == pid)
        text = window.pane.abstractView.toPlainText()
        quote = "they can decode tokens in essentially arbitrary order"
        start = text.find(quote)
        if start >= 0:
            highlights.add_highlight(window.ops, pid, start, start + len(quote), "yellow",
                                     "the trade-off we saw with our infilling model")
        papers.set_starred(window.ops, [pid], True)
        papers.add_tags(window.ops, [pid], ["diffusion", "to-discuss"])
        wait(app, lambda: not window.runner.busy)
        window.pane.noteEditor.setPlainText(
            "**Why it matters:** adaptive decoding order closes most of the gap to ARMs on Sudoku.\n\n"
            "- [ ] try the top-probability-margin order on our benchmark\n"
            "- compare with [[Autoregressive baselines]]")
        window.pane.flush_note()
        wait(app, lambda: not window.runner.busy)
        syncs = window.vault_sync.syncs
        window.vault_sync.configure(vault_dir)
        wait(app, lambda: window.vault_sync.syncs > syncs and not window.runner.busy)

        # The user's own text in the file (outside Reader's parts) — it survives every sync.
        path = next(p for p in vault_dir.glob("*.md") if pid in p.read_text(encoding="utf-8"))
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n## Discussion\n\nBring to the reading group on **Thursday**; see also [[Sampling notes]].\n")
        syncs = window.vault_sync.syncs
        wait(app, lambda: window.vault_sync.syncs > syncs and not window.runner.busy, timeout=10)
        window.vault_sync.show_report()
        window.vault_sync.report_dialog.close()
        window.searchBar.clear_silently()
        window.refresh_list()
        wait(app, lambda: window.model.rowCount() > 1 and not window.runner.busy)
        window.select_paper(pid)
        window.pane.tabs.setCurrentIndex(0)
        wait(app, lambda: False, timeout=0.3)
        window.grab().save(str(docs / "vault-window.png"))

        view = QTextBrowser()
        view.setFrameShape(QTextBrowser.Shape.NoFrame)
        view.document().setDocumentMargin(28)
        view.setHtml(render(path))
        view.resize(QSize(820, 400))
        view.document().setTextWidth(820)
        view.resize(QSize(820, int(view.document().size().height()) + 4))
        view.show()
        wait(app, lambda: False, timeout=0.3)
        view.grab().save(str(docs / "vault.png"))
        print(path.read_text(encoding="utf-8"))
        window.close()
        library.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
