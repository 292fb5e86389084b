"""How a vault file was saved (UTF-8 with or without a BOM, UTF-16, CR-only line ends), undone on
read and redone on write, so a file goes back exactly as the user's editor saved it.

The rest of the vault sees text with "\\n" or "\\r\\n" line ends (CRLF is kept as it is: the
document layer writes CRLF into a CRLF file); CR-only files (classic Mac) are turned into "\\n"
here and back into "\\r" on the way out.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

_BOMS = (  # longest first: a UTF-32 LE BOM starts like a UTF-16 LE one
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SNIFF = 4096


@dataclass(frozen=True)
class Encoding:
    codec: str = "utf-8"
    bom: bytes = b""
    cr_only: bool = False

    @property
    def label(self) -> str:
        name = self.codec.upper().replace("-LE", " LE").replace("-BE", " BE")
        return name + (" with a BOM" if self.bom and self.codec == "utf-8" else "")

    def encode(self, text: str) -> bytes:
        if self.cr_only:
            text = text.replace("\r\n", "\r").replace("\n", "\r")
        return self.bom + text.encode(self.codec)


UTF8 = Encoding()


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le'/'-be' for text that is mostly ASCII in UTF-16 without a BOM (NULs every other byte)."""
    head = data[:_SNIFF]
    if len(head) < 4 or len(data) % 2 or b"\x00" not in head:
        return None
    even, odd = head[0::2].count(0), head[1::2].count(0)
    half = len(head) // 2
    if odd > half * 0.6 and even < half * 0.1:
        return "utf-16-le"
    if even > half * 0.6 and odd < half * 0.1:
        return "utf-16-be"
    return None


def decode(data: bytes) -> tuple[str, Encoding]:
    """The text and how it was saved; UnicodeDecodeError when it is no Unicode text."""
    codec, bom = "utf-8", b""
    for mark, name in _BOMS:
        if data.startswith(mark):
            codec, bom = name, mark
            break
    else:
        codec = _utf16_without_bom(data) or "utf-8"
    text = data[len(bom):].decode(codec)
    cr_only = "\r" in text and "\n" not in text
    if cr_only:
        text = text.replace("\r", "\n")
    return text, Encoding(codec, bom, cr_only)


def problem(exc: UnicodeDecodeError) -> str:
    """The one-line reason for a file that is not text Reader can read."""
    return f"not UTF-8 text (byte {exc.start} cannot be read): save it as UTF-8 to sync it"
