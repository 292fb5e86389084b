"""Build Reader's installers for the current OS (see the Installers section of README.md).

    python packaging/build.py [--skip-pyinstaller] [--dist DIR] [--work DIR]

1. Regenerates the icons when resources/reader.{ico,icns} are missing.
2. Runs PyInstaller on packaging/reader.spec -> DIST/reader (Linux), DIST/Reader (Windows),
   DIST/Reader.app (macOS).
3. Packs the installers into DIST:
   - Linux:   reader-VERSION-linux-ARCH.tar.gz (app folder, reader.desktop, icons,
              install.sh/uninstall.sh) and Reader-VERSION-ARCH.AppImage when appimagetool
              is available (PATH or $APPIMAGETOOL; it is not on PyPI, Debian or npm).
   - Windows: Reader-VERSION-windows-x64.zip (portable) and Reader-VERSION-setup.exe when
              Inno Setup's ISCC.exe is found (PATH, $ISCC or the default install folder).
   - macOS:   signs/notarizes Reader.app when the signing env vars are set, then
              Reader-VERSION-macos-ARCH.dmg (hdiutil), signed/notarized the same way.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
from reader import __version__  # noqa: E402

ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)


def log(message: str) -> None:
    print(f"[build] {message}", flush=True)


def run(cmd: list[str | os.PathLike], **kwargs) -> None:
    log("$ " + " ".join(str(c) for c in cmd))
    subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def arch() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def ensure_icons() -> None:
    res = ROOT / "resources"
    if not (res / "reader.ico").exists() or not (res / "reader.icns").exists():
        run([sys.executable, HERE / "make_icons.py"])


def pyinstaller(dist: Path, work: Path) -> None:
    run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean",
         "--distpath", dist, "--workpath", work, HERE / "reader.spec"])


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


# --- Linux ----------------------------------------------------------------------------------

def build_linux(dist: Path) -> list[Path]:
    app = dist / "reader"
    log(f"app folder {app}: {dir_size(app) / 1e6:.1f} MB")
    stage = dist / f"reader-{__version__}-linux-{arch()}"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    shutil.copytree(app, stage / "reader", symlinks=True)
    shutil.copy2(HERE / "linux" / "reader.desktop", stage / "reader.desktop")
    (stage / "icons").mkdir()
    for size in ICON_SIZES:
        shutil.copy2(ROOT / "resources" / "icons" / f"reader-{size}.png", stage / "icons")
    for script in ("install.sh", "uninstall.sh"):
        shutil.copy2(HERE / "linux" / script, stage / script)
        (stage / script).chmod(0o755)
    tarball = dist / f"{stage.name}.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(stage, arcname=stage.name)
    log(f"wrote {tarball} ({tarball.stat().st_size / 1e6:.1f} MB)")
    outputs = [tarball]
    appimage = build_appimage(dist, app)
    if appimage:
        outputs.append(appimage)
    return outputs


def build_appimage(dist: Path, app: Path) -> Path | None:
    tool = os.environ.get("APPIMAGETOOL") or shutil.which("appimagetool")
    if not tool:
        log("AppImage: skipped - appimagetool not found (it is not packaged on PyPI, Debian or "
            "npm; put it on PATH or set APPIMAGETOOL=/path/to/appimagetool to build one)")
        return None
    appdir = dist / "Reader.AppDir"
    if appdir.exists():
        shutil.rmtree(appdir)
    shutil.copytree(app, appdir / "usr" / "lib" / "reader", symlinks=True)
    shutil.copy2(HERE / "linux" / "reader.desktop", appdir / "reader.desktop")
    shutil.copy2(ROOT / "resources" / "icons" / "reader-256.png", appdir / "reader.png")
    for size in ICON_SIZES:
        icon_dir = appdir / "usr" / "share" / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        icon_dir.mkdir(parents=True)
        shutil.copy2(ROOT / "resources" / "icons" / f"reader-{size}.png", icon_dir / "reader.png")
    (appdir / ".DirIcon").symlink_to("reader.png")
    apprun = appdir / "AppRun"
    apprun.write_text('#!/bin/sh\nHERE="$(dirname "$(readlink -f "$0")")"\n'
                      'exec "$HERE/usr/lib/reader/reader" "$@"\n')
    apprun.chmod(0o755)
    out = dist / f"Reader-{__version__}-{arch()}.AppImage"
    run([tool, appdir, out], env={**os.environ, "ARCH": arch()})
    return out


# --- Windows --------------------------------------------------------------------------------

def find_iscc() -> str | None:
    candidates = [os.environ.get("ISCC"), shutil.which("ISCC"), shutil.which("iscc")]
    for var in ("ProgramFiles(x86)", "ProgramFiles", "LOCALAPPDATA"):
        base = os.environ.get(var)
        if base:
            candidates.append(str(Path(base) / "Inno Setup 6" / "ISCC.exe"))
            candidates.append(str(Path(base) / "Programs" / "Inno Setup 6" / "ISCC.exe"))
    return next((c for c in candidates if c and Path(c).exists()), None)


def build_windows(dist: Path) -> list[Path]:
    app = dist / "Reader"
    log(f"app folder {app}: {dir_size(app) / 1e6:.1f} MB")
    portable = Path(shutil.make_archive(str(dist / f"Reader-{__version__}-windows-x64"), "zip",
                                        root_dir=dist, base_dir="Reader"))
    outputs = [portable]
    iscc = find_iscc()
    if not iscc:
        log("installer: skipped - Inno Setup's ISCC.exe not found (install Inno Setup 6 or set ISCC)")
        return outputs
    run([iscc, f"/DAppVersion={__version__}", f"/DSourceDir={app}", f"/O{dist}",
         HERE / "windows" / "reader.iss"])
    outputs.append(dist / f"Reader-{__version__}-setup.exe")
    return outputs


# --- macOS ----------------------------------------------------------------------------------

def build_macos(dist: Path) -> list[Path]:
    app = dist / "Reader.app"
    log(f"app bundle {app}: {dir_size(app) / 1e6:.1f} MB")
    sign = HERE / "macos" / "sign_and_notarize.sh"
    run(["bash", sign, app])
    dmg = dist / f"Reader-{__version__}-macos-{arch()}.dmg"
    run(["bash", HERE / "macos" / "make_dmg.sh", app, dmg])
    run(["bash", sign, dmg])
    return [dmg]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build Reader's installers for this OS.")
    parser.add_argument("--dist", type=Path, default=HERE / "dist")
    parser.add_argument("--work", type=Path, default=HERE / "build")
    parser.add_argument("--skip-pyinstaller", action="store_true",
                        help="reuse the app already in --dist")
    args = parser.parse_args(argv)
    dist = args.dist.resolve()

    ensure_icons()
    if not args.skip_pyinstaller:
        pyinstaller(dist, args.work.resolve())
    if sys.platform.startswith("linux"):
        outputs = build_linux(dist)
    elif sys.platform == "win32":
        outputs = build_windows(dist)
    elif sys.platform == "darwin":
        outputs = build_macos(dist)
    else:
        log(f"no installer recipe for {sys.platform}")
        return 1
    for out in outputs:
        log(f"output: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
