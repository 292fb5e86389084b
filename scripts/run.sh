#!/usr/bin/env bash
# Start Reader (a new library opens on the bundled ICML 2025 seeds). Installs first only when
# needed: no .venv yet, or pyproject.toml/setup.py/scripts/install.sh changed since the last install.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --if-changed
exec .venv/bin/reader "$@"
