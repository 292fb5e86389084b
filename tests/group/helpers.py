"""Helpers shared by the group tests."""

from __future__ import annotations

from pathlib import Path

from reader.cli import run


def cli(capsys, data_dir: Path, *args: str) -> tuple[int, str, str]:
    """`reader --data-dir DATA_DIR ARGS...`: (exit code, stdout, stderr)."""
    code = run(["--data-dir", str(data_dir), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err
