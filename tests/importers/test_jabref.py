"""JabRef groups (issue 18 item 3): the groups inside a .bib file become its collections."""

from __future__ import annotations

import pytest

from reader.importers import parse_file
from reader.importers.jabref import parse_groups

from .helpers import ABSTRACT, CORPORA, corpus, write

V3 = ("jabref-meta: groupstree:\n0 AllEntriesGroup:;\n1 ExplicitGroup:Optics\\;0\\;a1\\;b\n2\\;;\n"
      "2 ExplicitGroup:Lenses\\;0\\;a1\\;;\n1 KeywordGroup:Deep\\;0\\;keywords\\;deep\\;0\\;0\\;;\n")
V5 = ("jabref-meta: grouping:\n0 AllEntriesGroup:;\n1 StaticGroup:Reading\\;0\\;1\\;0x8a8a8aff\\;\\;\\;;\n"
      "2 StaticGroup:Later\\;0\\;1\\;\\;\\;\\;;\n")


def test_explicit_keyword_and_nested_groups_with_wrapped_lines():
    tree = parse_groups(V3)
    assert tree.groups_of("a1", {}) == ["Optics", "Optics / Lenses"]
    assert tree.groups_of("b2", {}) == ["Optics"]  # "b\n2": JabRef wrapped the key mid-word
    assert tree.groups_of("c", {"keywords": "Deep learning, vision"}) == ["Deep"]
    assert tree.groups_of("c", {}) == []


def test_static_groups_take_members_from_the_groups_field(tmp_path):
    text = (f"@article{{x, title={{T}}, abstract={{{ABSTRACT}}}, groups={{Later, Reading}}}}\n"
            f"@article{{y, title={{U}}}}\n@comment{{{V5}}}\n")
    x, y = parse_file(write(tmp_path, "lib.bib", text)).records
    assert x.groups == ["Reading / Later", "Reading"] and y.groups == []


@pytest.mark.corpus
def test_real_jabref_library_groups():
    result = parse_file(corpus(CORPORA / "bibtex" / "bbt_jabref_user_library_issue97.bib"))
    names = {g for r in result.records for g in r.groups}
    assert names == {"Cu2O", "CuO"}
    assert sum("Cu2O" in r.groups for r in result.records) > 800
