"""Read an input file as UTF-8 text, rejecting missing, empty, binary and non-UTF-8 files clearly."""

from __future__ import annotations

from pathlib import Path

from reader.errors import InputFileError

_BOM = b"\xef\xbb\xbf"
# Bytes that never occur in text files; one of them early on means "binary".
_BINARY_BYTES = frozenset(range(0, 9)) | {0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x1A}
_SNIFF = 8192


def read_text(path: str | Path) -> str:
    """The file's text without BOM, CRLF/CR normalised to LF; InputFileError when it isn't UTF-8 text."""
    p = Path(path)
    if not p.exists():
        raise InputFileError(p, "file not found")
    if p.is_dir():
        raise InputFileError(p, "is a folder, not a file")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputFileError(p, f"cannot be read ({exc.strerror or exc})") from exc
    return decode_bytes(data, p)  # no local copies kept: big files are ~80 MB


def decode_bytes(data: bytes, path: str | Path) -> str:
    """Decode file content; see read_text."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputFileError(path, "UTF-16 text is not supported: save the file as UTF-8")
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    if not data or data.isspace():
        raise InputFileError(path, "the file is empty")
    head = data[:_SNIFF]
    if any(b in _BINARY_BYTES for b in head):
        raise InputFileError(path, "binary file, not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start]
        line = data.count(b"\n", 0, exc.start) + 1
        hint = ""
        if _looks_like_latin1(data):
            hint = "; it looks like Latin-1/Windows-1252: save it as UTF-8"
        err = InputFileError(path, f"not UTF-8 text (byte 0x{bad:02x} at line {line}){hint}")
        err.line = line  # for callers; the message already names the line
        raise err from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def _looks_like_latin1(data: bytes) -> bool:
    """Legacy 8-bit text decodes as cp1252 and has few control characters."""
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return False
    return True
