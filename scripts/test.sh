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
exec .venv/bin/python -m pytest "$@"
