"""PDF-damage cleaning on the 50k corpus: how many abstracts/titles change, by kind, with examples.

Also the cost beside the same-run reference (parsing the runs without cleaning), and a check of
the line-end hyphen rule against the corpus itself: for each "left- right" that is not a
suspended hyphen, the corpus' own counts of "leftright" and "left-right" (outside line breaks)
say which spelling is right; the rule's agreement with them is printed.
"""

from __future__ import annotations

import collections
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reader.text.clean import _SUSPENDED, apply_edits, clean_edits, clean_text  # noqa: E402
from reader.text.runs import parse_runs, uncleaned_runs  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
_KINDS = {"cid": re.compile(r"\(cid:\d+\)"), "ligature": re.compile("[\ufb00-\ufb06]"),
          "soft hyphen": re.compile("\xad"), "mojibake/control": re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"),
          "line-end hyphen": re.compile(r"[^\W\d_]- [^\W\d_]")}
_BREAK = re.compile(r"(?<![^\W\d_])([^\W\d_]+)- ([^\W\d_]+)(?![^\W\d_])")
_WORDS = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def main() -> None:
    if not CORPUS.exists():
        print(f"corpus not found: {CORPUS}")
        return
    records = [json.loads(line) for line in CORPUS.open(encoding="utf-8")]
    plains = ["".join(r.text for r in uncleaned_runs(rec["abstract"])) for rec in records]
    kinds: collections.Counter[str] = collections.Counter()
    examples: dict[str, tuple[str, str]] = {}
    changed = titles = 0
    for plain, rec in zip(plains, records, strict=True):
        edits = clean_edits(plain)
        titles += clean_text(rec["title"]) != rec["title"]
        if not edits:
            continue
        changed += 1
        a, b, _ = edits[0]
        for kind, pattern in _KINDS.items():
            if pattern.search(plain):
                kinds[kind] += 1
                if kind not in examples and pattern.search(plain, max(0, a - 2), b + 2):
                    window = plain[max(0, a - 30):b + 30]
                    examples[kind] = (window, apply_edits(window, clean_edits(window)))
    print(f"{len(records):,} abstracts: {changed:,} cleaned; {titles:,} titles cleaned")
    for kind, n in kinds.most_common():
        print(f"  {kind:17} {n:6,} abstracts")
    for kind, (before, after) in examples.items():
        print(f"  e.g. {kind}:\n    before: {before!r}\n    after:  {after!r}")
    sample = [rec["abstract"] for rec in records[:8000]]
    for _ in range(2):
        t0 = time.perf_counter()
        for raw in sample:
            uncleaned_runs(raw)
        t1 = time.perf_counter()
        for raw in sample:
            parse_runs.__wrapped__(raw)
        t2 = time.perf_counter()
    ref, cost = (t1 - t0) / len(sample) * 1e6, (t2 - t1) / len(sample) * 1e6
    print(f"runs without cleaning {ref:.0f} µs/abstract, with cleaning {cost:.0f} µs ({cost / ref:.2f}x)")
    _hyphen_agreement(plains)


def _hyphen_agreement(plains: list[str]) -> None:
    vocab: collections.Counter[str] = collections.Counter()
    for plain in plains:
        vocab.update(w.lower() for w in _WORDS.findall(_BREAK.sub(" ", plain)))
    ok = bad = unknown = 0
    for plain in plains:
        for m in _BREAK.finditer(plain):
            left, right = m.groups()
            if right.lower() in _SUSPENDED or right[0].isupper() or "(cid" in plain[m.start() - 6:m.end()]:
                continue
            joined, hyphened = vocab[(left + right).lower()], vocab[f"{left}-{right}".lower()]
            if joined == hyphened == 0:
                unknown += 1
                continue
            want = left + right if joined > hyphened else f"{left}-{right}"
            got = clean_text(m.group())
            ok += got == want
            bad += got != want
    print(f"line-end hyphens: {ok:,} agree with the corpus' own spelling, {bad:,} don't "
          f"({ok / max(ok + bad, 1):.1%}); {unknown:,} words the corpus has nowhere else")


if __name__ == "__main__":
    main()
