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
  libsuitesparse-dev  # SuiteSparseQR: the O(n) redundancy check at load (engine/constraints/sparse_row_basis.cpp)
  libcli11-dev
  libgtest-dev
  libgmock-dev
  libbenchmark-dev
  libmujoco-dev  # MuJoCo, for the side-by-side step bench (bench/mujoco_compare_bench.cpp)
  clang-format
  clang
  libclang-rt-14-dev
  libboost-dev
  libssl-dev       # OpenSSL: TLS on the control channel (rtmb serve --tls-cert, rtmb::Client TLS)
  libspdlog-dev
  libfmt-dev
  python3
  python3-dev      # the Python package (python/): headers the pybind11 module builds against
  python3-pybind11 # its bindings (brings pybind11-dev, the CMake package)
  python3-numpy    # its arrays (sim.q, sim.v, run() results)
  python3-pytest   # its tests (python/tests, run by ctest)
  python3-distributed # its sweeps (rtmb.sweep, rtmb sweep): Dask's scheduler, workers, LocalCluster
  python3-pandas   # the sweep's result table (DataFrame, CSV)
  gnuplot-nox
  chromium
  libsodium-dev  # the MAC of wire version 2 input datagrams (net/input_auth.cpp)
  pkg-config     # how CMake finds libsodium (net/CMakeLists.txt)
  liburdfdom-dev # URDF robots (rtmb run robot.urdf; engine/model_file/urdf_model_file.cpp)
  dart-doc       # real URDFs no one here wrote (Barrett WAM, KUKA KR5, DRC-Hubo) for the tests
)
# Node.js and npm (for the live view's three.js and the browser test's playwright-core, from the
# npm registry) are checked by command, not by package: a machine may have them from a package
# other than Debian's (e.g. a newer nodejs that bundles npm), and Debian's npm package would
# conflict with that. Missing ones come from Debian's nodejs and npm packages.

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

# web/node_modules from web/package-lock.json (npm ci: exact versions, no lock changes); quiet
# when the installed tree matches the lock file.
install_web_modules() {
  local web lock installed
  web="$(cd "$(dirname "${BASH_SOURCE[0]}")/../web" && pwd)"
  lock="$web/package-lock.json"
  installed="$web/node_modules/.package-lock.json"
  [[ -f "$lock" ]] || return 0
  # a worktree that links another checkout's node_modules shares it: npm ci would empty the
  # other checkout's copy through the link (it replaces the folder's contents)
  [[ -L "$web/node_modules" ]] && return 0
  if [[ -f "$installed" && "$installed" -nt "$lock" ]]; then
    return 0
  fi
  log "installing web/node_modules (npm ci: three.js, playwright-core)"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error </dev/null)
}

mapfile -t missing < <(not_installed "${PACKAGES[@]}")
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]} == 0)); then
  install_web_modules
  exit 0
fi

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
install_web_modules
log "done"
