#!/usr/bin/env bash
# Makes sure a headless-capable Chromium is on this machine for the browser tests
# (test/e2e/ui-page*.test.ts drive it with playwright-core; Playwright's own browser download
# is not used).
#
# Order: CHROMIUM_PATH if it is set and runs; else /usr/bin/chromium if it runs; else, as root
# with apt-get, Debian's `chromium` package is installed (with `fonts-nanum`, so that the page's
# Korean has glyphs in screenshots); otherwise one line says how.
#
# Usage: scripts/install-chromium.sh [--quiet] [--keep-going]
#   Prints the Chromium executable's path (nothing with --quiet).
#   --keep-going: on failure, say so and exit 0 (for `npm test`: only the browser tests then
#   fail, each naming `npm run install-chromium`).
set -euo pipefail

readonly DEFAULT_PATH='/usr/bin/chromium'
readonly HOW='install Debian'"'"'s chromium package (as root: apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH to a Chromium executable'

quiet=false
keep_going=false

fail() {
  echo "install-chromium: $*" >&2
  if [[ "$keep_going" == true ]]; then
    echo "install-chromium: going on without it; the browser tests will fail and say so" >&2
    exit 0
  fi
  exit 1
}

say() {
  if [[ "$quiet" == false ]]; then echo "$1"; fi
}

for arg in "$@"; do
  case "$arg" in
    --quiet | -q) quiet=true ;;
    --keep-going) keep_going=true ;;
    -h | --help)
      sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$arg' (usage: scripts/install-chromium.sh [--quiet] [--keep-going])" ;;
  esac
done

# True when the executable at $1 exists and answers --version.
works() {
  [[ -x "$1" ]] && "$1" --version >/dev/null 2>&1
}

if [[ -n "${CHROMIUM_PATH:-}" ]]; then
  works "$CHROMIUM_PATH" || fail "CHROMIUM_PATH=$CHROMIUM_PATH does not run ('$CHROMIUM_PATH --version' failed); $HOW"
  say "$CHROMIUM_PATH"
  exit 0
fi

if works "$DEFAULT_PATH"; then
  say "$DEFAULT_PATH"
  exit 0
fi

if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
  fail "no Chromium at $DEFAULT_PATH and this is not root with apt-get: $HOW"
fi

echo "install-chromium: installing Debian's chromium package (apt-get)" >&2
{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-nanum; } >&2 ||
  fail "apt-get could not install chromium; $HOW"
works "$DEFAULT_PATH" || fail "chromium was installed but '$DEFAULT_PATH --version' fails; $HOW"
say "$DEFAULT_PATH"
