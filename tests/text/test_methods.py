"""Method guesses (reader.text.extract): no organisation, venue or common word; titles name theirs.

The title fixtures are short "Head: subtitle" titles by the rule bench_methods.py uses for its
ground truth (a coined head: CamelCase, ALL-CAPS or letters with digits), plus heads that the
rule's shape admits but that are not method names (organisations, venues, abbreviations)."""

from __future__ import annotations

import pytest

from reader.library import Library
from reader.text.extract import detect_method, plausible_method, title_method


@pytest.mark.parametrize(("title", "method"), [
    ("Flash3D: Feed-Forward Scene Reconstruction", "Flash3D"),
    ("GMN: Generative Multi-modal Network", "GMN"),
    ("PaLM-E: An Embodied Language Model", "PaLM-E"),
    ("SILC-EFSA: Self-aware In-context Learning", "SILC-EFSA"),
    ("GPT-4: Technical Report", "GPT-4"),
    ("ACM: Attend and Compare", None),
    ("IEEE: Standards for Learning", None),
    ("AIR: Annotations and Responses", None),
    ("DIY: Home-made Sensors", None),
    ("FFN: Feed-Forward Networks Revisited", None),
    ("CE: Contrastive Estimation", None),
    ("NeurIPS: A Retrospective", None),
    ("Deep Learning: A Survey", None),
    ("Learning to Fly: Drones", None),
    ("Plain titles name no method", None),
])
def test_title_method(title, method):
    assert title_method(title) == method


@pytest.mark.parametrize("name", ["ACM", "IEEE", "AIR", "BU", "CE", "DIY", "FFN", "FFNs", "CVPR",
                                  "NASA", "GPUs", "CLMs", "MLP"])
def test_not_method_names(name):
    assert not plausible_method(name)


@pytest.mark.parametrize("name", ["Flash3D", "GMN", "SSAT", "HybridGS", "FOAM", "LoRA"])
def test_method_names(name):
    assert plausible_method(name)


@pytest.mark.parametrize(("abstract", "method"), [
    ("We propose Approx Composite Minimization (ACM), a new framework for fast updates.", None),
    ("We introduce Contrastive Estimation (CE), which encodes negative samples well.", None),
    ("We introduce Feed Forward Networks (FFN) as a class of models to study here.", None),
    ("In this paper, we propose FabricFlowNet, a cloth manipulation policy.", "FabricFlowNet"),
    ("We present Scalable Sparse Attention Transformer (SSAT) for makeup transfer.", "SSAT"),
])
def test_abstract_guess_rejects_organisations_and_common_abbreviations(abstract, method):
    assert detect_method(abstract) == method


def test_import_takes_the_method_a_title_names(tmp_path):
    import json

    src = tmp_path / "p.jsonl"
    rows = [{"title": "Flash3D: Feed-Forward Scene Reconstruction",
             "abstract": "We build a fast reconstructor from one image, trained in one day, and test it well."},
            {"title": "Learning by comparison",
             "abstract": "In this paper, we present Attend-and-Compare Module (ACM) for capturing differences."}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with Library.open(tmp_path / "lib", seed_if_empty=False) as lib:
        [s] = lib.import_files([src], index=False)
        methods = {p.title: p.method for p in (lib.paper(i) for i in s.new_ids) if p}
    assert methods == {"Flash3D: Feed-Forward Scene Reconstruction": "Flash3D", "Learning by comparison": ""}


@pytest.mark.parametrize(("abstract", "method"), [
    # Someone else's work, cited: "recently proposed", "previously introduced".
    ("We study stereo confidence. Learning sets were drawn from the recently introduced "
     "StereoBench dataset, which holds real street scenes.", None),
    ("Building upon the previously proposed PatchMatch stereo, we study reconstruction.", None),
    ("Recent literature proposes AlignScore which uses a unified alignment model.", None),
    # Used, not introduced: after "based on (the)", or not spelt out by the words before it.
    ("We propose to model the subjects using a latent model based on the Indian Buffet "
     "Process (IBP).", None),
    # A title-cased compound opening a capitalised phrase is the phrase's first word.
    ("In this paper, we propose Semi-Supervised Generative Adversarial Networks for "
     "architecture search.", None),
    ("In this paper, we propose a new stochastic optimization algorithm for Bayesian "
     "inference based on multilevel Monte Carlo (MLMC) methods.", None),
    # A coined name right at the cue wins over an acronym cited after it.
    ("The proposed family of descriptors, called Patch-CKN, adapt the recently introduced "
     "Convolutional Kernel Network (CKN) to image patches.", "Patch-CKN"),
    # Spelt out, also by lowercase words before the capitals, or with digits: introduced.
    ("We propose a novel method, called probabilistic relational PCA (PRPCA), for "
     "relational data.", "PRPCA"),
    ("We propose Nested LSTMs (NLSTM), which nest memories.", "NLSTM"),
    ("We propose Learning to Explain (L2E), an approach to fast stable explanations.", "L2E"),
    ("We propose a Dense Graph Propagation (DGP) module with direct links.", "DGP"),
])
def test_method_is_introduced_not_cited(abstract, method):
    assert detect_method(abstract) == method
