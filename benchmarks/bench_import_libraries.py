"""Real user libraries through Library.import_files, one library per file (prints figures).

Per file: entries an independent parser reads (bibtexparser 2 for BibTeX, counting the blocks it
fails on; rispy for RIS), papers stored, duplicates, without abstract, rejected, the sidebar's
collections and venues (and the distinct venue spellings they fold), and the lines `reader
import` prints by default. Issue 18's acceptance figures for the import half.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bibtexparser  # noqa: E402
import rispy  # noqa: E402

from reader.import_report import file_lines  # noqa: E402
from reader.library import Library  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"
FILES = [CORPORA / "bibtex" / n for n in ("bbt_papers3_user_library_issue1296.bib",
                                          "bbt_jabref_user_library_issue97.bib",
                                          "bbt_mendeley_user_export.bib")]
FILES += sorted((CORPORA / "ris_csl").glob("asreview_*.ris"))
FILES += sorted((CORPORA / "ris_csl").glob("*.csl.json"))


def independent(path: Path) -> str:
    if path.suffix == ".bib":
        lib = bibtexparser.parse_file(str(path))
        return f"bibtexparser {len(lib.entries)} + {len(lib.failed_blocks)} failed"
    if path.suffix == ".ris":
        with path.open(encoding="utf-8-sig") as f:
            return f"rispy {len(rispy.load(f))}"
    import json

    return f"json {len(json.loads(path.read_text()))}"


def main() -> None:
    import logging

    logging.getLogger("bibtexparser").disabled = True
    print("file | independent | entries | stored | dup | no abstract | rejected | collections | "
          "venues (spellings) | lines | s")
    for path in FILES:
        if not path.exists():
            print(f"{path.name}: absent")
            continue
        with tempfile.TemporaryDirectory() as d:
            lib = Library.open(Path(d) / "lib", seed_if_empty=False)
            t = time.perf_counter()
            [s] = lib.import_files([path], index=False)
            took = time.perf_counter() - t
            stored = len(lib.paper_ids())
            spellings = len({p.venue for p in lib.papers(lib.paper_ids()) if p.venue})
            print(f"{path.name} | {independent(path)} | {s.entries} | {stored} | {s.duplicates} | "
                  f"{s.without_abstract} | {len(s.skipped)} | {len(lib.collections())} | "
                  f"{len(lib.venues())} ({spellings}) | {len(file_lines(s))} | {took:.1f}")
            lib.close()


if __name__ == "__main__":
    main()
