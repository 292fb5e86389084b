"""Reading files: missing, empty, binary, non-UTF-8, special and oversized files."""

from __future__ import annotations

import pytest

from reader.errors import InputFileError
from reader.importers import parse_file

from .helpers import ABSTRACT, write


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(InputFileError, match="not found"):
        parse_file(tmp_path / "nope.txt")
    with pytest.raises(InputFileError, match="folder"):
        parse_file(tmp_path)


@pytest.mark.parametrize("content", [b"", b"   \n\n  \r\n", b"\xef\xbb\xbf"])
def test_empty_file(tmp_path, content):
    with pytest.raises(InputFileError, match="empty"):
        parse_file(write(tmp_path, "e.txt", content))


def test_binary_file(tmp_path):
    path = write(tmp_path, "x.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    with pytest.raises(InputFileError, match="binary"):
        parse_file(path)


def test_latin1_names_byte_and_line(tmp_path):
    text = f"ICML 2025 Papers\n\nCaf\u00e9 {ABSTRACT}\n"
    path = write(tmp_path, "l.txt", text.encode("latin-1"))
    with pytest.raises(InputFileError) as info:
        parse_file(path)
    assert "not UTF-8 text (byte 0xe9 at line 3)" in str(info.value)
    assert "Latin-1" in str(info.value)
    assert info.value.line == 3


def test_utf16_is_named(tmp_path):
    path = write(tmp_path, "u.txt", ("ICML 2025\n\n" + ABSTRACT).encode("utf-16"))
    with pytest.raises(InputFileError, match="UTF-16"):
        parse_file(path)
