"""Precision and recall of the Method guess on real titles (prints figures).

Ground truth comes from the titles, by a rule, on a held-out half of the corpus (papers whose
id hashes odd; the stop lists were written from the even half and general knowledge):
- A: titles "Head: subtitle" whose head is one coined token (CamelCase, ALL-CAPS or letters
  with digits, 3-30 chars, e.g. "Flash3D: ..."): the paper's method is the head. The abstract
  alone is guessed (detect_method) and must give the head (case-insensitive) to count;
  the title rule (title_method) is measured on the same papers.
- B: titles without a colon: a guess counts as right when the title names it, either as a
  word or by its capitals, in order, among the title words' initials (3+ capitals: "APFNet"
  for "Attribute-Based Progressive Fusion Network ..."). A guess the title doesn't name may
  still be right (and a loose initials match wrong), so B is a lower bound. Guesses the title
  doesn't name are then estimated from a hand-checked random sample (method_labels.json:
  100 of them, each marked right when the paper introduces the name for its own method,
  model, dataset, metric or problem): precision = (named + unnamed x the sample's share
  right) / guessed, over the labels whose guess is still the same.
`--show N` prints N wrong guesses of each set.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reader.text.extract import detect_method, title_method  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpora" / "ml_conference_corpus" / "papers.jsonl"
LABELS = Path(__file__).with_name("method_labels.json")
_HEAD = re.compile(r"^([A-Za-z0-9][\w+.-]{2,29}):\s+\S")
_WORD = re.compile(r"[\w+-]+")


def _coined(head: str) -> bool:
    return any(c.isupper() for c in head[1:]) or (head[0].isupper() and any(c.isdigit() for c in head))


def _held_out(rec: dict) -> bool:
    return hashlib.sha1(rec["id"].encode()).digest()[0] % 2 == 1


def _named_by(title: str, name: str) -> bool:
    """The title holds the name as a word, or its capitals (3+) in order as word initials."""
    if name.lower() in (w.lower() for w in _WORD.findall(title)):
        return True
    caps = [c.lower() for c in name if c.isupper()]
    initials = iter(w[0].lower() for w in re.split(r"[\s-]+", title) if w)
    return len(caps) >= 3 and all(c in initials for c in caps)


def _report(label: str, right: int, guessed: int, total: int) -> None:
    print(f"{label}: {total:,} papers, {guessed:,} guessed, {right:,} right: "
          f"precision {right / max(guessed, 1):.1%}, recall {right / max(total, 1):.1%}")


def _labelled_estimate(set_b: list[dict], named: int, guessed: int) -> None:
    """Set B's precision with the unnamed guesses judged by the hand-checked sample."""
    labels = {d["id"]: d for d in json.loads(LABELS.read_text("utf-8"))["labels"]}
    current = {r["id"]: title_method(r["title"]) or detect_method(r["abstract"])
               for r in set_b if r["id"] in labels}
    same = [d for pid, d in labels.items() if current.get(pid) == d["guess"]]
    if not same:
        return
    share = sum(d["right"] for d in same) / len(same)
    est = (named + share * (guessed - named)) / max(guessed, 1)
    print(f"B  with the hand-checked sample: {sum(d['right'] for d in same)} of {len(same)} "
          f"unnamed guesses right ({len(labels) - len(same)} labels no longer apply): precision "
          f"~{est:.1%}, recall ~{named / max(len(set_b), 1) + share * (guessed - named) / max(len(set_b), 1):.1%}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="papers per set (0 = all)")
    args = ap.parse_args()
    if not CORPUS.exists():
        print(f"corpus not found: {CORPUS}")
        return
    recs = [r for r in map(json.loads, CORPUS.open(encoding="utf-8")) if _held_out(r)]
    set_a = [(r, m.group(1)) for r in recs if (m := _HEAD.match(r["title"])) and _coined(m.group(1))]
    set_b = [r for r in recs if ":" not in r["title"]]
    if args.limit:
        set_a, set_b = set_a[:args.limit], set_b[:args.limit]
    wrong_a, right, guessed, t_right, t_guessed = [], 0, 0, 0, 0
    for rec, head in set_a:
        guess = detect_method(rec["abstract"])
        if guess:
            guessed += 1
            right += guess.lower() == head.lower()
            if guess.lower() != head.lower():
                wrong_a.append((guess, rec["title"]))
        t = title_method(rec["title"])
        t_guessed += t is not None
        t_right += t is not None and t.lower() == head.lower()
    _report("A  abstract guess vs 'Head:' titles", right, guessed, len(set_a))
    _report("A  title rule vs 'Head:' titles", t_right, t_guessed, len(set_a))
    both = sum(1 for rec, head in set_a if (title_method(rec["title"]) or detect_method(rec["abstract"]) or "").lower() == head.lower())
    both_guessed = sum(1 for rec, _ in set_a if title_method(rec["title"]) or detect_method(rec["abstract"]))
    _report("A  Reader's guess (title rule, else abstract)", both, both_guessed, len(set_a))
    wrong_b, right, guessed = [], 0, 0
    for rec in set_b:
        guess = title_method(rec["title"]) or detect_method(rec["abstract"])
        if guess:
            guessed += 1
            ok = _named_by(rec["title"], guess)
            right += ok
            if not ok:
                wrong_b.append((guess, rec["title"]))
    _report("B  guess named by a colon-less title (lower bound)", right, guessed, len(set_b))
    _labelled_estimate(set_b, right, guessed)
    for label, wrong in (("A", wrong_a), ("B", wrong_b)):
        for guess, title in wrong[:args.show]:
            print(f"  {label} wrong: {guess!r:24} {title[:90]}")


if __name__ == "__main__":
    main()
