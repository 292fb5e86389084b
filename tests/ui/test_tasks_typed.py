"""The thread boundary is typed (issue 32): mypy, run with the project's configuration, rejects a
job whose result is not what its callback takes, on every lane of the TaskRunner, and accepts the
matching pairs beside them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLANTED = '''\
from reader.ui.tasks import Task, TaskRunner


def count() -> int:
    return 3


def count_with(task: Task[int]) -> int:
    return 3


def show(text: str) -> None:
    print(text)


def plant(runner: TaskRunner) -> None:
    runner.write(count, lambda n: show(str(n)))  # fine
    runner.read("list", count, lambda n: show(n))  # WRONG: read
    runner.write(count, show)  # WRONG: write
    runner.background(count_with, show, with_task=True)  # WRONG: background
    runner.layout(count, lambda n: show(n))  # WRONG: layout
    runner.layout(count_with, lambda n: show(str(n)), with_task=True)  # fine
    done: Task[str] = runner.write(count)  # WRONG: the handle
'''


def test_mypy_rejects_a_job_whose_result_the_callback_does_not_take(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(PLANTED, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "cache"), "--no-error-summary", str(planted)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    flagged = {int(m.group(1)) for m in re.finditer(r"planted\.py:(\d+): error", run.stdout)}
    lines = PLANTED.splitlines()
    wrong = {n for n, line in enumerate(lines, 1) if "# WRONG" in line}
    fine = {n for n, line in enumerate(lines, 1) if "# fine" in line}
    assert run.returncode == 1, run.stdout + run.stderr
    assert flagged == wrong, run.stdout
    assert not flagged & fine
