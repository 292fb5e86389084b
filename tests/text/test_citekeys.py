"""reader.text.citekeys: Better BibTeX-style keys, ASCII folding, suffixes, validation."""

from __future__ import annotations

from reader.text.citekeys import base_key, fold_ascii, key_problem, sanitize, unique_key


def test_author_year_and_first_significant_title_word() -> None:
    assert base_key(["Ashish Vaswani", "Noam Shazeer"], 2017, "Attention Is All You Need") == "vaswani2017attention"
    assert base_key(["Laurens van der Maaten"], 2008, "Visualizing Data using t-SNE") == "maaten2008visualizing"
    assert base_key(["Maaten, Laurens van der"], 2008, "On the $t$-SNE") == "maaten2008sne"
    assert base_key(["Martin Luther King Jr"], 1963, "A dream") == "king1963dream"


def test_names_fold_to_ascii() -> None:
    assert fold_ascii("Müller Łukasz Ørsted straße") == "Muller Lukasz Orsted strasse"
    assert base_key(["José Gómez-Ruiz"], 2020, "Élan vital") == "gomezruiz2020elan"


def test_papers_without_authors_get_method_or_title_keys() -> None:
    assert base_key([], 2025, "PRT: portable reward tuning", "PRT") == "prt2025"
    assert base_key([], 2025, "Sparse attention for everyone") == "sparse2025attention"
    assert base_key([], None, "") == "paper"
    assert base_key(["山田太郎"], 2020, "3D shapes") == "paper3d2020shapes"  # a key starts with a letter


def test_clashes_get_letter_suffixes_ignoring_case() -> None:
    taken = {"smith2020deep"}
    assert [unique_key("Smith2020deep", taken) for _ in range(3)] == [
        "Smith2020deepa", "Smith2020deepb", "Smith2020deepc"]
    many: set[str] = set()
    keys = [unique_key("k", many) for _ in range(30)]
    assert keys[:2] == ["k", "ka"] and keys[27] == "kaa" and len(set(keys)) == 30


def test_key_validation_and_sanitising() -> None:
    assert key_problem("vaswani2017attention") is None
    assert key_problem("doi:10.1/x_y-z.w+v") is None
    assert "' '" in (key_problem("a b") or "")
    assert "'{'" in (key_problem("a{b") or "")
    assert "empty" in (key_problem("") or "")
    assert "too long" in (key_problem("k" * 65) or "")
    assert sanitize("Müller:2020{x}, y") == "Muller:2020xy"
