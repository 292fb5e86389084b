"""A package's names loaded on first use (PEP 562's module __getattr__): importing one light
submodule then does not load the heavy ones the package's other names come from."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_names(package: str, homes: dict[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """The package's `__getattr__`: name -> the attribute of `package.<homes[name]>`, imported
    and kept in `namespace` (the package's globals) at its first use."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__
