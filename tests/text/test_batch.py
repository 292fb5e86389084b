"""Batch analysis of abstracts gives the same answers in worker processes as in-process."""

from reader.text import abstract_plain, derive_title, detect_method, extract_code_links
from reader.text.batch import analyze, analyze_many

ABSTRACTS = [
    "We propose SpargeAttn, a universal sparse attention. Code: github.com/thu-ml/SpargeAttn.",
    "Accuracy rises from $<7$\\% to $\\approx 90$\\% with **adaptive** inference.",
    "In this paper we study the geometry of minima in neural networks.",
] * 5


def test_analyze_matches_the_single_functions():
    a = ABSTRACTS[0]
    plain, method, title, code = analyze(a)
    assert plain == abstract_plain(a) and method == detect_method(a) == "SpargeAttn"
    assert title == derive_title(a, "SpargeAttn") and code == extract_code_links(a)


def test_parallel_equals_serial(monkeypatch):
    import reader.text.batch as batch

    serial = analyze_many(ABSTRACTS, processes=1)
    monkeypatch.setattr(batch, "PARALLEL_MIN", 1)
    monkeypatch.setattr(batch, "_CHUNK", 4)
    seen = []
    parallel = analyze_many(ABSTRACTS, processes=2, progress=lambda d, t: seen.append((d, t)))
    assert parallel == serial
    assert seen[-1] == (len(ABSTRACTS), len(ABSTRACTS))
