"""PNGs of the list at 1024×640 and 1600×1000, light and dark, on the seeds and on a few hundred
real corpus papers (real titles, authors, venues), to look at: cut titles, empty columns,
overlaps, contrast.

Usage: python scripts/list_screenshots.py [--out DIR] [--papers N]
The corpus library is skipped when ../shared/corpora is absent. Global settings go to a
temporary folder, so the user's own window and column settings are neither read nor changed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from shots import wait  # scripts/ is on sys.path when run

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
SIZES = ((1024, 640), (1600, 1000))


def _corpus_file(tmp: Path, n: int) -> Path | None:
    if not CORPUS.exists():
        return None
    src = tmp / "corpus-sample.jsonl"
    with CORPUS.open(encoding="utf-8") as f, src.open("w", encoding="utf-8") as out:
        for i, line in enumerate(f):
            if i % 97 == 0:  # spread over venues and years
                out.write(line)
                n -= 1
                if n <= 0:
                    break
    return src


def shoot(app, folder: Path, label: str, out: Path, source: Path | None) -> None:
    from reader.library import Library
    from reader.ui.window.main_window import MainWindow

    library = Library.open(folder, seed_if_empty=source is None)
    if source is not None:
        library.import_files([source])
    window = MainWindow(library, theme="light")
    window.show()
    wait(app, lambda: window.index_ready and not window.runner.busy)
    for w, h in SIZES:
        window.resize(w, h)
        for query in ("", "attention"):
            window.searchBox.setText(query)
            wait(app, lambda: not window.runner.busy, timeout=10)
            wait(app, lambda: False, timeout=0.5)  # the debounced search and its paint
            for theme in ("light", "dark"):
                window.apply_theme(theme)
                wait(app, lambda: False, timeout=0.3)
                name = f"{label}-{w}x{h}-{theme}{'-search' if query else ''}.png"
                window.grab().save(str(out / name))
                print(out / name)
    window.apply_theme("light")
    window.close()
    library.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "screenshots")
    ap.add_argument("--papers", type=int, default=300)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="reader-list-shots-") as tmp_s:
        tmp = Path(tmp_s)
        os.environ["READER_CONFIG_DIR"] = str(tmp / "config")
        from reader.ui.app import make_app

        app = make_app()
        shoot(app, tmp / "seeds", "seeds", args.out, None)
        source = _corpus_file(tmp, args.papers)
        if source is not None:
            shoot(app, tmp / "corpus", "corpus", args.out, source)
    return 0


if __name__ == "__main__":
    sys.exit(main())
