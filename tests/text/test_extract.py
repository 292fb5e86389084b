"""Tests for method detection, title derivation and link extraction (reader.text.extract)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from reader.bundled import seed_files
from reader.text import abstract_plain, derive_title, detect_method, extract_code_links
from reader.text.extract import extract_links, sentences

PAPERS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "ml_conference_corpus" \
    / "papers.jsonl"


def seed_abstracts() -> list[str]:
    out: list[str] = []
    for f in seed_files():
        blocks = [b.strip() for b in f.read_text(encoding="utf-8").split("\n\n") if b.strip()]
        out += blocks[1:]
    return out


# Checked by hand against every bundled abstract: the name each one introduces, or None when
# it introduces no named method/system/dataset (e.g. "a process we call *thermalization*").
SEED_METHODS = [
    ('In this paper, we introduce a geom', None),
    ('Neural network minima are often co', None),
    ('In recent years, masked diffusion ', None),
    ('Video understanding is a complex c', 'MoMa'),
    ('Multimodal large language models (', 'MODA'),
    ('We introduce the task of Audible A', 'TA²Net'),
    ('Keeping large language models fact', 'WikiBigEdit'),
    ('In-context learning based on atten', None),
    ('An efficient attention implementat', 'SpargeAttn'),
    ('Continual learning (CL) is crucial', None),
    ('Diffusion Transformers (DiTs) have', 'AsymRnR'),
    ('Deep tabular models have demonstra', None),
    ('Multimodal representation learning', None),
    ('Deep neural networks are often see', None),
    ('Recent advancements in large langu', None),
    ('Human vision is dynamic and contin', 'F-16'),
    ('We study the computational model w', None),
    ('Recently, recurrent models such as', None),
    ('Recent work reported that simple B', 'MSR'),
    ('An efficient attention implementat', 'SpargeAttn'),
    ('Autoregressive surrogate models (o', None),
    ('Large Language Models (LLMs) are d', 'MEAP'),
    ('Existing offline hierarchical rein', 'GAS'),
    ('We study fair clustering problems ', None),
    ('Mixture of Experts (MoE) architect', None),
    ('Federated ensemble distillation ad', None),
    ('While state-of-the-art LLMs have d', 'PENCIL'),
    ('Chain-of-Thought (CoT) prompting h', 'MVoT'),
    ('Recent Vision Mamba (Vim) models e', 'SLWS'),
    ('Endowing large language models (LL', None),
    ('Fast and accurate generation of mo', None),
    ('Generating high-quality 3D content', 'Flex3D'),
    ('Interactive 3D segmentation has em', 'NPISeg3D'),
    ('Various data modalities are common', None),
    ('Unsupervised anomaly detection (UA', 'CostFilter-AD'),
    ('We propose a novel method, namely ', 'GS-PowerOpt'),
    ('*Diffusion-based purification* (DB', 'SSNI'),
    ('Most existing 3D Gaussian Splattin', 'HybridGS'),
    ('Self-attention performs well in lo', 'TTT'),
    ('A widespread strategy to obtain a ', None),
    ('CLIP has been a celebrated method ', 'CLOC'),
    ('We propose MUltiway Dynamic Dense ', 'MUDD'),
    ('Mathematical diagrams have a disti', None),
    ('Knowledge Graph Foundation Models ', None),
    ('Loss reweighting has shown signifi', 'SatImp'),
    ('Long-tailed learning has garnered ', None),
    ('Foundation models are premised on ', None),
    ('Language model (LLM) post-training', 'WildChat-50M'),
    ('Large Language Models (LLMs) matri', 'WeLore'),
    ('Sparse dictionary learning (DL) ha', 'ICFL'),
    ('Contrastive Language-Image Pre-tra', 'FG-CLIP'),
    ('In this work, we take the first ex', 'QMamba'),
    ('Supervised fine-tuning (SFT) and r', 'GeneralPoints'),
    ('We introduce Orthus, a unified mul', 'Orthus'),
    ('Selecting a layer normalization (L', 'Peri-LN'),
    ('Characterizing users and items thr', None),
    ('While foundation models have been ', 'PRT'),

]


def test_seed_method_table_covers_every_seed() -> None:
    seeds = seed_abstracts()
    assert len(seeds) == len(SEED_METHODS) == 57
    for raw, (prefix, expected) in zip(seeds, SEED_METHODS, strict=True):
        assert raw.startswith(prefix)
        assert detect_method(raw) == expected, prefix


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("In this paper, we propose SpargeAttn, a universal sparse attention.", "SpargeAttn"),
        ("We propose Asymmetric Reduction and Restoration (**AsymRnR**), a method.", "AsymRnR"),
        ("We propose a novel attention mechanism, termed MOdular Duplex Attention (MODA).",
         "MODA"),
        ("We introduce Orthus, a unified multimodal model.", "Orthus"),
        ("Our approach, dubbed FooNet, works.", "FooNet"),
        ("We present a framework named Bar3D that scales.", "Bar3D"),
        ("Here, DeepThing, a novel framework for graphs, is shown.", "DeepThing"),
        ("We call this approach CostFilter-AD.", "CostFilter-AD"),
        ("a fine-tuning principle (which we call portable reward tuning; PRT) that", "PRT"),
        ("We propose a novel method for graphs.", None),
        ("We propose a new approach to exploring minima.", None),
        ("We introduce the task of audible action localization.", None),
        ("Large language models (LLMs) are good. We propose LLM agents for math.", None),
        ("We propose a simple algorithm based on Singular Value Decomposition (SVD).", None),
        ("An annealing strategy, called KL annealing, is proposed.", None),
        ("a process we call *thermalization*.", None),
        ("", None),
    ],
)
def test_detect_method_patterns(text: str, expected: str | None) -> None:
    assert detect_method(text) == expected


def test_titles_for_every_seed_are_short_clean_and_capitalised() -> None:
    titles = []
    for raw in seed_abstracts():
        title = derive_title(raw, detect_method(raw))
        titles.append(title)
        assert 10 <= len(title) <= 100, title
        assert title[0].isupper() or title[0].isdigit(), title
        assert title[-1] not in ".,;:!?-(", title
        assert "$" not in title and "\\" not in title and "*" not in title, title
    assert len(set(titles)) >= 55  # two seeds are the same abstract


def test_title_examples() -> None:
    seeds = seed_abstracts()
    sparge = next(r for r in seeds if r.startswith("An efficient attention"))
    assert derive_title(sparge, "SpargeAttn") == \
        "SpargeAttn: universal sparse and quantized attention for any model"
    asym = next(r for r in seeds if r.startswith("Diffusion Transformers"))
    assert derive_title(asym) == "AsymRnR: Asymmetric Reduction and Restoration"
    geo = next(r for r in seeds if r.startswith("In this paper, we introduce a geom"))
    assert derive_title(geo) == "Geometric framework to analyze memorization in diffusion models"


def test_title_without_method_uses_opening_sentence_trimmed_at_word() -> None:
    raw = ("Neural networks trained with stochastic gradient descent generalise surprisingly well "
           "even when heavily overparameterised and interpolating noisy labels. More text.")
    title = derive_title(raw)
    assert len(title) <= 100
    assert raw.startswith(title)
    assert not title.endswith(("and", "with", "the"))


def test_title_uses_given_method_name() -> None:
    raw = "Graphs are everywhere. Our system GraphX, a fast engine for graphs, is presented."
    assert derive_title(raw, "GraphX") == "GraphX: fast engine for graphs"


@pytest.mark.parametrize("bad", ["", " ", "$", "\\", "{", "We propose", "we propose X (",
                                 "(((", "called", "a" * 5000, "We propose $\\frac{"])
def test_extractors_never_raise(bad: str) -> None:
    assert detect_method(bad) is None or isinstance(detect_method(bad), str)
    assert len(derive_title(bad)) <= 100
    assert isinstance(extract_code_links(bad), list)


def test_sentences_do_not_split_abbreviations() -> None:
    text = "We use e.g. Adam and Smith et al. Then it works. A. Turing agreed. Done."
    assert sentences(text) == ["We use e.g. Adam and Smith et al. Then it works.",
                               "A. Turing agreed.", "Done."]


# --- links -----------------------------------------------------------------------------------

def test_code_links_forms_and_punctuation() -> None:
    text = ("Code: https://github.com/a/b. Code and data at [https://x.org/d](https://x.org/d), see "
            "(https://gitlab.com/c/d); also github.com/AI4Math-ShanZhang/SVE-Math. "
            "Project page: \\url{https://p.github.io/site/}. Weights: huggingface.co/org/model, "
            "and https://github.com/a/b again. Wiki https://en.wikipedia.org/wiki/A_(b) is cited.")
    assert extract_code_links(text) == [
        "https://github.com/a/b",
        "https://x.org/d",
        "https://gitlab.com/c/d",
        "https://github.com/AI4Math-ShanZhang/SVE-Math",
        "https://p.github.io/site/",
        "https://huggingface.co/org/model",
    ]
    assert "https://en.wikipedia.org/wiki/A_(b)" in extract_links(text)


def test_code_links_need_code_host_or_code_sentence() -> None:
    text = ("Our benchmark follows https://example.org/paper. "
            "The implementation is available at https://example.com/tool.")
    assert extract_code_links(text) == ["https://example.com/tool"]
    assert extract_links(text) == ["https://example.org/paper", "https://example.com/tool"]


def test_code_links_in_seeds() -> None:
    found = {u for raw in seed_abstracts() for u in extract_code_links(raw)}
    assert "https://github.com/bytedance/F-16" in found
    assert "https://github.com/AI4Math-ShanZhang/SVE-Math" in found
    assert "https://github.com/Qi-Yangsjtu/HybridGS" in found
    assert all(not u.endswith((".", ",", ")", ";", "]", "}")) for u in found)
    assert len(found) == 12


# --- speed and corpus ------------------------------------------------------------------------

@pytest.mark.corpus
def test_corpus_sample_extracts_cleanly() -> None:
    if not PAPERS.exists():
        pytest.skip("shared corpus not available")
    with PAPERS.open(encoding="utf-8") as fh:
        abstracts = [json.loads(line)["abstract"] for line in fh]
    sample = random.Random(11).sample(abstracts, 2000)
    # Its speed (target 5,000/s idle) is measured in benchmarks/bench_core.py, not asserted here.
    for raw in sample:
        assert abstract_plain(raw) and extract_code_links(raw) is not None
    found = 0
    for raw in sample:
        method = detect_method(raw)
        if method:
            found += 1
            assert method.lower() not in {"a", "the", "novel", "we", "our", "this"}
            assert any(c.isupper() or c.isdigit() for c in method), method
        title = derive_title(raw, method)
        assert len(title) <= 100 and "\\" not in title
    assert 0.1 < found / len(sample) < 0.6
