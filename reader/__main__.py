"""Entry point: `reader` / `python -m reader` (GUI without a subcommand, headless CLI with one)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    import multiprocessing

    # Frozen builds re-run this entry point for index worker processes.
    multiprocessing.freeze_support()
    from .cli import run

    return run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
