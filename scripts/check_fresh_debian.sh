#!/usr/bin/env bash
# On demand, as root on a Debian/Ubuntu host: prove the README's set-up on a bare Debian 12.
# Builds a minbase bookworm root with debootstrap from this machine's apt mirror, clones this
# repository's HEAD into it and runs there, timed:
#   bash scripts/run.sh --smoke-test;  bash scripts/test.sh;  bash scripts/run.sh --smoke-test
# (the last one without network: a second start must go straight to the window, offline).
# Fails when one of them fails, when the second run.sh installs anything, or when the install
# prints a "Warning" line. Not part of scripts/test.sh: it needs root and the network, and takes
# a while (apt, pip and the whole suite with the PyInstaller bundle).
#
# Usage: bash scripts/check_fresh_debian.sh [--rebuild-base] [--busy N] [WORKDIR]
#   --busy N starts N CPU-bound processes (busy loops, normal priority) before anything else and
#   stops them at the end, so the whole check runs on a loaded machine: results must not depend
#   on load (no test may rely on a fixed timing).
#   WORKDIR (default /var/tmp/reader-fresh-debian) keeps the debootstrapped base (WORKDIR/base),
#   copied afresh to WORKDIR/root for every check, and the logs. READER_DEBIAN_MIRROR=URL
#   overrides the mirror.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"

REBUILD=""
BUSY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rebuild-base) REBUILD=1; shift ;;
    --busy)
      [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || { echo "check: --busy needs a number" >&2; exit 2; }
      BUSY="$2"; shift 2 ;;
    --busy=*)
      BUSY="${1#--busy=}"
      [[ "$BUSY" =~ ^[0-9]+$ ]] || { echo "check: --busy needs a number" >&2; exit 2; }
      shift ;;
    -*) echo "check: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
WORK="${1:-/var/tmp/reader-fresh-debian}"
BASE="$WORK/base"
ROOT="$WORK/root"
LOGS="$WORK/logs"
SUITE=bookworm

say() { echo "check: $*"; }
die() { echo "check: FAILED: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (debootstrap, chroot and mounts need it)"
command -v apt-get >/dev/null 2>&1 || die "needs a Debian/Ubuntu host (apt-get)"

# The first Debian mirror in the host's apt sources that serves $SUITE (deb822 or one-line form).
host_mirror() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case "$f" in
      *.sources)
        awk -v suite="$SUITE" '
          BEGIN { RS = ""; FS = "\n" }
          {
            uris = ""; suites = ""; deb = 0
            for (i = 1; i <= NF; i++) {
              if ($i ~ /^Types:/ && $i ~ /(^|[ \t])deb([ \t]|$)/) deb = 1
              if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
              if ($i ~ /^Suites:/) { suites = " " $i " "; sub(/^ Suites:/, "", suites) }
            }
            if (deb && index(suites " ", " " suite " ")) { split(uris, u, /[ \t]+/); print u[1]; exit }
          }' "$f" ;;
      *)
        awk -v suite="$SUITE" '
          $1 == "deb" {
            i = 2
            if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
            if ($(i + 1) == suite) { print $i; exit }
          }' "$f" ;;
    esac
  done | head -n 1
}

MIRROR="${READER_DEBIAN_MIRROR:-$(host_mirror)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

need=""
command -v debootstrap >/dev/null 2>&1 || need="debootstrap"
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || need="$need debian-archive-keyring"
if [ -n "$need" ]; then
  say "apt: $need (to build the Debian root)"
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
fi

mkdir -p "$WORK" "$LOGS"

# --- mounts, always undone -------------------------------------------------------------------
mounts_under() { awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r; }
unmount_all() {
  local m
  for m in $(mounts_under "$ROOT"); do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
}
BUSY_PIDS=()
stop_busy() {
  local p
  for p in "${BUSY_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${BUSY_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  BUSY_PIDS=()
}
cleanup() { stop_busy; unmount_all; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the load beside the check: N busy loops, started first, stopped by the trap ---------------
if [ "$BUSY" -gt 0 ]; then
  for _ in $(seq "$BUSY"); do
    ( trap - INT TERM; while :; do :; done ) &
    BUSY_PIDS+=("$!")
  done
  say "$BUSY CPU-bound processes running beside the check (pids ${BUSY_PIDS[*]})"
fi

fresh_root() {
  unmount_all
  [ -z "$(mounts_under "$ROOT")" ] || die "could not unmount everything under $ROOT"
  rm -rf --one-file-system "$ROOT"
  cp -a "$BASE" "$ROOT"
}

# --- the minbase Debian root -------------------------------------------------------------------
if [ -n "$REBUILD" ] || [ ! -f "$BASE/.debootstrap-complete" ]; then
  [ -z "$(mounts_under "$BASE")" ] || die "something is mounted under $BASE"
  rm -rf --one-file-system "$BASE"
  say "debootstrap --variant=minbase $SUITE from $MIRROR (log: $LOGS/debootstrap.log)"
  debootstrap --variant=minbase "$SUITE" "$BASE" "$MIRROR" >"$LOGS/debootstrap.log" 2>&1 ||
    { tail -n 30 "$LOGS/debootstrap.log" >&2; die "debootstrap"; }
  rm -rf "$BASE/var/cache/apt/archives/"*.deb
  touch "$BASE/.debootstrap-complete"
fi
say "fresh copy of the minbase root in $ROOT"
fresh_root
rm -f "$ROOT/.debootstrap-complete"
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The root trusts what the host trusts (e.g. a TLS-inspecting proxy's CA): the host's local CA
# certificates go where the root's ca-certificates package (installed by install.sh) picks them
# up, and pip is pointed at that bundle, as this host's pip is.
ROOT_ENV=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$ROOT/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
  ROOT_ENV+=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
  say "host CA certificates copied in: $(cd /usr/local/share/ca-certificates && echo *.crt)"
fi

mount -t proc proc "$ROOT/proc"
mount -t sysfs sys "$ROOT/sys"
mount --bind /dev "$ROOT/dev"
mount --bind /dev/pts "$ROOT/dev/pts"
mount -t tmpfs -o mode=1777 shm "$ROOT/dev/shm"  # POSIX semaphores for multiprocessing

# --- the repository, as committed ------------------------------------------------------------
HEAD="$(git -C "$REPO" rev-parse HEAD)"
[ -z "$(git -C "$REPO" status --porcelain --untracked-files=no)" ] ||
  say "note: uncommitted changes in $REPO are not part of the check (it clones HEAD)"
git clone --quiet "$REPO" "$ROOT/root/reader"
git -C "$ROOT/root/reader" checkout --quiet --detach "$HEAD"
say "cloned $(git -C "$REPO" log -1 --format='%h %s' "$HEAD" | cut -c1-80)"

# --- the README's commands -------------------------------------------------------------------
NET=()  # set to (unshare --net) for a run without any network
in_root() {  # a clean login-like environment: nothing from this host's shell leaks in
  "${NET[@]}" chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb "${ROOT_ENV[@]}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /root/reader && $1"
}
declare -A SECONDS_TAKEN
timed() {  # timed NAME COMMAND
  local start rc=0
  say "$2   (log: $LOGS/$1.log)"
  start=$EPOCHREALTIME
  in_root "$2" >"$LOGS/$1.log" 2>&1 || rc=$?
  SECONDS_TAKEN[$1]=$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN { printf "%.0f", a - b }')
  say "  exit $rc after ${SECONDS_TAKEN[$1]} s"
  if [ "$rc" -ne 0 ]; then tail -n 40 "$LOGS/$1.log" >&2; die "$2"; fi
}

timed run1 "bash scripts/run.sh --smoke-test"
sed 's/^/    | /' "$LOGS/run1.log"
timed test "bash scripts/test.sh"
tail -n 3 "$LOGS/test.log" | sed 's/^/    | /'
# The second start must need nothing from the network: run it with none.
NET=(unshare --net)
timed run2 "bash scripts/run.sh --smoke-test"
sed 's/^/    | /' "$LOGS/run2.log"

problems=0
if grep -q '^install:' "$LOGS/run2.log"; then
  say "PROBLEM: the second run.sh installed again"; problems=1
fi
if grep -q '^install:' "$LOGS/test.log"; then
  say "PROBLEM: test.sh installed again after run.sh"; problems=1
fi
if grep -i 'warning' "$LOGS/run1.log"; then
  say "PROBLEM: the install printed Warning lines (above)"; problems=1
fi
grep -q '^smoke test: ok' "$LOGS/run2.log" || { say "PROBLEM: second smoke test did not say ok"; problems=1; }
errors="$(grep -E '^=+ .*(failed|error)' "$LOGS/test.log" || true)"
[ -z "$errors" ] || { say "PROBLEM: $errors"; problems=1; }

summary="first run.sh --smoke-test ${SECONDS_TAKEN[run1]} s · test.sh ${SECONDS_TAKEN[test]} s ·"
summary="$summary second run.sh --smoke-test ${SECONDS_TAKEN[run2]} s"
[ "$BUSY" -eq 0 ] || summary="$summary · beside $BUSY busy loops"
echo "$(date -u +%FT%TZ) $HEAD $summary problems=$problems" >>"$WORK/summary.txt"
say "$summary"
[ "$problems" -eq 0 ] || die "see above"
say "ok: the README's commands work on a bare Debian 12 (logs in $LOGS)"
