"""The command line: `main` parses and dispatches, `args` holds the shared parsing helpers, and
`cite`, `map`, `triage` are command modules registered by `main` (none of them imports it)."""

from .main import GuiRequest, gui_request, run

__all__ = ["GuiRequest", "gui_request", "run"]
