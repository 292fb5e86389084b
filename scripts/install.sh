#!/usr/bin/env bash
# Install what Reader needs on Debian/Ubuntu: Qt's system libraries and a venv with the project.
set -euo pipefail
cd "$(dirname "$0")/.."

QT_LIBS="libglib2.0-0 libegl1 libgl1 libx11-6 libdbus-1-3 libfontconfig1 libxkbcommon0 \
libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0 \
libxkbcommon-x11-0 fonts-dejavu-core"
# binutils: PyInstaller reads the bundle's libraries with objdump.
EXTRA="python3-venv binutils"

if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  missing=""
  for pkg in $QT_LIBS $EXTRA; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
  done
  if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    $SUDO apt-get install -y -qq --no-install-recommends $missing
  fi
fi

PY="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test,package]'
