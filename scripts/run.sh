#!/usr/bin/env bash
# Install (if needed) and start Reader; a new library opens on the bundled ICML 2025 seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec .venv/bin/reader "$@"
