"""Shared pieces of the search tests: five sample papers, a document builder, hit ids."""

from __future__ import annotations

from pathlib import Path

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora"


def doc(n: int, title: str, abstract: str, **kw) -> dict:
    d = {
        "id": f"{n:016x}", "title": title, "abstract": abstract, "method": "", "venue": "",
        "year": None, "authors": "", "tags": [], "note": "", "comments": "",
        "starred": False, "read": False, "added": float(n),
    }
    d.update(kw)
    return d


DOCS = [
    doc(1, "SpargeAttn: Accurate Sparse Attention Accelerating Any Model Inference",
        "An efficient attention implementation is essential for large models due to its "
        "quadratic time complexity. Fortunately, attention commonly exhibits sparsity: many "
        "values in the attention map are near zero. We propose a universal sparse and "
        "quantized attention for any model.",
        method="SpargeAttn", venue="ICML", year=2025, authors="Jintao Zhang; Jia Wei",
        tags=["Deep Learning", "Efficient-Inference"]),
    doc(2, "Dense retrieval with transformers",
        "We train dense retrievers. Sparse lexical baselines are compared; the attention "
        "layers of the transformer are analysed.",
        venue="NeurIPS", year=2020, authors="José Müller; Ann Smith", tags=["RL"]),
    doc(3, "Loss landscapes and mode connectivity",
        "We study mode connectivity of neural network minima found by stochastic gradient "
        "descent <and> show paths of low loss between modes.",
        venue="ICLR", year=2018, authors="Timur Garipov"),
    doc(4, "Connectivity of graph modes",
        "Graph connectivity is measured per mode in our clustering analysis of sparse graphs.",
        venue="KDD", year=2016, authors="Wei Chen"),
    doc(5, "Policy gradients for robot control",
        "Reinforcement learning with policy gradients controls a simulated robot arm.",
        venue="CoRL", year=2019, authors="Ann Lee", tags=["rl", "robotics"]),
]


def ids(results) -> list[str]:
    return [h.id for h in results.hits]


def num(i: int) -> str:
    return f"{i:016x}"

