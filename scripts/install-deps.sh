#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
#
# Installs the Debian 12 packages rtmb needs to build, test, benchmark and format.
#
# Every make target calls this first, so it must be cheap and silent when nothing is missing: it
# asks dpkg-query only, and touches apt (update + install) only for packages that are absent.
# It never prompts: it works with no stdin and CI=true (sudo -n when there is no terminal).
#
# Usage: scripts/install-deps.sh          install what is missing (quiet if nothing is)
#        scripts/install-deps.sh --list   print the package list, one per line
# RTMB_SKIP_DEPS=1 skips the check, for machines whose dependencies come from elsewhere.
set -euo pipefail

# The one list of packages. Add new dependencies here, one per line.
readonly PACKAGES=(
  build-essential
  cmake
  ninja-build
  ccache
  libeigen3-dev
  libyaml-cpp-dev
  libcli11-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  clang-format
  clang
  libclang-rt-14-dev
  libboost-dev
  libspdlog-dev
  libfmt-dev
  python3
  gnuplot-nox
)

log() { printf 'install-deps: %s\n' "$*" >&2; }

if [[ "${1:-}" == "--list" ]]; then
  printf '%s\n' "${PACKAGES[@]}"
  exit 0
fi
[[ "${RTMB_SKIP_DEPS:-0}" == 1 ]] && exit 0

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  log "not a Debian system; install the equivalents of: ${PACKAGES[*]}"
  log "then set RTMB_SKIP_DEPS=1 to silence this check"
  exit 0
fi

# Prints the arguments that are not installed. Only "installed" counts: a removed package leaves
# a "config-files" entry behind.
not_installed() {
  local pkg status
  for pkg in "$@"; do
    status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
    [[ "$status" == installed ]] || printf '%s\n' "$pkg"
  done
}

mapfile -t missing < <(not_installed "${PACKAGES[@]}")
((${#missing[@]} == 0)) && exit 0

# root runs apt directly; anyone else goes through sudo, which may only ask for a password when
# someone is there to type it
as_root=()
if ((EUID != 0)); then
  if ! command -v sudo >/dev/null 2>&1; then
    log "missing packages: ${missing[*]}"
    log "run as root: apt-get install --no-install-recommends ${missing[*]}"
    exit 1
  fi
  as_root=(sudo)
  [[ -t 0 ]] || as_root+=(-n)
fi

# env passes DEBIAN_FRONTEND through sudo, which resets the environment; the lock timeout waits
# out unattended-upgrades, which often holds the dpkg lock right after a fresh machine boots
apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600)

log "installing missing packages: ${missing[*]}"
"${apt[@]}" update -qq </dev/null
"${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" </dev/null

# apt can exit 0 without installing everything (e.g. a held package); say so here rather than
# as a confusing CMake error later
mapfile -t still_missing < <(not_installed "${missing[@]}")
if ((${#still_missing[@]} != 0)); then
  log "still missing after apt-get install: ${still_missing[*]}"
  exit 1
fi
log "done"
