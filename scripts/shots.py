"""Shared set-up for the screenshot scripts: wait on the event loop, open a window on the seeds."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def prepare() -> Path:
    """Offscreen Qt without error dialogs, the repository importable: the screenshots folder (made)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("READER_NO_ERROR_DIALOG", "1")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    out = ROOT / "screenshots"
    out.mkdir(exist_ok=True)
    return out


def out_and_sizes(doc: str | None, out: Path) -> tuple[Path, list[tuple[int, int]]]:
    """The command line's --out folder (made) and --size WxH (repeatable; 1024x640 unless given)."""
    import argparse

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(out))
    ap.add_argument("--size", action="append", help="the window's size, WxH (repeatable)")
    args = ap.parse_args()
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    sizes = []
    for text in args.size or ["1024x640"]:
        width, _, height = text.lower().partition("x")
        sizes.append((int(width), int(height)))
    return folder, sizes


def desktop_screen() -> None:
    """Offscreen, a desktop's screen for the window (1920 x 1200 available, as tests/ui/conftest.py
    gives): the offscreen platform's 800 x 800 kept a window resized to 1024 x 640 at 796 px wide.
    Under Xvfb (or any real screen) nothing changes: the screen given is the one used."""
    if not os.environ.get("QT_QPA_PLATFORM", "").startswith("offscreen"):
        return
    from PySide6.QtCore import QRect

    from reader.ui.window import window_size

    window_size.available = lambda _widget=None: QRect(0, 0, 1920, 1200)  # type: ignore[assignment]


def wait(app: Any, condition: Any, timeout: float = 30.0) -> None:
    """Run the event loop until `condition()` holds (or `timeout`), then let pending paints land."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    for _ in range(5):
        app.processEvents()


def out_folder(doc: str | None, out: Path) -> Path:
    """The command line's --out folder (made)."""
    import argparse

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(out))
    folder = Path(ap.parse_args().out)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def first_start(prefix: str) -> Iterator[tuple[Any, Any, Path, str]]:
    """A first start in a temporary folder (settings and library new: nothing of the user's read
    or changed): (app, the main window shown on the sample, indexed and idle, the folder, the
    screen's available size as 'WxH')."""
    from reader.library import Library
    from reader.ui.app import make_app
    from reader.ui.window.main_window import MainWindow

    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        os.environ["READER_CONFIG_DIR"] = str(Path(tmp) / "config")
        app = make_app()
        window = MainWindow(Library.open(Path(tmp) / "library"))
        window.show()
        wait(app, lambda: window.index_ready and not window.runner.busy and window.model.rowCount() > 0)
        area = window.screen().availableGeometry()
        yield app, window, Path(tmp), f"{area.width()}x{area.height()}"


def seeded_window(app: Any, folder: Path, theme: str = "light") -> Any:
    """A 1280×800 main window on a new library of the seeds in `folder`, indexed and idle."""
    from reader.library import Library
    from reader.ui.window.main_window import MainWindow

    desktop_screen()
    window = MainWindow(Library.open(folder), theme=theme)
    window.resize(1280, 800)
    window.show()
    wait(app, lambda: window.index_ready and not window.runner.busy)
    return window


def shoot_themes(app: Any, window: Any, out: Path, name: str) -> list[Path]:
    """Grab `window` in the light and the dark theme as `<out>/<name>-<theme>.png` (printed)."""
    paths = []
    for theme in ("light", "dark"):
        window.apply_theme(theme)
        wait(app, lambda: False, timeout=0.5)
        path = out / f"{name}-{theme}.png"
        window.grab().save(str(path))
        print(path)
        paths.append(path)
    return paths
