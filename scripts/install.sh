#!/usr/bin/env bash
# Install what Reader and its tests need on Debian/Ubuntu: system packages (apt), then .venv with
# the project (editable, with the test and package extras). One line per step; each step's own
# output goes to a log that is shown when the step fails.
#   --if-changed   do nothing when .venv was installed from this pyproject.toml/setup.py/install.sh
# PYTHON=/path/to/python picks the interpreter for a new .venv (default: python3).
set -euo pipefail
cd "$(dirname "$0")/.."

STAMP=.venv/.reader-installed
fingerprint() { cat pyproject.toml setup.py scripts/install.sh | sha256sum | cut -d' ' -f1; }

if [ "${1:-}" = "--if-changed" ] && [ -x .venv/bin/reader ] && [ -f "$STAMP" ] &&
   [ "$(cat "$STAMP")" = "$(fingerprint)" ]; then
  exit 0
fi

LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
say() { echo "install: $*"; }
fail() { echo "install: FAILED: $*" >&2; tail -n 60 "$LOG" >&2; exit 1; }
logged() { "$@" >"$LOG" 2>&1 || fail "$*"; }

PY="${PYTHON:-python3}"
# Version, whether Debian/Ubuntu's own (prefix /usr), and whether its shared libpython exists.
py_facts() {
  "$1" - <<'EOF'
import os, sys, sysconfig
v = sysconfig.get_config_var
so = v("INSTSONAME") or v("LDLIBRARY") or ""
dirs = [v("LIBDIR") or "", os.path.join(v("LIBDIR") or "", v("MULTIARCH") or ""), os.path.join(sys.base_prefix, "lib")]
shared = so.endswith((".so", ".dylib")) or ".so." in so
found = shared and any(os.path.isfile(os.path.join(d, so)) for d in dirs if d)
print(f"{sys.version_info[0]}.{sys.version_info[1]}", int(sys.base_prefix == "/usr"), int(found))
EOF
}

# --- system packages (apt) -------------------------------------------------------------------
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install: needs root or sudo for apt-get" >&2; exit 1; }
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  updated=""
  apt_update() { [ -n "$updated" ] || { logged $SUDO apt-get update; updated=1; }; }
  missing() { for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || printf '%s ' "$p"; done; }
  # Collect what is missing, say why, then install it in one apt-get call.
  todo=""
  want() {  # want "why" pkg...
    local m
    m="$(missing "${@:2}")"
    [ -z "$m" ] && return 0
    say "apt: ${m% } ($1)"
    todo="$todo $m"
  }
  want "Qt's system libraries and a fallback font" libglib2.0-0 libegl1 libgl1 libx11-6 \
    libdbus-1-3 libfontconfig1 libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 \
    libxcb-image0 libxcb-keysyms1 libxcb-render-util0 libxcb-shape0 fonts-dejavu-core
  want "PyInstaller reads the bundle's libraries with objdump" binutils
  want "HTTPS certificates for pip's downloads" ca-certificates
  if ! command -v "$PY" >/dev/null 2>&1; then
    want "Python 3 with its venv module, to create .venv" python3 python3-venv
  fi
  if [ -n "$todo" ]; then
    apt_update
    # shellcheck disable=SC2086
    logged $SUDO apt-get install -y --no-install-recommends $todo
  fi

  read -r PYVER PYDEB PYSHARED <<<"$(py_facts "$PY")"
  todo=""
  if [ "$PYDEB" = 1 ]; then
    want "the venv module of Debian's Python $PYVER" "python$PYVER-venv"
    if [ "$PYSHARED" = 0 ]; then
      # Ubuntu 24.04 renamed it (64-bit time_t): libpython3.12t64; Debian 12: libpython3.11.
      apt_update
      lib="libpython$PYVER"
      apt-cache show "${lib}t64" >/dev/null 2>&1 && lib="${lib}t64"
      want "the shared libpython that PyInstaller puts in the bundle" "$lib"
    fi
  fi
  if [ -n "$todo" ]; then
    apt_update
    # shellcheck disable=SC2086
    logged $SUDO apt-get install -y --no-install-recommends $todo
  fi
else
  say "no apt-get: install Qt's libraries, binutils and a shared libpython yourself"
fi

command -v "$PY" >/dev/null 2>&1 || { echo "install: $PY not found (set PYTHON=...)" >&2; exit 1; }
read -r PYVER PYDEB PYSHARED <<<"$(py_facts "$PY")"
if [ "$PYSHARED" = 0 ] && [ "$PYDEB" = 0 ]; then
  # Not Debian's Python and built without --enable-shared: nothing apt can add for it.
  say "note: $(command -v "$PY") has no shared libpython; the frozen-bundle test needs one" \
      "(rebuild it with --enable-shared, e.g. PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install)"
fi

# --- .venv with the project ------------------------------------------------------------------
if ! { [ -x .venv/bin/python ] && .venv/bin/python -c "" 2>/dev/null; }; then
  say "venv: .venv from $(command -v "$PY") (Python $PYVER)"
  rm -rf .venv
  logged "$PY" -m venv .venv
fi

# pip's own chatter stays out; anything else it says is shown. This machine's pip config names
# local index folders that may lack a project: that "Location ... is ignored" note is dropped.
pip_step() {
  local rc=0
  .venv/bin/python -m pip -q --disable-pip-version-check "$@" >"$LOG" 2>&1 || rc=$?
  grep -v -E "^WARNING: Location '[^']*' is ignored: it is neither a file nor a directory\.$" "$LOG" >&2 || true
  [ "$rc" -eq 0 ] || { echo "install: FAILED: pip $* (exit $rc)" >&2; exit "$rc"; }
}
say "pip: upgrade pip inside .venv"
pip_step install --upgrade pip
say "pip: Reader (editable) with the test and package extras: pip install -e '.[test,package]'"
pip_step install -e '.[test,package]'

fingerprint >"$STAMP"
say "done: .venv is ready"
