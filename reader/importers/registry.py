"""Every import format in detection order: detection, the file dialog, CLI help and messages read it.

To add a format: write a module that declares an `Importer`, and add it to IMPORTERS below.
"""

from __future__ import annotations

from pathlib import Path

from reader.models import ImportFormat

from . import arxiv, bibtex, csljson, csvfmt, jsonfmt, ris, seed
from .base import Importer

# Content sniffing runs in this order; the first format whose sniffer says yes wins. JSON comes
# first (its sniffers look at the first character; CSL-JSON's at its keys), seed text last (it sniffs a "VENUE YEAR" header).
IMPORTERS: tuple[Importer, ...] = (
    jsonfmt.JSONL_IMPORTER,
    csljson.IMPORTER,  # before JSON: a CSL-JSON array is JSON too
    jsonfmt.JSON_IMPORTER,
    arxiv.IMPORTER,
    bibtex.IMPORTER,
    ris.IMPORTER,
    csvfmt.IMPORTER,
    seed.IMPORTER,
)


def importer_for(fmt: str) -> Importer:
    """The importer of a format name; KeyError when there is none."""
    for importer in IMPORTERS:
        if importer.format == fmt:
            return importer
    raise KeyError(fmt)


def sniffed(path: str | Path, text: str) -> Importer | None:
    """The first importer whose sniffer recognises the decoded text (told the extension)."""
    ext = Path(path).suffix.lower()
    return next((importer for importer in IMPORTERS if importer.sniff(text, ext)), None)


def detect(path: str | Path, text: str) -> Importer | None:
    """The importer for decoded text: content first, then the extension; None when neither knows it."""
    ext = Path(path).suffix.lower()
    found = sniffed(path, text)
    if found is not None:
        return found
    for importer in IMPORTERS:
        if ext and ext in importer.extensions:
            return importer
    return None


def extensions() -> list[str]:
    """Every registered extension, in registry order, without repeats."""
    return list(dict.fromkeys(ext for importer in IMPORTERS for ext in importer.extensions))


def _patterns(exts: tuple[str, ...] | list[str]) -> str:
    return " ".join(f"*{ext}" for ext in exts)


def file_dialog_filter() -> str:
    """A Qt file-dialog filter: all paper files, then one entry per format, then all files."""
    entries = [f"Paper files ({_patterns(extensions())})"]
    entries += [f"{importer.label} ({_patterns(importer.extensions)})" for importer in IMPORTERS]
    entries.append("All files (*)")
    return ";;".join(entries)


def _labels() -> str:
    labels = [importer.label for importer in IMPORTERS]
    return ", ".join(labels[:-1]) + " or " + labels[-1]


def import_help() -> str:
    """One line for `reader import --help`: every format with its extensions."""
    parts = [f"{importer.label} ({', '.join(importer.extensions)})" for importer in IMPORTERS]
    return "import paper files: " + "; ".join(parts) + ". The format is detected from the content"


def unrecognised_message() -> str:
    """Why a file was refused when no importer recognised it."""
    return f"unrecognised format: expected {_labels()}"


__all__ = [
    "IMPORTERS", "ImportFormat", "Importer", "detect", "extensions", "file_dialog_filter",
    "import_help", "importer_for", "unrecognised_message",
]
