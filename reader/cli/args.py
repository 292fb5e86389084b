"""Argument parsing shared by the CLI modules (reader.cli and its cli_* command modules): the
parser class and argument types."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error (exit 2, as argparse's default) and help texts filled in
    only when a help is printed: some come from modules a command may never need (the importers'
    formats load every importer and its parsing libraries, triage's defaults load numpy), and
    every command builds the whole parser."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._help_fillers: list[Callable[[], None]] = []

    def error(self, message: str):  # argparse's default exits 2 too; keep the one-line form
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")

    def _parse_optional(self, arg_string: str) -> Any:
        """A word starting with one dash is a value when no option spells it: a query's
        negation (`reader search -is:starred`, `map --query -tag:old`) is not taken for an
        unknown option. Reader's only short option is -h; `--...` stays an option."""
        if (arg_string.startswith("-") and not arg_string.startswith("--") and len(arg_string) > 2
                and arg_string[:2] not in self._option_string_actions):
            return None
        return super()._parse_optional(arg_string)

    def fill_help_later(self, fill: Callable[[], None]) -> None:
        """Run `fill` (it sets help or description texts shown by this parser) before its help prints."""
        self._help_fillers.append(fill)

    def format_help(self) -> str:
        while self._help_fillers:
            self._help_fillers.pop(0)()
        return super().format_help()


def set_command_help(sub: Any, name: str, text: str) -> None:
    """The one-line help of subcommand `name` in its parent's command list (argparse keeps
    the list's entries apart from the subparsers themselves)."""
    for action in sub._choices_actions:  # where add_parser(help=...) puts it
        if action.dest == name:
            action.help = text


def positive_int(text: str) -> int:
    """A count of at least 1 (`--limit`), with a one-line message otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value
