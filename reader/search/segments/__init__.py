"""Whoosh's private segment format, behind one door: raw lexicon and postings reads (rawread,
internals), the bulk segment writer (writer), the worker-process builder (parallel), the guard that
checks them against the installed Whoosh (fastpath) and segment names (ids). Only reader.search
imports these modules."""
