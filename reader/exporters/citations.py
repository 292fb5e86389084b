"""What the citation exports (BibTeX, CSL-JSON, RIS) share: a paper's DOI, link and entry type."""

from __future__ import annotations

import re
from urllib.parse import unquote

from ..models import EntryType, Paper

_DOI_LINK = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\S+)$", re.IGNORECASE)
# A venue name that says what it is; a paper without a stored entry type is typed by it.
_PROCEEDINGS = re.compile(
    r"proceedings|conference|workshop|symposium|\bconf\b|\b(?:neurips|nips|icml|iclr|cvpr|iccv|eccv|"
    r"aaai|ijcai|acl|emnlp|naacl|coling|aistats|colt|uai|corl|colm|kdd|sigir|miccai|wacv|www)\b",
    re.IGNORECASE)
_JOURNAL = re.compile(r"journal|transactions|letters|review|magazine|\b(?:jmlr|tmlr|pami)\b",
                      re.IGNORECASE)


def doi_of(paper: Paper) -> str:
    """The paper's DOI ('10.1234/x') from its doi.org link, or ''."""
    for link in paper.links:
        match = _DOI_LINK.match(link.strip())
        if match:
            return unquote(match.group(1))
    return ""


def url_of(paper: Paper) -> str:
    """The paper's main link that is not its DOI's (the DOI has its own field), or ''."""
    return next((link for link in paper.links if not _DOI_LINK.match(link.strip())), "")


def entry_type_of(paper: Paper) -> EntryType:
    """The stored type, else one read from the venue's name; misc when nothing says."""
    if paper.entry_type:
        return EntryType.from_bibtex(paper.entry_type)
    if _JOURNAL.search(paper.venue):
        return EntryType.ARTICLE
    if _PROCEEDINGS.search(paper.venue):
        return EntryType.INPROCEEDINGS
    return EntryType.MISC
