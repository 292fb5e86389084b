"""Slow: build the Linux one-folder bundle with PyInstaller and smoke-test the frozen app."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux bundle"),
    pytest.mark.skipif(importlib.util.find_spec("PyInstaller") is None, reason="needs PyInstaller"),
]

ROOT = Path(__file__).resolve().parents[1]
# 116 MiB before the map; numpy (the map's layout) adds 38 MiB, 28 of them its unstripped OpenBLAS.
MAX_BUNDLE_BYTES = 160 * 1024 * 1024
# What the bundle may take from the system: glibc, libstdc++/libgcc_s, the GL/EGL drivers and
# libxcb/wayland (which come with them). Everything else must be inside the bundle.
SYSTEM_LIBS = {
    "libstdc++.so.6", "libgcc_s.so.1",
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libGL.so.1", "libEGL.so.1", "libOpenGL.so.0",
    "libGLX.so.0", "libxcb.so.1", "libwayland-client.so.0", "libwayland-cursor.so.0",
    "libwayland-egl.so.1",
}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("pyi")
    out = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--distpath", str(work / "dist"),
         "--workpath", str(work / "build"), str(ROOT / "packaging" / "reader.spec")],
        capture_output=True, text=True, timeout=900,
    )
    assert out.returncode == 0, out.stderr[-4000:]
    app = work / "dist" / "reader"
    assert (app / "reader").is_file()
    return app


def _run(app: Path, *args: str, env_extra: dict[str, str] | None = None, tmp: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "READER_DATA_DIR": str(tmp / "lib"),
           "HOME": str(tmp), **(env_extra or {})}
    return subprocess.run([str(app / "reader"), *args], env=env, capture_output=True, text=True, timeout=300)


def test_frozen_smoke_test_passes(bundle, tmp_path):
    out = _run(bundle, "--smoke-test", tmp=tmp_path)
    combined = out.stdout + out.stderr
    assert out.returncode == 0, combined[-4000:]
    assert "Traceback" not in combined


def test_frozen_smoke_test_without_system_fonts(bundle, tmp_path):
    conf = tmp_path / "fonts.conf"
    conf.write_text(f'<?xml version="1.0"?>\n<fontconfig><cachedir>{tmp_path}/fc</cachedir></fontconfig>\n')
    out = _run(bundle, "--smoke-test", env_extra={"FONTCONFIG_FILE": str(conf)}, tmp=tmp_path)
    assert out.returncode == 0, (out.stdout + out.stderr)[-4000:]
    assert "Traceback" not in out.stdout + out.stderr


def test_frozen_cli_finds_bundled_seeds(bundle, tmp_path):
    out = _run(bundle, "--version", tmp=tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("Reader ")
    seeds = bundle / "_internal" / "reader" / "seeds"
    assert sorted(p.name for p in seeds.glob("*.txt")) == sorted(p.name for p in (ROOT / "seeds").glob("*.txt"))
    assert (bundle / "_internal" / "reader" / "resources" / "fonts" / "DejaVuSans.ttf").is_file()


def test_bundle_is_small_and_pruned(bundle):
    size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file() and not p.is_symlink())
    assert size <= MAX_BUNDLE_BYTES, f"bundle is {size / 2**20:.1f} MiB"
    internal = bundle / "_internal"
    assert not list(internal.rglob("*.qm")), "Qt translations should be pruned"
    assert not list(internal.rglob("libQt6Network*")) and not list(internal.rglob("libQt6Quick*"))
    assert not list(internal.rglob("libqgtk3*")) and not list(internal.rglob("libqeglfs*"))
    assert list(internal.rglob("libqxcb.so")) and list(internal.rglob("libqoffscreen.so"))


def test_bundle_needs_only_basic_system_libs(bundle):
    spec = importlib.util.spec_from_file_location("bundle_rules", ROOT / "packaging" / "bundle_rules.py")
    assert spec and spec.loader
    rules = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rules)
    present = {p.name for p in bundle.rglob("*")}
    missing: dict[str, str] = {}
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink():
            for soname in rules.elf_needed(str(path)):
                if soname not in present and soname not in SYSTEM_LIBS:
                    missing[soname] = path.name
    assert not missing, f"system libraries the bundle relies on: {missing}"
