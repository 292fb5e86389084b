"""Drive the real window the way assistive technology does (AT-SPI on Linux) and check what it
exposes: the paper table (rows, cells with their text, the selection), the search box, the
sidebar and the status bar; the map (View → Map: what it shows, what is selected with Ctrl+A,
the paper under the pointer, the years); triage (View → Triage: the card's title, progress,
queue and meta read as their text); everywhere: named buttons and fields, plain-text
descriptions. Each part runs on its own: an object gone while walking (a page switched, cells
replaced by a search) is skipped, an error fails that part and the run goes on.

Run with the system Python, which has pyatspi (python3-pyatspi), on a machine with Xvfb,
dbus-x11 and at-spi2-core:
    /usr/bin/python3 scripts/atspi_check.py [--python /path/to/venv/python]
It starts Xvfb, a session bus and the accessibility bus, opens the app (with the given
Python, QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1) on a new library of the seeds, and prints what
it finds; the exit code is the number of failed checks. ATSPI_DISPLAY picks the X display (:97).
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
DISPLAY = os.environ.get("ATSPI_DISPLAY", ":97")


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


def _safe(fn, default=None):
    """An AT-SPI call on an object that may have gone away meanwhile ("No such object path"):
    a widget replaced while we walk (table cells after a search, a page switched) is skipped."""
    try:
        return fn()
    except Exception:
        return default


def _walk(node, limit=6000):
    """Every accessible under node (depth-first), bounded; objects gone while walking are skipped."""
    stack = [node]
    seen = 0
    while stack and seen < limit:
        n = stack.pop()
        seen += 1
        yield n
        count = _safe(lambda n=n: n.childCount, 0) or 0
        for i in range(count - 1, -1, -1):
            child = _safe(lambda n=n, i=i: n[i])
            if child is not None:
                stack.append(child)


def _name(n) -> str:
    return _safe(lambda: n.name, "") or ""


def _description(n) -> str:
    return _safe(lambda: n.description, "") or ""


def _role_of(n):
    return _safe(n.getRole)


def _showing(pyatspi, n) -> bool:
    return bool(_safe(lambda: n.getState().contains(pyatspi.STATE_SHOWING), False))


def _text(n) -> str:
    return _safe(lambda: n.queryText().getText(0, -1), "") or ""


def _find_app(pyatspi, name_part: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(_safe(lambda d=desktop: d.childCount, 0) or 0):
            app = _safe(lambda d=desktop, i=i: d[i])
            if app is not None and name_part in _name(app).lower():
                return app
        time.sleep(0.5)
    return None


class Checks:
    def __init__(self, dump: Path | None = None) -> None:
        self.failed = 0
        self.passed = 0
        self.dump = dump  # --dump: every shown accessible's role, name and description, per part

    def check(self, ok: bool, what: str, detail: str = "") -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}")
        self.failed += not ok
        self.passed += bool(ok)

    def section(self, title: str, run, *args) -> None:
        """One part of the check; an error in it is one failure, never the end of the run."""
        print(f"-- {title}")
        try:
            run(*args)
        except Exception as exc:  # an AT-SPI error: report it and go on with the next part
            self.check(False, f"{title} ran to the end", f"{type(exc).__name__}: {exc}")


def _roles(pyatspi):
    return type("Roles", (), {n[5:]: getattr(pyatspi, n) for n in dir(pyatspi) if n.startswith("ROLE_")})


def _wait_for(find, timeout: float = 20.0):
    """The first truthy find() within timeout (polled)."""
    deadline = time.monotonic() + timeout
    while True:
        found = find()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.3)


def _menu_item(pyatspi, app, label: str):
    role = _roles(pyatspi)
    for n in _walk(app):
        if _role_of(n) in (role.MENU_ITEM, role.CHECK_MENU_ITEM) and _name(n).replace("&", "") == label:
            return n
    return None


def _trigger(pyatspi, app, label: str) -> bool:
    """Run a menu entry (View → Map, View → Triage…) through its AT-SPI action, as a screen reader's
    user would from the menu."""
    item = _menu_item(pyatspi, app, label)
    if item is None:
        return False
    action = _safe(item.queryAction)
    if action is None or not _safe(lambda: action.nActions, 0):
        return False
    return bool(_safe(lambda: action.doAction(0), False))


def _key(pyatspi, keysym: str, ctrl: bool = False) -> None:
    """A key press as the keyboard would send it (XTest), to the focused widget."""
    reg = pyatspi.Registry
    if ctrl:
        reg.generateKeyboardEvent(37, None, pyatspi.KEY_PRESS)  # Control_L
    code = {"a": 38, "Escape": 9, "t": 28, "m": 58, "o": 32, "j": 44}[keysym]
    reg.generateKeyboardEvent(code, None, pyatspi.KEY_PRESSRELEASE)
    if ctrl:
        reg.generateKeyboardEvent(37, None, pyatspi.KEY_RELEASE)
    time.sleep(0.5)


def inspect_list(pyatspi, app, checks: Checks) -> None:
    role = _roles(pyatspi)
    nodes = list(_walk(app))
    print(f"{len(nodes)} accessibles under {_name(app)!r}")
    tables = [n for n in nodes if _role_of(n) == role.TABLE]
    checks.check(bool(tables), "a table is exposed", f"{len(tables)} table(s)")
    table = next((t for t in tables if _name(t)), tables[0] if tables else None)
    title_col = 1
    if table is not None:
        checks.check(bool(_name(table)), "the table has an accessible name", repr(_name(table)))
        t = table.queryTable()
        checks.check(t.nRows >= 50, "the table exposes its rows", f"{t.nRows} rows × {t.nColumns} columns")
        headers = [_safe(lambda c=c: t.getColumnDescription(c) or (t.getColumnHeader(c).name if t.getColumnHeader(c)
                                                                   else ""), "") for c in range(t.nColumns)]
        print(f"     column headers: {headers}")
        checks.check("Title" in headers, "column headers carry their names")
        title_col = headers.index("Title") if "Title" in headers else 1
        cells = [_safe(lambda r=r: t.getAccessibleAt(r, title_col)) for r in range(min(3, t.nRows))]
        texts = [_name(c) if c is not None else None for c in cells]
        print(f"     first titles: {texts}")
        checks.check(bool(texts) and all(texts) and all(len(x) > 10 for x in texts), "cells hold the real titles")
        selected = list(_safe(t.getSelectedRows, []) or [])
        checks.check(len(selected) == 1, "the selection is exposed", f"selected rows {selected}")
        if selected:
            cell = _safe(lambda: t.getAccessibleAt(selected[0], title_col))
            states = _safe(cell.getState) if cell is not None else None
            print(f"     selected title: {_name(cell) if cell else None!r}")
            checks.check(states is not None and states.contains(pyatspi.STATE_SELECTED),
                         "the selected cell says it is selected")
    entries = [n for n in nodes if _role_of(n) in (role.ENTRY, role.TEXT, role.PASSWORD_TEXT)
               and "search" in _name(n).lower()]
    checks.check(bool(entries), "the search box is exposed with a name",
                 repr(_name(entries[0])) if entries else "no entry named like search")
    if entries and table is not None:  # type a query the way an AT does: the table must follow
        entries[0].queryEditableText().setTextContents("attention")
        t = table.queryTable()
        _wait_for(lambda: _safe(lambda: t.nRows < 50, False), 15)
        shown = _text(entries[0])
        rows = _safe(lambda: t.nRows, -1)
        first = _name(_safe(lambda: t.getAccessibleAt(0, title_col))) if rows and rows > 0 else None
        checks.check(shown == "attention" and 0 < rows < 50, "a query typed through AT-SPI "
                     "filters the table", f"box {shown!r}, {rows} rows, first {first!r}")
        entries[0].queryEditableText().setTextContents("")
        _wait_for(lambda: _safe(lambda: t.nRows >= 50, False), 15)
    nodes = list(_walk(app))  # again: the table's cells were replaced by the search
    side = [n for n in nodes if _role_of(n) in (role.TREE, role.TREE_TABLE, role.LIST)
            and "sidebar" in (_name(n) + _description(n)).lower()]
    side = side or [n for n in nodes if _role_of(n) in (role.TREE, role.TREE_TABLE)]
    checks.check(bool(side), "the sidebar is exposed", repr(_name(side[0])) if side else "")
    if side:
        items = [_name(n) for n in _walk(side[0], limit=200) if _name(n) and n is not side[0]]
        print(f"     sidebar items: {items[:12]}")
        checks.check(any(i.startswith("All") for i in items) and any("Starred" in i for i in items),
                     "sidebar items carry their text", f"{len(items)} named items")
    bars = [n for n in nodes if _role_of(n) == role.STATUS_BAR]
    checks.check(bool(bars), "a status bar is exposed")
    if bars:
        print(f"     status bar: name {_name(bars[0])!r}")
        texts = [_name(n) for n in _walk(bars[0], limit=100) if _name(n)]
        print(f"     status bar parts: {texts}")
        checks.check("papers" in _name(bars[0]), "the status bar's own name reads its counts", repr(_name(bars[0])))
        checks.check(any("papers" in x for x in texts), "the status bar's counts are readable")
    _check_named_and_plain(pyatspi, nodes, checks)


SIGNS = "▾▸▴◂☆★○●✓✗✎×"  # signs a label or button draws; "…" and "→" read well


def _check_named_and_plain(pyatspi, nodes, checks: Checks, where: str = "") -> None:
    role = _roles(pyatspi)
    shown = [n for n in nodes if _showing(pyatspi, n)]
    if checks.dump is not None:
        with checks.dump.open("a", encoding="utf-8") as out:
            out.write(f"== shown{where or ' in the list'}: {len(shown)}\n")
            for n in shown:
                out.write(f"{_safe(n.getRoleName, '?')}\t{_name(n)!r}\t{_description(n)!r}\n")
    unnamed = [n for n in shown if _role_of(n) in (role.PUSH_BUTTON, role.ENTRY, role.TEXT, role.CHECK_BOX,
                                                    role.COMBO_BOX) and not _name(n)]
    checks.check(not unnamed, f"every shown button and text field{where} has a name",
                 ", ".join(f"{_safe(n.getRoleName, '?')}" for n in unnamed[:8]))
    marked = [f"{_name(n)!r}: {_description(n)[:60]!r}" for n in shown
              if "<" in _description(n) and ">" in _description(n)]
    checks.check(not marked, f"descriptions{where} are plain text (no HTML)", "; ".join(marked[:4]))
    # A drawn sign in a name ("▾ LIBRARY", "☆ Star", "Like ★", a tag chip's "×") is read out as its
    # Unicode name ("black down-pointing small triangle"): the name says what the sign shows, in words.
    signed = sorted({_name(n) for n in shown if any(ch in SIGNS for ch in _name(n))})
    checks.check(not signed, f"names{where} are words, not drawn signs", ", ".join(map(repr, signed[:10])))


def inspect_map(pyatspi, app, checks: Checks) -> None:
    role = _roles(pyatspi)
    checks.check(_trigger(pyatspi, app, "Map"), "View → Map runs through AT-SPI")

    def canvas():
        return next((n for n in _walk(app) if _showing(pyatspi, n) and _name(n).startswith("Map")
                     and any(ch.isdigit() for ch in _name(n)) and _role_of(n) not in (role.MENU_ITEM, role.CHECK_MENU_ITEM)), None)

    node = _wait_for(canvas, 60)
    checks.check(node is not None, "the map canvas says what it shows", repr(_name(node)) if node else "no canvas")
    if node is None:
        return
    print(f"     map description: {_description(node)!r}")
    _key(pyatspi, "a", ctrl=True)  # Ctrl+A on the focused map: every shown paper
    said = _wait_for(lambda: "selected" in (_name(node) + _description(node)) and
                     "no paper selected" not in (_name(node) + _description(node)).lower(), 10)
    checks.check(bool(said), "the map says what is selected", repr(_name(node)))
    ext = _safe(lambda: node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS))
    hovered = None
    if ext is not None:  # move the pointer over the canvas until a paper is under it
        for gy in range(1, 16):
            for gx in range(1, 20):
                x, y = ext.x + ext.width * gx // 20, ext.y + ext.height * gy // 16
                pyatspi.Registry.generateMouseEvent(x, y, "abs")
                time.sleep(0.1)
                if "under the pointer:" in _description(node).lower():
                    hovered = _description(node)
                    break
            if hovered:
                break
    checks.check(bool(hovered), "the map says which paper is under the pointer", repr(hovered))
    nodes = list(_walk(app))
    years = [n for n in nodes if _showing(pyatspi, n) and _name(n).startswith("Papers per year")]
    checks.check(bool(years) and any(ch.isdigit() for ch in _name(years[0]) + _description(years[0])),
                 "the year bar says its years", repr(_name(years[0]) + " / " + _description(years[0])) if years else "")
    _check_named_and_plain(pyatspi, nodes, checks, " on the map page")
    _key(pyatspi, "Escape")


def inspect_triage(pyatspi, app, checks: Checks) -> None:
    checks.check(_trigger(pyatspi, app, "Triage"), "View → Triage runs through AT-SPI")

    def label(role_word: str):
        return next((n for n in _walk(app) if _showing(pyatspi, n) and _description(n) == role_word), None)

    title = _wait_for(lambda: (lambda n: n if n is not None and len(_name(n)) > 10 else None)(label("Title")), 30)
    checks.check(title is not None, "the triage card's title is read as its text",
                 repr(_name(title)) if title is not None else "no label described as Title with text")
    for word, test in (("Progress", lambda s: "/" in s), ("Queue", lambda s: len(s) > 3),
                       ("Venue, year, method and authors", lambda s: True)):
        node = label(word)
        text = _name(node) if node is not None else ""
        checks.check(node is not None and text != word and test(text), f"the triage {word.lower()} is read as its text",
                     repr(text))
    abstract = next((n for n in _walk(app) if _showing(pyatspi, n) and _name(n) == "Abstract"
                     and _safe(lambda n=n: n.queryComponent().getExtents(pyatspi.DESKTOP_COORDS).width, 0)), None)
    read = _text(abstract) if abstract is not None else ""
    checks.check(len(read) > 100, "the triage card's abstract is read as its text", repr(read[:60]))
    _check_named_and_plain(pyatspi, list(_walk(app)), checks, " in triage")
    if title is not None:  # J: the next card; what is read follows it (a fixed name went stale)
        first, progress = _name(title), _name(label("Progress") or title)
        _key(pyatspi, "j")
        moved = _wait_for(lambda: (lambda n: n is not None and _name(n) not in ("", first))(label("Title")), 10)
        now = label("Progress")
        checks.check(bool(moved) and now is not None and _name(now) != progress,
                     "after J the card's title and progress are read anew",
                     f"{first!r} -> {_name(label('Title')) if label('Title') else None!r}; "
                     f"{progress!r} -> {_name(now) if now is not None else None!r}")
    _key(pyatspi, "Escape")


def inspect_open_library(pyatspi, app, checks: Checks) -> None:
    """Ctrl+O with the main window focused opens File → Open library… (it did nothing, twice)."""
    role = _roles(pyatspi)
    frame = next((n for n in _walk(app, limit=50) if _role_of(n) == role.FRAME), None)
    ext = _safe(lambda: frame.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)) if frame is not None else None
    if ext is not None:  # the pointer over the window: without a window manager, X gives it the keys
        pyatspi.Registry.generateMouseEvent(ext.x + ext.width // 2, ext.y + ext.height // 2, "abs")
        time.sleep(0.3)

    def dialog():
        return next((n for n in _walk(app) if _role_of(n) in (role.DIALOG, role.FILE_CHOOSER)
                     and "open library" in _name(n).lower()), None)

    _key(pyatspi, "o", ctrl=True)
    found = _wait_for(dialog, 10)
    checks.check(found is not None, "Ctrl+O opens File → Open library…", repr(_name(found)) if found else "no dialog")
    if found is not None:
        _key(pyatspi, "Escape")
        checks.check(_wait_for(lambda: dialog() is None, 10), "Esc closes it")


def inspect(pyatspi, app, checks: Checks) -> None:
    checks.section("the library list", inspect_list, pyatspi, app, checks)
    checks.section("Ctrl+O", inspect_open_library, pyatspi, app, checks)
    checks.section("the map", inspect_map, pyatspi, app, checks)
    checks.section("triage", inspect_triage, pyatspi, app, checks)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=str(ROOT.parent / "main" / ".venv" / "bin" / "python"))
    ap.add_argument("--dump", help="write every shown accessible (role, name, description) of each part to this file")
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
    dump = Path(args.dump) if args.dump else None
    if dump is not None:
        dump.write_text("", encoding="utf-8")
    checks = Checks(dump)
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
            print("app output:\n" + out[-int(os.environ.get("ATSPI_OUTPUT", "2000")):])
    print(f"{checks.passed} check(s) passed, {checks.failed} failed")
    return checks.failed


if __name__ == "__main__":
    sys.exit(main())
