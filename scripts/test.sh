#!/usr/bin/env bash
# Run the whole test suite (core, GUI offscreen, packaging incl. the slow wheel and frozen-bundle
# tests). Installs first only when needed (see scripts/install.sh --if-changed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --if-changed
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
