"""The importer registry: detection, the file-dialog filter, CLI help and the refusal message."""

from __future__ import annotations

import pytest

from reader.errors import InputFileError
from reader.importers import (
    IMPORTERS,
    detect_format,
    file_dialog_filter,
    import_help,
    parse_file,
    unrecognised_message,
)
from reader.importers.base import MAX_LINE_CHARS
from reader.models import ImportFormat

from .helpers import ABSTRACT, write


def test_every_format_has_one_importer():
    formats = [importer.format for importer in IMPORTERS]
    assert len(formats) == len(set(formats))
    # BACKUP is read by the JSON importer; every other format has its own module.
    assert set(formats) == set(ImportFormat) - {ImportFormat.BACKUP}


def test_generated_texts_mention_every_format():
    qt_filter, help_text, refusal = file_dialog_filter(), import_help(), unrecognised_message()
    entries = qt_filter.split(";;")
    assert entries[-1] == "All files (*)"
    for importer in IMPORTERS:
        assert f"{importer.label} (" in qt_filter
        assert importer.label in help_text and importer.label in refusal
        for ext in importer.extensions:
            assert f"*{ext}" in entries[0] and f"*{ext}" in qt_filter and ext in help_text
    assert "backup" in help_text.lower() and "backup" in refusal.lower()


@pytest.mark.parametrize(
    ("name", "text", "fmt"),
    [
        ("x.txt", f"ICML 2025\n\n{ABSTRACT}\n", "seed"),
        ("noext", f"ICML 2025\n\n{ABSTRACT}\n", "seed"),  # sniffed by its header
        ("x.txt", f"Some notes\n\n{ABSTRACT}\n", "seed"),  # a .txt file is seed text
        ("noext", f"Some notes\n\n{ABSTRACT}\n", "unknown"),  # not without a header
        ("shadow", "root:$6$salt$hash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n", "unknown"),
        ("x.md", f"# Title\n\n{ABSTRACT}\n", "unknown"),
        ("x.bib", f"@misc{{a, abstract = {{{ABSTRACT}}}}}\n", "bibtex"),
        ("x.data", f"TY  - JOUR\nAB  - {ABSTRACT}\nER  - \n", "ris"),
        ("x.txt", f"title,abstract\nT,{ABSTRACT}\n", "csv"),
        ("x.json", f'[{{"abstract": "{ABSTRACT}"}}]', "json"),
        ("x.log", f'{{"abstract": "{ABSTRACT}"}}\n{{"abstract": "{ABSTRACT}"}}\n', "jsonl"),
        ("x.jsonl", f'{{"abstract": "{ABSTRACT}"}}\n', "jsonl"),
        ("x.xml", '<feed xmlns="http://www.w3.org/2005/Atom"></feed>', "arxiv"),
    ],
)
def test_detection(name, text, fmt):
    assert detect_format(name, text) == fmt


def test_extensionless_unknown_text_is_refused(tmp_path):
    path = write(tmp_path, "shadow", "root:$6$x$y:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n")
    with pytest.raises(InputFileError, match="unrecognised format: expected .*Seed text"):
        parse_file(path)


def test_long_single_line_is_refused_quickly(tmp_path):
    import time

    path = write(tmp_path, "big.txt", "ICML 2025\n\n" + "word " * (MAX_LINE_CHARS // 4))
    start = time.process_time()  # CPU seconds: the same on a busy machine
    with pytest.raises(InputFileError, match=r"line 3 is too long"):
        parse_file(path)
    assert time.process_time() - start < 10  # refused before parsing, not after minutes
