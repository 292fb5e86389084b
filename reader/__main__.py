"""Entry point: `reader` / `python -m reader` decides between the window and the headless CLI."""

from __future__ import annotations

import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    if getattr(sys, "frozen", False):  # elsewhere freeze_support does nothing: spare a CLI command the import
        import multiprocessing

        # Frozen builds re-run this entry point for index worker processes.
        multiprocessing.freeze_support()
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "--daily-maintenance":  # started detached by a CLI command
        from .store.health import run_detached

        return run_detached(Path(args[1]))
    from .cli import gui_request, run

    gui = gui_request(args)
    if gui is None:
        _install_png_renderer()
        return run(args)
    if gui.smoke_test:
        from .ui.smoke import run_smoke_test

        return run_smoke_test()
    from .ui.app import run as run_gui

    assert gui.data_dir is not None  # set whenever the window opens on a library
    return run_gui(gui.data_dir, import_paths=gui.open_paths or None)


def _install_png_renderer() -> None:
    """`reader map --png` paints with Qt, which the CLI never imports: handed in from here,
    loaded only when a PNG is asked for."""
    from .cli.map import set_png_renderer

    def render(*args: object) -> None:
        from .ui.map.render import render_png

        render_png(*args)  # type: ignore[arg-type]

    set_png_renderer(render)


if __name__ == "__main__":
    sys.exit(main())
