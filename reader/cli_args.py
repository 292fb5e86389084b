"""Argument types shared by the CLI modules (reader.cli and its cli_* command modules)."""

from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """A count of at least 1 (`--limit`), with a one-line message otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
