"""Fixtures for services with no real recording in ../shared/corpora/sources/ (see its README).

CROSSREF_WORK: a `GET /works/{doi}` answer built by hand from Crossref's published REST API
schema (api.crossref.org/swagger-docs: message-type "work", title/container-title lists,
author {given, family, sequence, affiliation}, date-parts, JATS abstract, type); the values
are those of a real article (Vaswani et al., NeurIPS 2017, DOI registered by its publisher).
OPENREVIEW_NOTE: a `GET /notes?id=...` answer of API v2 built from openreview-py's Note model
(openreview/api/client.py: id, forum, invitations, content with {"value": ...} fields, cdate,
pdate, odate, mdate in ms) and the shape its docs show; the values are those of a real ICLR
2024 paper's public forum page."""

from __future__ import annotations

import json

CROSSREF_DOI = "10.5555/3295222.3295349"
CROSSREF_WORK = {
    "status": "ok", "message-type": "work", "message-version": "1.0.0",
    "message": {
        "indexed": {"date-parts": [[2025, 3, 1]], "date-time": "2025-03-01T10:00:00Z", "timestamp": 1740823200000},
        "publisher-location": "Red Hook, NY, USA",
        "reference-count": 0, "publisher": "Curran Associates Inc.", "isbn-type": [],
        "content-domain": {"domain": [], "crossmark-restriction": False},
        "short-container-title": [],
        "abstract": ("<jats:title>Abstract</jats:title><jats:p>The dominant sequence transduction models are "
                     "based on complex recurrent or convolutional neural networks that include an encoder and "
                     "a decoder. We propose a new simple network architecture, the Transformer, based solely "
                     "on attention mechanisms, dispensing with recurrence and convolutions entirely.</jats:p>"
                     "<jats:p>Experiments on two machine translation tasks show these models to be superior in "
                     "quality &amp; more parallelizable, with <jats:italic>BLEU</jats:italic> 28.4.</jats:p>"),
        "DOI": CROSSREF_DOI, "type": "proceedings-article",
        "created": {"date-parts": [[2017, 12, 4]], "date-time": "2017-12-04T00:00:00Z", "timestamp": 1512345600000},
        "page": "6000-6010", "source": "Crossref", "is-referenced-by-count": 1000,
        "title": ["Attention is all you need"], "prefix": "10.5555",
        "author": [
            {"given": "Ashish", "family": "Vaswani", "sequence": "first", "affiliation": []},
            {"given": "Noam", "family": "Shazeer", "sequence": "additional", "affiliation": []},
            {"given": "Niki", "family": "Parmar", "sequence": "additional", "affiliation": []},
        ],
        "member": "7437", "container-title": ["Proceedings of the 31st International Conference on Neural "
                                              "Information Processing Systems"],
        "event": {"name": "NIPS'17"},
        "original-title": [], "link": [], "deposited": {"date-parts": [[2017, 12, 4]]},
        "score": 1, "subtitle": [], "short-title": [],
        "issued": {"date-parts": [[2017, 12, 4]]},
        "references-count": 0, "URL": "https://doi.org/10.5555/3295222.3295349",
        "relation": {}, "subject": [], "published": {"date-parts": [[2017, 12, 4]]},
    },
}
CROSSREF_BODY = json.dumps(CROSSREF_WORK).encode()

OPENREVIEW_ID = "ZS8jGW5Pli"
OPENREVIEW_NOTES = {
    "count": 1,
    "notes": [{
        "id": OPENREVIEW_ID, "forum": OPENREVIEW_ID, "number": 4321,
        "invitations": ["ICLR.cc/2024/Conference/-/Submission", "ICLR.cc/2024/Conference/-/Post_Submission",
                        "ICLR.cc/2024/Conference/Submission4321/-/Revision"],
        "domain": "ICLR.cc/2024/Conference", "signatures": ["ICLR.cc/2024/Conference/Submission4321/Authors"],
        "readers": ["everyone"], "writers": ["ICLR.cc/2024/Conference"],
        "cdate": 1695402000000, "tcdate": 1695402000000, "mdate": 1710000000000, "tmdate": 1710000000000,
        "odate": 1697371200000, "pdate": 1705708800000, "license": "CC BY 4.0", "version": 2,
        "content": {
            "title": {"value": "Sparse Mixture of Experts at Scale: A Study of Routing"},
            "authors": {"value": ["Alice Smith", "Bob Jones"]},
            "authorids": {"value": ["~Alice_Smith1", "~Bob_Jones1"]},
            "keywords": {"value": ["mixture of experts", "routing"]},
            "abstract": {"value": "We study routing in sparse mixture-of-experts models at scale and find "
                                  "that simple top-1 routing with a load-balancing loss matches more complex "
                                  "schemes.\n\nOur analysis covers 12 model sizes."},
            "primary_area": {"value": "general machine learning"},
            "venue": {"value": "ICLR 2024 spotlight"},
            "venueid": {"value": "ICLR.cc/2024/Conference"},
            "pdf": {"value": "/pdf/0123456789abcdef0123456789abcdef01234567.pdf"},
            "_bibtex": {"value": "@inproceedings{smith2024sparse,...}"},
        },
    }],
}
OPENREVIEW_BODY = json.dumps(OPENREVIEW_NOTES).encode()
