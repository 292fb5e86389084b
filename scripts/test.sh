#!/usr/bin/env bash
# Run ruff, mypy and the whole test suite (core, GUI offscreen, packaging incl. the slow wheel and frozen-bundle
# tests). Installs first only when needed (see scripts/install.sh --if-changed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --if-changed
# Lint and types first: a finding fails the run before the tests start.
.venv/bin/ruff check reader tests benchmarks scripts packaging
.venv/bin/mypy
export QT_QPA_PLATFORM=offscreen
# The tests run in worker processes (pytest-xdist), one per core up to four, each taking whole
# files (--dist loadfile: a module's shared fixtures are built once, in one worker), the slowest
# files first (SLOW_FILES in tests/conftest.py). Every test keeps to its own tmp_path, and each
# worker has its own offscreen QApplication. READER_TEST_WORKERS=0 runs them all in this process.
workers="${READER_TEST_WORKERS:-$(nproc)}"
[ "$workers" -le 4 ] || workers=4
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
