"""Checks of the packaging: prune rules, icons, .desktop, install scripts, fonts, CI files, the wheel."""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
RESOURCES = ROOT / "resources"
PNG_SIG = b"\x89PNG\r\n\x1a\n"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"packaging_{name}", PACKAGING / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rules() -> ModuleType:
    return load("bundle_rules")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIG and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


# --- spec and prune rules -------------------------------------------------------------------

class _Built:
    """What one PyInstaller builder (Analysis, EXE, COLLECT, BUNDLE…) was called with."""

    def __init__(self, kind: str, log: list[_Built], *args, **kwargs):
        self.kind, self.args, self.kwargs = kind, args, kwargs
        # Analysis results: what the spec prunes and hands on.
        self.binaries = [("PySide6/QtCore.abi3.so", "/x/QtCore.abi3.so", "EXTENSION"),
                         ("libQt6Core.so.6", "/x/libQt6Core.so.6", "BINARY"),
                         ("libQt6Pdf.so.6", "/x/libQt6Pdf.so.6", "BINARY"),
                         ("PySide6/Qt/translations/qtbase_de.qm", "/x/de.qm", "DATA")]
        self.datas = list(kwargs.get("datas", []))
        self.pure, self.scripts = [], []
        log.append(self)


def _run_spec(monkeypatch, platform: str) -> dict[str, _Built]:
    """Execute packaging/reader.spec as PyInstaller would, with its builders recorded, not run."""
    import types

    hooks = types.ModuleType("PyInstaller.utils.hooks")
    hooks.collect_submodules = lambda name, filter=None: [f"{name}.stub"]  # type: ignore[attr-defined]
    for name in ("PyInstaller", "PyInstaller.utils"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "PyInstaller.utils.hooks", hooks)
    monkeypatch.setattr(sys, "platform", platform)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delenv("READER_NO_PRUNE", raising=False)
    log: list[_Built] = []
    scope: dict = {"SPECPATH": str(PACKAGING), "__file__": str(PACKAGING / "reader.spec")}
    for kind in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"):
        scope[kind] = lambda *a, _k=kind, **kw: _Built(_k, log, *a, **kw)
    # The extension module links Qt Core; nothing links the PDF library.
    monkeypatch.setattr(rules_module(), "elf_needed",
                        lambda path: ["libQt6Core.so.6"] if path.endswith("abi3.so") else [])
    exec(compile((PACKAGING / "reader.spec").read_text(), "reader.spec", "exec"), scope)
    return {b.kind: b for b in log}


def rules_module() -> ModuleType:
    import bundle_rules  # the spec imports it from packaging/ (on sys.path via the spec itself)

    return bundle_rules


@pytest.fixture
def packaging_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(PACKAGING))


def test_spec_builds_a_windowed_pruned_app_with_the_data(monkeypatch, packaging_on_path):
    import reader

    built = _run_spec(monkeypatch, "linux")
    rules = rules_module()
    analysis, exe, coll = built["Analysis"], built["EXE"], built["COLLECT"]
    assert Path(analysis.args[0][0]).name == "launcher.py" and (PACKAGING / "launcher.py").is_file()
    assert analysis.kwargs["excludes"] == list(rules.EXCLUDED_MODULES)
    assert exe.kwargs["console"] is False and exe.kwargs["name"] == "reader"
    # The pruned payload reaches COLLECT: the translation and the unlinked library went.
    assert [b[0] for b in coll.args[1]] == ["PySide6/QtCore.abi3.so", "libQt6Core.so.6"]
    shipped = {(Path(src).relative_to(ROOT).as_posix(), dest) for src, dest in analysis.kwargs["datas"]}
    for folder, package in DATA_FOLDERS.items():
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and (folder != "seeds" or path.suffix in (".txt", ".py")):
                rel = path.parent.relative_to(ROOT / folder).as_posix()
                assert (path.relative_to(ROOT).as_posix(), package if rel == "." else f"{package}/{rel}") in shipped
    assert "BUNDLE" not in built and reader.APP_NAME


def test_spec_makes_a_dark_mode_retina_bundle_on_macos(monkeypatch, packaging_on_path):
    import reader

    built = _run_spec(monkeypatch, "darwin")
    bundle = built["BUNDLE"]
    assert bundle.kwargs["bundle_identifier"] == reader.APP_ID and bundle.kwargs["name"] == f"{reader.APP_NAME}.app"
    plist = bundle.kwargs["info_plist"]
    assert plist["NSHighResolutionCapable"] is True and plist["NSRequiresAquaSystemAppearance"] is False
    assert built["EXE"].kwargs["strip"] is False  # stripping would break the code signature
    assert built["EXE"].kwargs["icon"].endswith("reader.icns")


@pytest.mark.parametrize(
    ("dest", "kept"),
    [
        ("PySide6/Qt/translations/qtbase_de.qm", False),
        ("PySide6/translations/qt_en.qm", False),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland.so", True),
        ("PySide6/Qt/plugins/platforms/libqeglfs.so", False),
        ("PySide6/Qt/plugins/platforms/libqvnc.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so", True),
        ("PySide6/Qt/plugins/imageformats/libqsvg.so", True),
        ("PySide6/Qt/plugins/imageformats/libqtiff.so", False),
        ("PySide6/Qt/plugins/iconengines/libqsvgicon.so", True),
        ("PySide6/Qt/plugins/tls/libqopensslbackend.so", False),
        ("PySide6/Qt/plugins/networkinformation/libqglib.so", False),
        ("PySide6/Qt/plugins/egldeviceintegrations/libqeglfs-x11-integration.so", False),
        ("PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so", True),
        ("PySide6/Qt/plugins/wayland-shell-integration/libivi-shell.so", False),
        ("PySide6\\plugins\\platforms\\qwindows.dll", True),
        ("PySide6\\plugins\\styles\\qmodernwindowsstyle.dll", True),
        ("PySide6\\plugins\\platforms\\qdirect2d.dll", False),
        ("PySide6/Qt/plugins/platforms/libqcocoa.dylib", True),
        ("PySide6/Qt/lib/libQt6Network.so.6", False),
        ("PySide6/Qt/lib/libQt6Pdf.so.6", False),
        ("PySide6/Qt/lib/libQt6QmlModels.so.6", False),
        ("PySide6\\Qt6Quick.dll", False),
        ("PySide6\\opengl32sw.dll", False),
        ("PySide6/Qt/lib/libQt6Core.so.6", True),
        ("PySide6/Qt/lib/libQt6Widgets.so.6", True),
        ("PySide6/Qt/lib/libicudata.so.73", True),
        ("reader/seeds/000_80f75b3151cd2819.txt", True),
    ],
)
def test_keep_entry(rules, dest, kept):
    assert rules.keep_entry(dest) is kept


def test_excluded_modules_drop_unused_qt_and_network(rules):
    for mod in ("PySide6.QtNetwork", "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtPdf", "ssl", "tkinter"):
        assert mod in rules.EXCLUDED_MODULES
    for mod in ("PySide6.QtWidgets", "PySide6.QtGui", "PySide6.QtSvg", "sqlite3", "hashlib"):
        assert mod not in rules.EXCLUDED_MODULES


def test_drop_unreferenced_libs_keeps_only_the_closure(rules):
    graph = {
        "/s/QtCore.abi3.so": ["libQt6Core.so.6"],
        "/s/libQt6Core.so.6": ["libicuuc.so.73", "libc.so.6"],
        "/s/libicuuc.so.73": ["libicudata.so.73"],
        "/s/libqgtk3.so": ["libgtk-3.so.0"],
    }
    toc = [
        ("PySide6/QtCore.abi3.so", "/s/QtCore.abi3.so", "EXTENSION"),
        ("PySide6/Qt/lib/libQt6Core.so.6", "/s/libQt6Core.so.6", "BINARY"),
        ("PySide6/Qt/lib/libicuuc.so.73", "/s/libicuuc.so.73", "BINARY"),
        ("PySide6/Qt/lib/libicudata.so.73", "/s/libicudata.so.73", "BINARY"),
        ("libcairo.so.2", "/s/libcairo.so.2", "BINARY"),  # only the dropped gtk3 theme wanted it
        ("libdbus-1.so.3", "/s/libdbus-1.so.3", "BINARY"),  # dlopen()ed by QtDBus
        ("libpython3.11.so.1.0", "/s/libpython3.11.so.1.0", "BINARY"),
        ("libstdc++.so.6", "/s/libstdc++.so.6", "BINARY"),  # always taken from the system
    ]
    kept, dropped = rules.drop_unreferenced_libs(toc, lambda src: graph.get(src, []))
    assert sorted(e[0] for e in dropped) == ["libcairo.so.2", "libstdc++.so.6"]
    assert len(kept) == len(toc) - 2


def test_app_code_imports_no_excluded_module(rules):
    """The bundle leaves these out, so the app must not import them (directly)."""
    import ast

    from tests.parsing import parse_source

    offenders = []
    for path in (ROOT / "reader").rglob("*.py"):
        for node in ast.walk(parse_source(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            offenders += [f"{path.name}: {n}" for n in names if n in rules.EXCLUDED_MODULES]
    assert not offenders


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF only")
def test_elf_needed_reads_dt_needed(rules):
    import PySide6

    core = Path(PySide6.__file__).parent / "Qt" / "lib" / "libQt6Widgets.so.6"
    needed = rules.elf_needed(str(core))
    assert "libQt6Gui.so.6" in needed and "libQt6Core.so.6" in needed
    assert rules.elf_needed(str(ROOT / "pyproject.toml")) == []


# --- icons ----------------------------------------------------------------------------------

def test_svg_and_pngs_exist_with_right_sizes():
    assert (RESOURCES / "reader.svg").read_text().lstrip().startswith("<?xml")
    for size in (16, 32, 48, 64, 128, 256, 512):
        data = (RESOURCES / "icons" / f"reader-{size}.png").read_bytes()
        assert png_size(data) == (size, size)


def test_ico_header_and_png_entries():
    data = (RESOURCES / "reader.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data, 0)
    assert (reserved, kind) == (0, 1) and count >= 5
    sizes = set()
    for i in range(count):
        w, h, _colors, _res, planes, bpp, length, offset = struct.unpack_from("<BBBBHHII", data, 6 + 16 * i)
        assert planes == 1 and bpp == 32 and offset + length <= len(data)
        blob = data[offset : offset + length]
        real = png_size(blob)
        assert real == ((w or 256), (h or 256))
        sizes.add(real[0])
    assert {16, 32, 48, 256} <= sizes


def test_icns_container_is_consistent():
    data = (RESOURCES / "reader.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    expected = {b"icp4": 16, b"icp5": 32, b"ic07": 128, b"ic08": 256, b"ic09": 512, b"ic10": 1024}
    found = {}
    pos = 8
    while pos < len(data):
        kind, length = data[pos : pos + 4], struct.unpack(">I", data[pos + 4 : pos + 8])[0]
        assert length > 8
        found[kind] = png_size(data[pos + 8 : pos + length])[0]
        pos += length
    assert pos == len(data)
    for kind, size in expected.items():
        assert found[kind] == size


def test_container_writers_roundtrip():
    icons = load("make_icons")
    fake = {16: PNG_SIG + b"a" * 10, 256: PNG_SIG + b"b" * 20}
    ico = icons.build_ico(fake)
    assert struct.unpack_from("<HHH", ico, 0) == (0, 1, 2)
    w, _h, *_rest, length, offset = struct.unpack_from("<BBBBHHII", ico, 6 + 16)
    assert w == 0 and ico[offset : offset + length] == fake[256]  # 256 px is stored as 0


# --- Linux desktop integration --------------------------------------------------------------

def test_desktop_file_has_valid_keys():
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(PACKAGING / "linux" / "reader.desktop")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Reader"
    assert entry["Exec"].split()[0] == "reader"
    assert entry["Icon"] == "reader"  # themed name: install.sh puts it in hicolor
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";") and "Office" in entry["Categories"]
    allowed = {"Type", "Version", "Name", "GenericName", "Comment", "Exec", "Icon", "Terminal",
               "Categories", "Keywords", "StartupNotify", "TryExec", "MimeType", "StartupWMClass"}
    assert set(entry) <= allowed


def _fake_tarball_tree(tmp_path: Path) -> Path:
    stage = tmp_path / "reader-0.1.0-linux-x86_64"
    app = stage / "reader"
    (app / "_internal").mkdir(parents=True)
    exe = app / "reader"
    exe.write_text("#!/bin/sh\necho frozen-reader \"$@\"\n")
    exe.chmod(0o755)
    (stage / "icons").mkdir()
    for size in (16, 256):
        shutil.copy2(RESOURCES / "icons" / f"reader-{size}.png", stage / "icons")
    shutil.copy2(PACKAGING / "linux" / "reader.desktop", stage)
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy2(PACKAGING / "linux" / script, stage)
    return stage


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell scripts")
def test_install_and_uninstall_use_xdg_paths(tmp_path):
    stage = _fake_tarball_tree(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["sh", str(stage / "install.sh")], env=env, check=True, capture_output=True)

    opt = home / ".local" / "opt" / "reader"
    link = home / ".local" / "bin" / "reader"
    desktop = home / ".local" / "share" / "applications" / "reader.desktop"
    icon = home / ".local" / "share" / "icons" / "hicolor" / "256x256" / "apps" / "reader.png"
    assert (opt / "reader").is_file() and (opt / "_internal").is_dir()
    assert link.is_symlink() and os.readlink(link) == str(opt / "reader")
    assert f"Exec={opt / 'reader'}\n" in desktop.read_text()
    assert icon.read_bytes() == (RESOURCES / "icons" / "reader-256.png").read_bytes()
    out = subprocess.run([str(link), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "frozen-reader --version"

    (home / ".local" / "share" / "Reader").mkdir()  # the user's library must survive
    subprocess.run(["sh", str(opt / "uninstall.sh")], env=env, check=True, capture_output=True)
    assert not opt.exists() and not link.exists() and not link.is_symlink()
    assert not desktop.exists() and not icon.exists()
    assert (home / ".local" / "share" / "Reader").is_dir()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell scripts")
def test_install_honours_xdg_data_home(tmp_path):
    stage = _fake_tarball_tree(tmp_path)
    home, data = tmp_path / "home", tmp_path / "xdg-data"
    home.mkdir()
    env = {"HOME": str(home), "XDG_DATA_HOME": str(data), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    subprocess.run(["sh", str(stage / "install.sh")], env=env, check=True, capture_output=True)
    assert (data / "applications" / "reader.desktop").is_file()
    assert (data / "icons" / "hicolor" / "16x16" / "apps" / "reader.png").is_file()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux packing")
def test_build_linux_packs_tarball_and_skips_appimage_without_tool(tmp_path, monkeypatch, capsys):
    build = load("build")
    app = tmp_path / "dist" / "reader"
    (app / "_internal").mkdir(parents=True)
    (app / "reader").write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv("APPIMAGETOOL", raising=False)
    outputs = build.build_linux(tmp_path / "dist")
    assert len(outputs) == 1 and outputs[0].name.endswith(".tar.gz")
    with tarfile.open(outputs[0]) as tar:
        names = {Path(n).relative_to(Path(n).parts[0]).as_posix() for n in tar.getnames() if "/" in n}
        modes = {Path(m.name).name: m.mode for m in tar.getmembers()}
    assert {"reader/reader", "reader.desktop", "install.sh", "uninstall.sh", "icons/reader-512.png"} <= names
    assert modes["install.sh"] & 0o111
    assert "AppImage: skipped" in capsys.readouterr().out


# --- Windows and macOS scripts --------------------------------------------------------------

def _inno_sections(text: str) -> dict[str, list[str]]:
    """An Inno Setup script's sections: the lines of each, comments and preprocessor lines left out."""
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        elif current is not None:
            current.append(line)
    return sections


def _inno_entry(line: str) -> dict[str, str]:
    """`Name: "x"; Flags: a b` -> {"Name": "x", "Flags": "a b"} (quotes doubled inside values)."""
    parts = re.findall(r'(\w+):\s*("(?:[^"]|"")*"|[^;]*)', line)
    return {k: v.strip()[1:-1].replace('""', '"') if v.strip().startswith('"') else v.strip() for k, v in parts}


def test_inno_setup_script_is_per_user_with_optional_association():
    sections = _inno_sections((PACKAGING / "windows" / "reader.iss").read_text())
    setup = dict(line.split("=", 1) for line in sections["Setup"])
    assert setup["PrivilegesRequired"] == "lowest"
    assert setup["DefaultDirName"] == r"{localappdata}\Programs\{#AppName}"
    icons = [_inno_entry(line) for line in sections["Icons"]]
    assert any(i["Name"].startswith("{autoprograms}") and "Tasks" not in i for i in icons)  # Start menu, always
    tasks = {t["Name"]: t for t in map(_inno_entry, sections["Tasks"])}
    assert "unchecked" in tasks["associate"]["Flags"].split()  # off by default
    registry = [_inno_entry(line) for line in sections["Registry"]]
    assert registry and all(r["Root"] == "HKA" and r["Tasks"] == "associate" for r in registry)
    open_with = {r["Subkey"] for r in registry if r["Subkey"].endswith("OpenWithProgids")}
    assert open_with == {r"Software\Classes\.txt\OpenWithProgids", r"Software\Classes\.jsonl\OpenWithProgids"}


SIGN_ENV = {"MACOS_SIGN_IDENTITY": "Developer ID Application: Test (TEAM)", "APPLE_ID": "a@b.c",
            "APPLE_TEAM_ID": "TEAM", "APPLE_APP_PASSWORD": "pw"}


def _sign(tmp_path: Path, target: Path, creds: bool) -> tuple[subprocess.CompletedProcess, list[list[str]]]:
    """Run sign_and_notarize.sh with codesign/xcrun/ditto replaced by programs that log their argv."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir(exist_ok=True)
    for tool in ("codesign", "xcrun", "ditto"):
        fake = bin_dir / tool
        fake.write_text(f'#!/bin/sh\nprintf "%s\\037" {tool} "$@" >> "{log}"\necho >> "{log}"\n')
        fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in SIGN_ENV}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    if creds:
        env.update(SIGN_ENV)
    out = subprocess.run(["bash", str(PACKAGING / "macos" / "sign_and_notarize.sh"), str(target)],
                         env=env, capture_output=True, text=True, timeout=60)
    calls = [line.split("\x1f")[:-1] for line in log.read_text().splitlines()] if log.exists() else []
    return out, calls


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_sign_script_skips_without_credentials(tmp_path):
    out, calls = _sign(tmp_path, tmp_path / "Reader.app", creds=False)
    assert out.returncode == 0 and "skipped" in out.stdout and calls == []
    for script in ("make_dmg.sh", "sign_and_notarize.sh"):
        assert subprocess.run(["bash", "-n", str(PACKAGING / "macos" / script)]).returncode == 0


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_sign_script_signs_hardened_notarizes_and_staples(tmp_path):
    app = tmp_path / "Reader.app"
    app.mkdir()
    out, calls = _sign(tmp_path, app, creds=True)
    assert out.returncode == 0, out.stderr
    sign = next(c for c in calls if c[0] == "codesign" and "--sign" in c)
    assert sign[sign.index("--options") + 1] == "runtime" and sign[-1] == str(app)
    assert Path(sign[sign.index("--entitlements") + 1]).is_file()
    submit = next(c for c in calls if c[:3] == ["xcrun", "notarytool", "submit"])
    assert "--wait" in submit and submit[submit.index("--team-id") + 1] == "TEAM"
    assert calls[-1] == ["xcrun", "stapler", "staple", str(app)]
    assert [c[0] for c in calls].index("codesign") < [c[:2] for c in calls].index(["xcrun", "notarytool"])
    out, _ = _sign(tmp_path, tmp_path / "Reader.pkg", creds=True)
    assert out.returncode == 2  # an unknown kind of file is refused, not signed


def test_release_workflow_covers_three_oses():
    import yaml

    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    build = wf["jobs"]["build"]
    assert {os_.split("-")[0] for os_ in build["strategy"]["matrix"]["os"]} == {"ubuntu", "windows", "macos"}
    steps = build["steps"]
    setup_py = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python"))
    assert str(setup_py["with"]["python-version"]) == "3.11"
    runs = [s.get("run", "") for s in steps]
    assert any('pip install ".[package]"' in r for r in runs)
    assert runs.index("python packaging/build.py") < min(i for i, r in enumerate(runs) if "--smoke-test" in r)
    smoke = [s for s in steps if "--smoke-test" in s.get("run", "")]
    assert {s["if"].split("== ")[1].strip("'") for s in smoke} == {"Linux", "macOS", "Windows"}
    assert all(s["env"]["QT_QPA_PLATFORM"] == "offscreen" for s in smoke)
    assert any(s.get("uses", "").startswith("actions/upload-artifact") for s in steps)


# --- fallback font --------------------------------------------------------------------------

FONT_PROBE = textwrap.dedent(
    """
    import sys
    from reader.ui.widgets.fonts import ensure_fonts, has_usable_font, prepare_font_env
    prepare_font_env()
    from PySide6.QtWidgets import QApplication, QLabel
    app = QApplication(sys.argv[:1])
    before = has_usable_font()
    ensure_fonts(app)

    def ink(text):
        label = QLabel(text)
        label.resize(240, 40)
        img = label.grab().toImage()
        bg = img.pixel(0, 0)
        return sum(img.pixel(x, y) != bg for y in range(img.height()) for x in range(img.width()))

    # Missing glyphs all draw the same box; real glyphs differ in ink.
    print(before, has_usable_font(), app.font().family(), ink("iiiii"), ink("MMMMM"))
    """
)


def test_fallback_font_draws_text_without_system_fonts(tmp_path):
    pytest.importorskip("PySide6")
    conf = tmp_path / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?>\n<fontconfig><cachedir>{tmp_path}/cache</cachedir></fontconfig>\n')
    env = {**os.environ, "FONTCONFIG_FILE": str(conf), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("QT_QPA_FONTDIR", None)
    out = subprocess.run([sys.executable, "-c", FONT_PROBE], env=env, capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    before, after, family, thin, wide = _parse(out.stdout)
    assert before == "False"  # the empty fontconfig really has no fonts
    assert after == "True" and family == "DejaVu Sans"
    assert int(thin) > 0 and int(wide) > 2 * int(thin)
    assert "WARNING" not in out.stderr.upper() and "Cannot find font" not in out.stderr


def _parse(stdout: str) -> tuple[str, str, str, str, str]:
    words = stdout.strip().splitlines()[-1].split()
    # family may contain spaces: first two and last two words are fixed
    return words[0], words[1], " ".join(words[2:-2]), words[-2], words[-1]


def test_bundled_font_and_licence_present():
    fonts = RESOURCES / "fonts"
    assert (fonts / "DejaVuSans.ttf").read_bytes()[:4] == b"\x00\x01\x00\x00"
    assert "bitstream-vera" in (fonts / "LICENSE.txt").read_text()


# --- the wheel: every subpackage and data file, found by a non-editable install -------------

WHEEL_SOURCES = ("pyproject.toml", "setup.py", "README.md", "reader", "seeds", "resources")
DATA_FOLDERS = {"seeds": "reader/seeds", "resources": "reader/resources"}

INSTALLED_PROBE = textwrap.dedent(
    """
    import sys
    from importlib.resources import as_file
    import reader
    from reader.bundled import resource, seed_files
    assert reader.__file__.startswith(sys.argv[1]), reader.__file__
    with as_file(resource("fonts")) as fonts, as_file(resource("icons")) as icons:
        print(len(seed_files()), (fonts / "DejaVuSans.ttf").is_file(), (icons / "reader-64.png").is_file(),
              resource("reader.svg").read_text().lstrip().startswith("<?xml"))
    """
)


@pytest.fixture(scope="module")
def built_wheel(tmp_path_factory) -> tuple[Path, Path]:
    """A wheel built by pip (isolated, as users get it) from a clean copy of the sources."""
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    caches = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in WHEEL_SOURCES:  # a copy: a stale build/ folder in the checkout could mask a gap
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=caches)
        else:
            shutil.copy2(path, src / name)
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(src), "-w", str(work / "dist")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    (wheel,) = (work / "dist").glob("reader_abstracts-*.whl")
    return wheel, src


@pytest.mark.slow
def test_wheel_holds_every_subpackage_and_data_file(built_wheel):
    import zipfile

    wheel, src = built_wheel
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(src).as_posix() for p in (src / "reader").rglob("*.py")}
    for folder, package in DATA_FOLDERS.items():
        expected |= {f"{package}/{p.relative_to(src / folder).as_posix()}"
                     for p in (src / folder).rglob("*") if p.is_file()}
    assert {n for n in expected if n.count("/") > 1 and n.startswith("reader/")}  # subfolders seen
    assert "reader/resources/fonts/DejaVuSans.ttf" in expected and "reader/seeds/__init__.py" in expected
    assert sorted(expected - names) == []
    outside = [n for n in names if not n.startswith(("reader/", "reader_abstracts-"))]
    assert outside == [] and not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


@pytest.mark.slow
def test_installed_wheel_finds_seeds_fonts_and_icons(built_wheel, tmp_path):
    wheel, src = built_wheel
    site = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                          "--target", str(site), str(wheel)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-4000:]
    # PYTHONPATH comes before the editable install: the probe imports the installed copy.
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", INSTALLED_PROBE, str(site)], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-4000:]
    seeds = len(list((src / "seeds").glob("*.txt")))
    assert out.stdout.split() == [str(seeds), "True", "True", "True"]


@pytest.mark.slow
def test_editable_install_is_quiet_and_finds_the_data(built_wheel, tmp_path):
    """`pip install -e .` prints no warning, and the checkout's seeds/ and resources/ are found."""
    _, src = built_wheel
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    # The test venv's own (current) pip installs into the new one: older pips hide the backend's notices.
    out = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps",
                          "--disable-pip-version-check", "-e", str(src)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    # This machine's pip config may name index folders that do not exist: pip's own note, not ours.
    said = [line for line in (out.stdout + out.stderr).splitlines()
            if re.search(r"warn|notice|careful", line, re.I) and "is ignored: it is neither" not in line]
    assert said == []
    probe = subprocess.run([str(py), "-c", INSTALLED_PROBE, str(src)], cwd=tmp_path, capture_output=True,
                           text=True, timeout=120, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert probe.returncode == 0, probe.stderr[-4000:]
    assert probe.stdout.split() == [str(len(list((src / "seeds").glob("*.txt")))), "True", "True", "True"]


# --- scripts/install.sh and run.sh: install only when something changed -----------------------

def _script_tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of what the scripts read, a fake installed .venv, and a PATH of basic tools only."""
    tree = tmp_path / "repo"
    (tree / "scripts").mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "scripts/install.sh", "scripts/run.sh"):
        shutil.copy2(ROOT / name, tree / name)
    reader = tree / ".venv" / "bin" / "reader"
    reader.parent.mkdir(parents=True)
    reader.write_text('#!/bin/sh\necho "fake-reader $*"\n')
    reader.chmod(0o755)
    bin_dir = tmp_path / "bin"  # no apt-get, no python: an install attempt shows at once
    bin_dir.mkdir()
    for tool in ("cat", "sha256sum", "cut", "mktemp", "rm", "dirname", "tail", "grep", "id", "sh", "bash"):
        found = shutil.which(tool)
        assert found, tool
        os.symlink(found, bin_dir / tool)
    return tree, {"PATH": str(bin_dir), "PYTHON": str(tmp_path / "no-python"), "HOME": str(tmp_path)}


def _fingerprint(tree: Path) -> str:
    import hashlib

    data = b"".join((tree / n).read_bytes() for n in ("pyproject.toml", "setup.py", "scripts/install.sh"))
    return hashlib.sha256(data).hexdigest()


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("sha256sum") is None, reason="needs bash")
def test_run_sh_starts_without_installing_when_nothing_changed(tmp_path):
    tree, env = _script_tree(tmp_path)
    (tree / ".venv" / ".reader-installed").write_text(_fingerprint(tree) + "\n")
    bash = shutil.which("bash")
    out = subprocess.run([bash, str(tree / "scripts" / "run.sh"), "--smoke-test"], env=env,
                         capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, "fake-reader --smoke-test\n", "")

    with (tree / "pyproject.toml").open("a") as f:
        f.write("\n# changed\n")
    out = subprocess.run([bash, str(tree / "scripts" / "run.sh")], env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode != 0 and "fake-reader" not in out.stdout
    assert out.stdout.startswith("install: ") and "no-python not found" in out.stderr

