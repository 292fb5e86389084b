"""Read an input file as UTF-8 text: only regular files, size-capped, binary and non-UTF-8 refused clearly."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from reader.errors import InputFileError

from .base import MAX_FILE_BYTES

_BOM = b"\xef\xbb\xbf"
# Bytes that never occur in text files; one of them early on means "binary".
_BINARY_BYTES = frozenset(range(0, 9)) | {0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x1A}
_SNIFF = 8192
_STRAY_CONTROLS = 8  # control bytes a text file's head may hold (more in a big head: 1 in 512)
_GUESS_BYTES = 65536  # enough for charset-normalizer to tell code pages apart
# Code pages that decode typical Western text alike; named the way users know them.
_WESTERN = frozenset({"cp1252", "latin_1", "iso8859_15", "cp1250", "iso8859_1"})
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once instead of waiting for a writer
_BINARY_MODE = getattr(os, "O_BINARY", 0)


PathArg = str | bytes | os.PathLike[str] | os.PathLike[bytes]


def display_name(path: PathArg) -> str:
    """The path as printable text: bytes that are not UTF-8 show as \\xNN escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def read_bytes(path: PathArg) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES; InputFileError for anything else."""
    name = display_name(path)
    try:
        _check_regular(name, os.stat(path))  # before opening: opening a device can have effects
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _BINARY_MODE)
    except FileNotFoundError:
        raise InputFileError(name, "file not found") from None
    except ValueError:  # an embedded NUL in the name
        raise InputFileError(name, "is not a valid file name") from None
    except OSError as exc:
        raise InputFileError(name, f"cannot be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        _check_regular(name, info)  # it may have been swapped since the stat
        with open(fd, "rb", closefd=False) as handle:
            # read(n) allocates n bytes up front: ask for the size we know, then any growth.
            data = handle.read(info.st_size + 1)
            if len(data) > info.st_size:
                data += handle.read(MAX_FILE_BYTES + 1 - len(data))
    except OSError as exc:
        raise InputFileError(name, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise InputFileError(name, _too_big(len(data)))
    return data


def _check_regular(name: str, info: os.stat_result) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise InputFileError(name, "is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise InputFileError(
            name, "is not a regular file (a pipe, device or socket): only files can be imported")
    if info.st_size > MAX_FILE_BYTES:
        raise InputFileError(name, _too_big(info.st_size))


def _too_big(size: int) -> str:
    return f"the file is too big to import ({size / 2**20:.0f} MB; the limit is {MAX_FILE_BYTES // 2**20} MB)"


def read_text(path: PathArg) -> str:
    """The file's text without BOM, CRLF/CR normalised to LF; InputFileError when it isn't UTF-8 text."""
    return decode_bytes(read_bytes(path), display_name(path))  # no copies kept: files reach 80 MB


def decode_bytes(data: bytes, path: str | Path) -> str:
    """Decode file content; see read_text. A NUL byte anywhere refuses the file as binary; control
    characters in UTF-8 text are text (exports of abstracts that hold them read back)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputFileError(path, "UTF-16 text is not supported: save the file as UTF-8")
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    if not data or data.isspace():
        raise InputFileError(path, "the file is empty")
    head = data[:_SNIFF]
    # A text file may carry control characters: an abstract's "300\x08C" from a PDF, kept as
    # imported and so in Reader's own BibTeX/RIS exports, as many as the abstracts hold. Binary
    # is a NUL, or bytes that are not UTF-8 with control bytes beyond a few in the head.
    if b"\x00" in head and sum(head.count(b) for b in _BINARY_BYTES) > max(_STRAY_CONTROLS, len(head) // 512):
        raise InputFileError(path, "binary file, not text")
    nul = data.find(b"\x00")
    if nul >= 0:  # past the sniffed head: a damaged or binary file, not text to store
        line = data.count(b"\n", 0, nul) + 1
        raise InputFileError(path, f"binary file, not text (NUL byte at line {line})", line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if sum(head.count(b) for b in _BINARY_BYTES) > max(_STRAY_CONTROLS, len(head) // 512):
            raise InputFileError(path, "binary file, not text") from None
        bad = data[exc.start]
        line = data.count(b"\n", 0, exc.start) + 1
        guess = guess_encoding(data)
        hint = f"; it looks like {guess}: save it as UTF-8" if guess else ""
        raise InputFileError(path, f"not UTF-8 text (byte 0x{bad:02x} at line {line}){hint}",
                             line) from None
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def guess_encoding(data: bytes) -> str | None:
    """The legacy encoding the bytes look like (charset-normalizer), named for people; None if unsure."""
    from charset_normalizer import from_bytes

    best = from_bytes(data[:_GUESS_BYTES]).best()
    if best is None:
        return None
    if _WESTERN & set(best.could_be_from_charset):
        return "Latin-1/Windows-1252"
    return best.encoding.replace("_", "-")
