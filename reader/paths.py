"""Where the library lives: the data dir (CLI option, env var or platformdirs) and its files;
and where the app's own settings live (one file for every library: window, theme, columns)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from . import APP_NAME

ENV_DATA_DIR = "READER_DATA_DIR"
ENV_CONFIG_DIR = "READER_CONFIG_DIR"  # tests and portable installs point the global settings elsewhere


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def resolve_data_dir(cli_value: str | os.PathLike | None = None) -> Path:
    """The CLI option wins, then the READER_DATA_DIR env var, then the OS user-data dir."""
    if cli_value:
        return Path(cli_value).expanduser().resolve()
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        return Path(env).expanduser().resolve()
    return default_data_dir()


def config_dir() -> Path:
    """The folder of the app's global settings: READER_CONFIG_DIR, else the OS user-config dir."""
    env = os.environ.get(ENV_CONFIG_DIR)
    if env:
        return Path(env).expanduser().resolve()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def global_settings_file() -> Path:
    """Settings shared by every library (window geometry, theme, columns, recent libraries)."""
    return config_dir() / "settings.ini"


@dataclass(frozen=True)
class LibraryPaths:
    """The files inside one library folder."""

    root: Path

    @property
    def database(self) -> Path:
        return self.root / "library.sqlite3"

    @property
    def index_dir(self) -> Path:
        return self.root / "index"

    @property
    def backups_dir(self) -> Path:
        return self.root / "backups"

    @property
    def logs_dir(self) -> Path:
        return self.root / "logs"

    @property
    def sources_dir(self) -> Path:
        """Fetched responses and their parsed records (derived: reader.sources.cache and .parsed)."""
        return self.root / "sources"

    @property
    def settings_file(self) -> Path:
        """The library's own settings (its views, sort, vault, triage session)."""
        return self.root / "settings.ini"
