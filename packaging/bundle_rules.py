"""What the PyInstaller bundle keeps and drops: excluded modules, Qt plugins, translations, libs.

Imported by packaging/reader.spec (and by tests); works on PyInstaller TOC tuples
(dest_name, src_name, typecode) so the same rules apply on Linux, Windows and macOS.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Iterable
from pathlib import PurePath

# Python modules the app never imports but hooks or optional imports would pull in.
EXCLUDED_MODULES: tuple[str, ...] = (
    "tkinter",
    "_tkinter",
    "ssl",  # no network: drops libssl (libcrypto stays for hashlib)
    "_ssl",
    "_hashlib",  # hashlib falls back to the builtin _sha1/_sha256/_md5: drops libcrypto
    "readline",  # drops libreadline/libtinfo
    "pygments",  # markdown's codehilite would pull it in; Reader doesn't highlight code
    "PySide6.QtNetwork",
    "PySide6.QtDBus",
    "PySide6.QtQml",
    "PySide6.QtQuick",
    "PySide6.QtQuickWidgets",
    "PySide6.QtQuickControls2",
    "PySide6.QtPdf",
    "PySide6.QtPdfWidgets",
    "PySide6.QtSql",
    "PySide6.QtOpenGL",
    "PySide6.QtOpenGLWidgets",
    "PySide6.QtTest",
    "PySide6.QtXml",
    "PySide6.QtConcurrent",
    "PySide6.QtDesigner",
    "PySide6.QtHelp",
    "PySide6.QtUiTools",
    "PySide6.QtMultimedia",
    "PySide6.QtWebEngineCore",
    "PySide6.scripts",
    "pytest",
    "_pytest",
    "pytestqt",
    "PyInstaller",
    "pip",
    "setuptools",
    "IPython",
    # numpy is not excluded: the map (reader/map) needs it.
)

# Qt plugins kept, by plugin directory; names are file stems without a "lib" prefix.
# None keeps the whole directory. Directories not listed are dropped entirely
# (generic/evdev, egldeviceintegrations, networkinformation, tls, sqldrivers, qmltooling...).
KEEP_PLUGINS: dict[str, frozenset[str] | None] = {
    # xcb/wayland for desktops, offscreen for the smoke test, minimal as a last resort;
    # qwindows and qcocoa are the native platforms of the other two OSes.
    "platforms": frozenset({"qxcb", "qwayland", "qoffscreen", "qminimal", "qwindows", "qcocoa"}),
    # qgtk3 would drag in the build machine's whole GTK stack; the portal theme is enough.
    "platformthemes": frozenset({"qxdgdesktopportal"}),
    "platforminputcontexts": None,
    "imageformats": frozenset({"qsvg", "qico", "qicns", "qjpeg", "qgif"}),
    "iconengines": None,
    "styles": None,
    "xcbglintegrations": None,
    "wayland-shell-integration": frozenset({"xdg-shell"}),
    "wayland-decoration-client": None,
}

# Libraries no kept module or plugin needs (the Linux closure below also catches these).
DROPPED_LIBS = re.compile(
    r"(?i)(^|/)(lib)?Qt6(Pdf|Qml|Quick|Network|OpenGL|VirtualKeyboard|EglFS|EglFsKms|WlShell)\w*"
    r"|(^|/)opengl32sw\.dll$"
)
# Linux: taken from the system, never bundled. Every distribution has them (apt itself needs
# them) and a bundled libstdc++ older than the system's breaks loading Mesa's GL drivers.
SYSTEM_LIBS = frozenset({"libstdc++.so.6", "libgcc_s.so.1"})
# Loaded with dlopen(), so no DT_NEEDED entry points at them; never drop them by closure.
DLOPENED_LIBS = frozenset({"libdbus-1.so.3"})

_PLUGIN_RE = re.compile(r"(^|/)PySide6/(Qt/)?plugins/(?P<kind>[^/]+)/(?P<file>[^/]+)$")
_TRANSLATION_RE = re.compile(r"(^|/)PySide6/(Qt/)?translations/")

TocEntry = tuple[str, str, str]


def _stem(filename: str) -> str:
    name = filename.split(".", 1)[0]
    return name[3:] if name.startswith("lib") else name


def keep_entry(dest_name: str) -> bool:
    """False for Qt translations, unwanted Qt plugins and unused Qt libraries."""
    dest = dest_name.replace("\\", "/")  # Windows TOC names use backslashes
    if _TRANSLATION_RE.search(dest):
        return False
    match = _PLUGIN_RE.search(dest)
    if match:
        kind = match.group("kind")
        if kind not in KEEP_PLUGINS:
            return False
        names = KEEP_PLUGINS[kind]
        return names is None or _stem(match.group("file")) in names
    return not DROPPED_LIBS.search(dest)


def prune(toc: Iterable[TocEntry]) -> list[TocEntry]:
    """The TOC entries that keep_entry() accepts."""
    return [entry for entry in toc if keep_entry(entry[0])]


def _is_shared_lib(dest: str) -> bool:
    base = PurePath(dest).name
    return ".so" in base and base.startswith("lib") and not base.endswith(".py")


def drop_unreferenced_libs(
    binaries: list[TocEntry], needed_by: Callable[[str], Iterable[str]]
) -> tuple[list[TocEntry], list[TocEntry]]:
    """Linux: drop bundled lib*.so* that no kept extension module, plugin or library needs,
    and the SYSTEM_LIBS.

    Roots are everything that is not a plain shared library (Python extension modules, Qt
    plugins, libpython); needed_by(src) lists the sonames a binary links against
    (transitively is fine). Returns (kept, dropped).
    """
    system = [e for e in binaries if PurePath(e[0]).name in SYSTEM_LIBS]
    entries = [e for e in binaries if PurePath(e[0]).name not in SYSTEM_LIBS]
    libs = {PurePath(e[0]).name: e for e in entries if _is_shared_lib(e[0]) and "/plugins/" not in e[0]}
    roots = [e for e in entries if PurePath(e[0]).name not in libs]
    reachable = {name for name in libs if name in DLOPENED_LIBS or name.startswith("libpython")}
    queue = [e[1] for e in roots] + [libs[n][1] for n in reachable]
    seen: set[str] = set()
    while queue:
        src = queue.pop()
        if src in seen:
            continue
        seen.add(src)
        for soname in needed_by(src):
            base = PurePath(soname).name
            if base in libs and base not in reachable:
                reachable.add(base)
                queue.append(libs[base][1])
    kept = [e for e in entries if PurePath(e[0]).name not in libs or PurePath(e[0]).name in reachable]
    dropped = system + [e for e in entries if PurePath(e[0]).name in libs and PurePath(e[0]).name not in reachable]
    return kept, dropped


def elf_needed(path: str) -> list[str]:
    """The DT_NEEDED sonames of an ELF file ([] for anything that is not ELF)."""
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:4] != b"\x7fELF":
        return []
    is64, order = data[4] == 2, "<" if data[5] == 1 else ">"
    if is64:
        shoff, = struct.unpack_from(order + "Q", data, 0x28)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x3A)
        sh_fmt, dyn_fmt = order + "IIQQQQIIQQ", order + "qQ"
    else:
        shoff, = struct.unpack_from(order + "I", data, 0x20)
        shentsize, shnum = struct.unpack_from(order + "HH", data, 0x2E)
        sh_fmt, dyn_fmt = order + "IIIIIIIIII", order + "iI"
    sections = [struct.unpack_from(sh_fmt, data, shoff + i * shentsize) for i in range(shnum)]
    needed: list[str] = []
    for sh in sections:
        if sh[1] != 6:  # SHT_DYNAMIC
            continue
        offset, size, link = sh[4], sh[5], sh[6]
        strtab_off = sections[link][4]
        step = struct.calcsize(dyn_fmt)
        for pos in range(offset, offset + size, step):
            tag, val = struct.unpack_from(dyn_fmt, data, pos)
            if tag == 0:
                break
            if tag == 1:  # DT_NEEDED
                end = data.index(b"\0", strtab_off + val)
                needed.append(data[strtab_off + val : end].decode())
    return needed
