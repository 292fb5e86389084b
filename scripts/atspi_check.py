"""Drive the real window the way assistive technology does (AT-SPI on Linux) and check what it
exposes: the paper table (rows, cells with their text, the selection), the search box, the
sidebar and the status bar, each with its real text and an accessible name.

Run with the system Python, which has pyatspi (python3-pyatspi), on a machine with Xvfb,
dbus-x11 and at-spi2-core:
    /usr/bin/python3 scripts/atspi_check.py [--python /path/to/venv/python]
It starts Xvfb, a session bus and the accessibility bus, opens the app (with the given
Python, QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1) on a new library of the seeds, and prints what
it finds; the exit code is the number of failed checks.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DISPLAY = ":97"


def _start_session(env: dict[str, str]) -> list[subprocess.Popen]:
    procs = [subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    time.sleep(1.0)
    out = subprocess.run(["dbus-launch", "--sh-syntax"], capture_output=True, text=True, env=env,
                         check=True).stdout
    for line in out.splitlines():  # DBUS_SESSION_BUS_ADDRESS='…'; export …; DBUS_SESSION_BUS_PID=…;
        if "=" in line and not line.startswith("export"):
            key, _, value = line.rstrip(";").partition("=")
            env[key] = value.strip("'")
    procs.append(subprocess.Popen(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(1.0)
    return procs


def _walk(node, depth=0, limit=4000):
    """Every accessible under node (depth-first), bounded."""
    stack = [node]
    seen = 0
    while stack and seen < limit:
        n = stack.pop()
        seen += 1
        yield n
        try:
            stack.extend(n[i] for i in range(n.childCount - 1, -1, -1))
        except Exception:  # a child that went away while walking
            continue


def _find_app(pyatspi, name_part: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop[i]
            if app is not None and name_part in (app.name or "").lower():
                return app
        time.sleep(0.5)
    return None


class Checks:
    def __init__(self) -> None:
        self.failed = 0

    def check(self, ok: bool, what: str, detail: str = "") -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}")
        self.failed += not ok


def inspect(pyatspi, app, checks: Checks) -> None:
    role = type("Roles", (), {n[5:]: getattr(pyatspi, n) for n in dir(pyatspi) if n.startswith("ROLE_")})
    nodes = list(_walk(app))
    print(f"{len(nodes)} accessibles under {app.name!r}")
    tables = [n for n in nodes if n.getRole() == role.TABLE]
    checks.check(bool(tables), "a table is exposed", f"{len(tables)} table(s)")
    table = next((t for t in tables if t.name), tables[0] if tables else None)
    if table is not None:
        checks.check(bool(table.name), "the table has an accessible name", repr(table.name))
        t = table.queryTable()
        checks.check(t.nRows >= 50, "the table exposes its rows", f"{t.nRows} rows × {t.nColumns} columns")
        headers = [t.getColumnDescription(c) or (t.getColumnHeader(c).name if t.getColumnHeader(c) else "")
                   for c in range(t.nColumns)]
        print(f"     column headers: {headers}")
        checks.check("Title" in headers, "column headers carry their names")
        title_col = headers.index("Title") if "Title" in headers else 1
        cells = [t.getAccessibleAt(r, title_col) for r in range(min(3, t.nRows))]
        texts = [c.name if c is not None else None for c in cells]
        print(f"     first titles: {texts}")
        checks.check(all(texts) and all(len(x) > 10 for x in texts), "cells hold the real titles")
        selected = list(t.getSelectedRows())
        checks.check(len(selected) == 1, "the selection is exposed", f"selected rows {selected}")
        if selected:
            cell = t.getAccessibleAt(selected[0], title_col)
            states = cell.getState() if cell is not None else None
            print(f"     selected title: {cell.name if cell else None!r}")
            checks.check(states is not None and states.contains(pyatspi.STATE_SELECTED),
                         "the selected cell says it is selected")
    entries = [n for n in nodes if n.getRole() in (role.ENTRY, role.TEXT, role.PASSWORD_TEXT)
               and "search" in (n.name or "").lower()]
    checks.check(bool(entries), "the search box is exposed with a name",
                 repr(entries[0].name) if entries else "no entry named like search")
    if entries:
        try:
            text = entries[0].queryText().getText(0, -1)
        except Exception:
            text = "(no text interface)"
        print(f"     search box text: {text!r}")
        if table is not None:  # type a query the way an AT does: the table must follow
            entries[0].queryEditableText().setTextContents("attention")
            t = table.queryTable()
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and t.nRows >= 50:
                time.sleep(0.3)
            shown = entries[0].queryText().getText(0, -1)
            first = t.getAccessibleAt(0, title_col).name if t.nRows else None
            checks.check(shown == "attention" and 0 < t.nRows < 50, "a query typed through AT-SPI "
                         "filters the table", f"box {shown!r}, {t.nRows} rows, first {first!r}")
    side = [n for n in nodes if n.getRole() in (role.TREE, role.TREE_TABLE, role.LIST)
            and "sidebar" in ((n.name or "") + (n.description or "")).lower()]
    side = side or [n for n in nodes if n.getRole() in (role.TREE, role.TREE_TABLE)]
    checks.check(bool(side), "the sidebar is exposed", repr(side[0].name) if side else "")
    if side:
        items = [n.name for n in _walk(side[0], limit=200) if n.name and n is not side[0]]
        print(f"     sidebar items: {items[:12]}")
        checks.check(any(i.startswith("All") for i in items) and any("Starred" in i for i in items),
                     "sidebar items carry their text", f"{len(items)} named items")
    bars = [n for n in nodes if n.getRole() == role.STATUS_BAR]
    checks.check(bool(bars), "a status bar is exposed")
    if bars:
        texts = [n.name for n in _walk(bars[0], limit=100) if n.name]
        print(f"     status bar: {texts}")
        checks.check(any("papers" in x for x in texts), "the status bar's counts are readable")
    unnamed = [n for n in nodes if n.getRole() in (role.PUSH_BUTTON, role.ENTRY, role.TEXT, role.CHECK_BOX,
                                                  role.COMBO_BOX) and not n.name and n.getState().contains(
        pyatspi.STATE_SHOWING)]
    checks.check(not unnamed, "every shown button and text field has a name",
                 ", ".join(f"{n.getRoleName()}" for n in unnamed[:8]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=str(ROOT.parent / "main" / ".venv" / "bin" / "python"))
    args = ap.parse_args()
    try:
        import pyatspi
    except ImportError:
        print("pyatspi not found: run with the system python3 (apt-get install python3-pyatspi)")
        return 1
    for tool in ("Xvfb", "dbus-launch"):
        if shutil.which(tool) is None:
            print(f"{tool} not found (apt-get install xvfb dbus-x11 at-spi2-core)")
            return 1
    env = dict(os.environ, DISPLAY=DISPLAY, QT_QPA_PLATFORM="xcb", QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1",
               QT_ACCESSIBILITY="1", NO_AT_BRIDGE="0", PYTHONPATH=str(ROOT), READER_NO_ERROR_DIALOG="1")
    env.pop("QT_QPA_PLATFORM_PLUGIN_PATH", None)
    procs = _start_session(env)
    os.environ.update({k: env[k] for k in ("DISPLAY", "DBUS_SESSION_BUS_ADDRESS") if k in env})
    tmp = Path(tempfile.mkdtemp(prefix="reader-atspi-"))
    env["READER_CONFIG_DIR"] = str(tmp / "config")
    app_proc = subprocess.Popen([args.python, "-m", "reader", "--data-dir", str(tmp / "lib")], env=env,
                                cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    checks = Checks()
    try:
        app = _find_app(pyatspi, "reader")
        checks.check(app is not None, "the app is on the accessibility bus")
        if app is not None:
            time.sleep(4.0)  # the seeds are imported and indexed, the first row selected
            inspect(pyatspi, app, checks)
    finally:
        app_proc.terminate()
        try:
            out = app_proc.communicate(timeout=20)[0].decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            app_proc.kill()
            out = app_proc.communicate()[0].decode("utf-8", "replace")
        for p in reversed(procs):
            p.terminate()
        if env.get("DBUS_SESSION_BUS_PID", "").isdigit():
            subprocess.run(["kill", env["DBUS_SESSION_BUS_PID"]], check=False)
        shutil.rmtree(tmp, ignore_errors=True)
        if checks.failed and out.strip():
            print("app output:\n" + out[-2000:])
    print(f"{checks.failed} check(s) failed")
    return checks.failed


if __name__ == "__main__":
    sys.exit(main())
