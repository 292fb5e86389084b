"""Render resources/reader.svg to PNG sizes plus hand-written .ico and .icns containers.

Usage:  python packaging/make_icons.py [--out RESOURCES_DIR]

Uses QtSvg on the offscreen platform (no display, no Pillow). Both containers embed PNG
data: ICO supports PNG entries since Windows Vista, ICNS since macOS 10.7.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SVG = REPO / "resources" / "reader.svg"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types holding PNG data, by pixel size (the @2x types reuse bigger renders).
ICNS_TYPES: tuple[tuple[bytes, int], ...] = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
    (b"ic11", 32),
    (b"ic12", 64),
    (b"ic13", 256),
    (b"ic14", 512),
)


def render_png(svg: Path, size: int) -> bytes:
    """Render the SVG into a size x size transparent PNG."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg}: not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise RuntimeError("PNG encoding failed")
    buf.close()
    return bytes(data.data())


def build_ico(pngs: dict[int, bytes]) -> bytes:
    """An ICO file (ICONDIR + ICONDIRENTRYs) whose images are PNG streams."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        blob = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in the ICO format
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(blob), offset)
        blobs += blob
        offset += len(blob)
    return header + entries + blobs


def build_icns(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file: big-endian 'icns' header then (type, length, PNG) elements."""
    body = b""
    for kind, size in ICNS_TYPES:
        blob = pngs[size]
        body += kind + struct.pack(">I", 8 + len(blob)) + blob
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--svg", type=Path, default=SVG)
    parser.add_argument("--out", type=Path, default=REPO / "resources")
    args = parser.parse_args(argv)

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # keeps Qt alive
    wanted = set(PNG_SIZES) | set(ICO_SIZES) | {s for _, s in ICNS_TYPES}
    pngs = {size: render_png(args.svg, size) for size in sorted(wanted)}

    icons = args.out / "icons"
    icons.mkdir(parents=True, exist_ok=True)
    for size in PNG_SIZES:
        (icons / f"reader-{size}.png").write_bytes(pngs[size])
    (args.out / "reader.ico").write_bytes(build_ico({s: pngs[s] for s in ICO_SIZES}))
    (args.out / "reader.icns").write_bytes(build_icns(pngs))
    print(f"wrote {len(PNG_SIZES)} PNGs, reader.ico and reader.icns under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
