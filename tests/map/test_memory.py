"""Giving memory back during a layout: no work at import, harmless where glibc is absent."""

from __future__ import annotations

import importlib
import subprocess

import pytest

from reader.map import memory


def test_import_runs_no_subprocess_and_first_use_finds_libc(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ctypes.util.find_library` ran ldconfig in a subprocess at import (~55 ms of start-up)."""

    def refuse(*_a, **_k):
        raise AssertionError("a subprocess at import")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    fresh = importlib.reload(memory)
    fresh.give_back()
    fresh.map_big_blocks()  # on glibc: mallopt set once; elsewhere nothing
    fresh.map_big_blocks()
