#!/usr/bin/env bash
# Run the whole test suite (core, GUI offscreen, frozen-bundle smoke test).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/pytest ] || bash scripts/install.sh
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
