#!/usr/bin/env bash
# Builds the images a real single-node Kubernetes on this machine runs (docs/cluster-images.md),
# without pulling anything: there is no registry, so each is built here with podman and
# imported into containerd (`--save` writes one archive for `ctr -n k8s.io images import`).
#
#   pause        the pod sandbox: the static pause binary of scripts/install-kubernetes.sh
#   lab-app      the seed lab's application (tools/lab-app, built here with CGO_ENABLED=0), and
#                the proxyless gRPC example beside it (examples/grpc-xds-go, grpc-go)
#   istio-proxy  laid out as Istio's proxyv2: the real pilot-agent, the pinned Envoy, Istio's
#                bootstrap template and Debian's iptables (legacy and nft) with glibc; also
#                named proxyv2, so that kube-inject's `hub`/`tag` values can point at it
#
# Each image's tag is the hash of everything that goes into it (its Containerfile in
# image/cluster/ and the files it copies): an image whose tag podman already has is not
# rebuilt, so a second run with nothing changed takes seconds. The pieces (the Debian root
# filesystem from mmdebstrap, the cut of it the proxy image gets, the lab app's binary) are
# cached, like scripts/build-image.sh's.
#
# Usage: scripts/build-cluster-images.sh [--save <file.tar>] [--print-tags] [--quiet]
#   --save <file.tar>  also write all the images into one docker-archive (`podman save -m`),
#                      for `ctr -n k8s.io images import <file.tar>` (kept when up to date)
#   --print-tags       print the image names the inputs give, without building any image
#   --quiet            no progress on stderr
# The last line on stdout names the images:
#   pause=localhost/mock-istiod/pause:<hash> lab-app=… istio-proxy=… istiod-ref=…
# Environment: KUBE_BIN_DIR (default <repo>/.kube/bin), ISTIO_BIN_DIR (<repo>/.istio/bin),
#   ENVOY_BIN (<repo>/.venv/bin/envoy), MOCK_ISTIOD_CLUSTER_IMAGE_CACHE (default
#   ${XDG_CACHE_HOME:-~/.cache}/mock-istiod/cluster-images), MOCK_ISTIOD_IMAGE_SOURCES (the
#   apt sources for the root filesystem; default /etc/apt/sources.list.d/debian.sources).
set -euo pipefail

readonly DEBIAN_SUITE='bookworm'
readonly PREFIX='localhost/mock-istiod'
# What the proxy image's root filesystem is cut from: Debian's iptables (which depends on
# netbase, glibc and the netfilter libraries) and the C++ runtime Envoy may load.
readonly ROOTFS_PACKAGES='iptables,libstdc++6'

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
here="$repo_root/image/cluster"
envoy_version="$(sed -n "s/^readonly ENVOY_VERSION='\(.*\)'$/\1/p" "$repo_root/scripts/install-envoy.sh")"
kube_bin="${KUBE_BIN_DIR:-$repo_root/.kube/bin}"
istio_bin="${ISTIO_BIN_DIR:-$repo_root/.istio/bin}"
envoy_bin="${ENVOY_BIN:-$repo_root/.venv/bin/envoy}"
cache="${MOCK_ISTIOD_CLUSTER_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mock-istiod/cluster-images}"
sources="${MOCK_ISTIOD_IMAGE_SOURCES:-/etc/apt/sources.list.d/debian.sources}"
save=''
print_tags=false
quiet=false

fail() {
  echo "build-cluster-images: $*" >&2
  exit 1
}

say() {
  if [[ "$quiet" == false ]]; then echo "build-cluster-images: $*" >&2; fi
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --save) save="${2:?--save needs a file}" && shift ;;
    --print-tags) print_tags=true ;;
    --quiet | -q) quiet=true ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$1' (see: scripts/build-cluster-images.sh --help)" ;;
  esac
  shift
done

missing=()
for tool in podman runc mmdebstrap python3 go sha256sum; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  fail "missing ${missing[*]}: install them with 'apt-get install -y podman buildah mmdebstrap runc python3' (Debian/Ubuntu), and Go >= 1.21 from go.dev/dl"
fi
[[ -n "$envoy_version" ]] || fail "could not read ENVOY_VERSION from scripts/install-envoy.sh"
[[ -f "$sources" ]] || fail "no apt sources at $sources (set MOCK_ISTIOD_IMAGE_SOURCES to a .sources or .list file)"

# The binaries the images carry, each with the script that makes it.
require_file() {
  [[ -f "$1" ]] || fail "no $1: $2"
}
require_file "$kube_bin/pause" "build it with scripts/install-kubernetes.sh (or set KUBE_BIN_DIR)"
require_file "$istio_bin/pilot-agent" "build it with scripts/install-istio.sh (or set ISTIO_BIN_DIR)"
require_file "$istio_bin/envoy_bootstrap.json" "scripts/install-istio.sh copies it from the Istio module"
require_file "$istio_bin/istiod-ref" "build it with scripts/install-istio.sh (or set ISTIO_BIN_DIR)"
require_file "$envoy_bin" "install the pinned Envoy with scripts/install-envoy.sh (or set ENVOY_BIN)"
# <venv>/bin/envoy is a link into the wheel: the image gets the file itself.
envoy_real="$(readlink -f "$envoy_bin")"
envoy_says="$("$envoy_real" --version 2>/dev/null)" || fail "$envoy_real does not run ('--version' failed)"
[[ "$envoy_says" == *"/$envoy_version/"* ]] ||
  fail "$envoy_real is not the pinned Envoy $envoy_version ($envoy_says): run scripts/install-envoy.sh"

mkdir -p "$cache"

# sha256 of stdin, first 12 hex digits.
short_hash() {
  sha256sum | cut -c1-12
}

# go_static <dir> <proxy>: builds the Go program in <repo>/<dir> as a static binary, once per
# source hash and Go version, with modules from <proxy> (off: the standard library only);
# prints its path in the cache.
go_static() {
  local dir="$1" proxy="$2" key bin
  key="$({
    go version
    (cd "$repo_root/$dir" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  } | short_hash)"
  bin="$cache/${dir##*/}-$key"
  if [[ ! -x "$bin" ]]; then
    say "building $dir (static, CGO_ENABLED=0)"
    (cd "$repo_root/$dir" && CGO_ENABLED=0 GOTOOLCHAIN=local GOPROXY="$proxy" GOSUMDB=off \
      GOFLAGS=-mod=mod go build -trimpath -ldflags '-s -w' -o "$bin.$$.tmp" .) >&2 ||
      fail "go build of $dir failed"
    mv -f "$bin.$$.tmp" "$bin"
  fi
  echo "$bin"
}

# The lab app (the standard library only), and the grpc-go example (examples/grpc-xds-go), the
# proxyless gRPC application of the cluster tests, in the lab app's image beside it: its
# modules (pinned by its go.sum) come from the Go module proxy once, then from Go's cache.
lab_bin="$(go_static tools/lab-app off)"
grpc_bin="$(go_static examples/grpc-xds-go "$(env -u GOPROXY go env GOPROXY)")"

# Debian with iptables, keyed by the suite, the packages and the apt sources it came from.
rootfs_key="$({
  echo "$DEBIAN_SUITE $ROOTFS_PACKAGES"
  cat "$sources"
} | short_hash)"
rootfs="$cache/rootfs-$DEBIAN_SUITE-iptables-$rootfs_key.tar"
if [[ ! -f "$rootfs" ]]; then
  say "making the $DEBIAN_SUITE root filesystem with $ROOTFS_PACKAGES (mmdebstrap, about a minute, once)"
  mmdebstrap --quiet --variant=minbase --include="$ROOTFS_PACKAGES" --format=tar \
    "$DEBIAN_SUITE" "$rootfs.$$.partial" "$sources" >&2 || fail "mmdebstrap failed"
  mv -f "$rootfs.$$.partial" "$rootfs"
fi

# What the proxy image keeps of it (scripts/lib/cut-rootfs.py): the packages' files without
# their docs and locales; the update-alternatives links (iptables -> iptables-nft, as in Istio's
# own base image); the users; writable directories for what the injection template mounts
# volumes over (so the image also runs without them, e.g. under podman); /run for the legacy
# variant's lock file, and /tmp. Every time stamp is 0, so that the same Debian packages give
# the same tar (and the same tag) from any mmdebstrap run.
proxy_rootfs_spec() {
  local owned='"uid": 1337, "gid": 1337'
  cat <<EOF
{
  "mtime": 0,
  "packages": ["iptables", "libstdc++6"],
  "exclude": ["usr/share/*", "usr/lib/*/gconv/*", "usr/sbin/ip*tables-apply", "etc/ld.so.conf*"],
  "patterns": ["usr/sbin/ip*tables", "usr/sbin/ip*tables-save", "usr/sbin/ip*tables-restore",
               "etc/alternatives/ip*tables", "etc/alternatives/ip*tables-save",
               "etc/alternatives/ip*tables-restore"],
  "dirs": [
    {"path": "tmp", "mode": "1777"},
    {"path": "run", "mode": "755"},
    {"path": "etc/istio/proxy", $owned},
    {"path": "etc/istio/pod", $owned},
    {"path": "etc/istio/custom-bootstrap", $owned},
    {"path": "etc/certs", $owned},
    {"path": "var/lib/istio/data", $owned},
    {"path": "var/run/secrets/istio", $owned},
    {"path": "var/run/secrets/tokens", $owned},
    {"path": "var/run/secrets/workload-spiffe-uds", $owned},
    {"path": "var/run/secrets/workload-spiffe-credentials", $owned},
    {"path": "var/run/secrets/credential-uds", $owned}
  ],
  "files": [
    {"path": "etc/passwd", "text": "root:x:0:0:root:/root:/sbin/nologin\\nistio-proxy:x:1337:1337:istio-proxy:/nonexistent:/sbin/nologin\\n"},
    {"path": "etc/group", "text": "root:x:0:\\nistio-proxy:x:1337:\\n"},
    {"path": "etc/nsswitch.conf", "text": "passwd: files\\ngroup: files\\nhosts: files dns\\n"}
  ]
}
EOF
}
cut_key="$({
  echo "$rootfs_key"
  sha256sum <"$repo_root/scripts/lib/cut-rootfs.py"
  proxy_rootfs_spec
} | short_hash)"
proxy_rootfs="$cache/istio-proxy-rootfs-$cut_key.tar"
if [[ ! -f "$proxy_rootfs" ]]; then
  say "cutting the proxy image's root filesystem out of $(basename "$rootfs")"
  proxy_rootfs_spec | python3 "$repo_root/scripts/lib/cut-rootfs.py" "$rootfs" "$proxy_rootfs.$$.tmp" 2>&1 |
    { if [[ "$quiet" == false ]]; then cat >&2; else cat >/dev/null; fi; }
  [[ "${PIPESTATUS[1]}" == 0 ]] || fail "could not cut the proxy image's root filesystem"
  mv -f "$proxy_rootfs.$$.tmp" "$proxy_rootfs"
fi

# Build contexts: a Containerfile and the files it copies, hard-linked from where they are
# (a copy across file systems). Removed on exit.
contexts="$(mktemp -d "${TMPDIR:-/tmp}/mock-istiod-cluster-images-XXXXXX")"
trap 'rm -rf "$contexts"' EXIT

# place <context> <source> <name>: puts one file into a context.
place() {
  ln -f "$2" "$1/$3" 2>/dev/null || cp -p "$2" "$1/$3" || fail "could not copy $2 into the build context"
}

# context <image> <source> <name> [<source> <name>]...: makes the context; prints its tag,
# the hash of the Containerfile and of every file's name, mode and content.
context() {
  local image="$1" dir="$contexts/$1"
  shift
  mkdir -p "$dir"
  cp "$here/$image.Containerfile" "$dir/Containerfile"
  while [[ $# -gt 0 ]]; do
    place "$dir" "$1" "$2"
    shift 2
  done
  (cd "$dir" && find . -type f -printf '%p %m\n' | sort && find . -type f -print0 | sort -z |
    xargs -0 sha256sum) | short_hash
}

# istiod-ref without its debug information (half its size), once per build of it.
istiod_ref="$cache/istiod-ref-$(sha256sum "$istio_bin/istiod-ref" | short_hash)"
if [[ ! -x "$istiod_ref" ]]; then
  say "stripping istiod-ref for its image"
  strip -o "$istiod_ref.$$.tmp" "$istio_bin/istiod-ref" 2>/dev/null ||
    cp -p "$istio_bin/istiod-ref" "$istiod_ref.$$.tmp" || fail "could not copy istiod-ref"
  mv -f "$istiod_ref.$$.tmp" "$istiod_ref"
fi

pause_tag="$(context pause "$kube_bin/pause" pause)"
lab_tag="$(context lab-app "$lab_bin" lab-app "$grpc_bin" grpc-xds-go)"
proxy_tag="$(context istio-proxy "$proxy_rootfs" rootfs.tar "$istio_bin/pilot-agent" pilot-agent \
  "$envoy_real" envoy "$istio_bin/envoy_bootstrap.json" envoy_bootstrap_tmpl.json)"
istiod_ref_tag="$(context istiod-ref "$proxy_rootfs" rootfs.tar "$istiod_ref" istiod-ref)"
pause_name="$PREFIX/pause:$pause_tag"
lab_name="$PREFIX/lab-app:$lab_tag"
proxy_name="$PREFIX/istio-proxy:$proxy_tag"
proxy_alias="$PREFIX/proxyv2:$proxy_tag"
istiod_ref_name="$PREFIX/istiod-ref:$istiod_ref_tag"
summary="pause=$pause_name lab-app=$lab_name istio-proxy=$proxy_name istiod-ref=$istiod_ref_name"

if [[ "$print_tags" == true ]]; then
  echo "$summary"
  exit 0
fi

# build <image> <name> [more names]: builds the context unless podman has the name already.
build() {
  local image="$1" name="$2"
  shift 2
  if podman image exists "$name"; then
    say "$name is up to date: not rebuilt"
  else
    say "building $name"
    local started=$SECONDS
    podman build --runtime runc --format docker --network none --quiet \
      --label "io.mock-istiod.image=$image" --label "io.mock-istiod.envoy-version=$envoy_version" \
      -t "$name" -f "$contexts/$image/Containerfile" "$contexts/$image" >/dev/null ||
      fail "podman build of $image failed"
    say "built $name in $((SECONDS - started)) s"
  fi
  local alias
  for alias in "$@"; do podman tag "$name" "$alias" || fail "podman tag $name $alias failed"; done
}

# Each also as :latest, the name a hand-written manifest can use (docs/kubernetes.md); the
# hash-tagged name is the one the tests use.
latest() { echo "${1%:*}:latest"; }
build pause "$pause_name" "$(latest "$pause_name")"
build lab-app "$lab_name" "$(latest "$lab_name")"
build istio-proxy "$proxy_name" "$proxy_alias" "$(latest "$proxy_name")" "$(latest "$proxy_alias")"
build istiod-ref "$istiod_ref_name" "$(latest "$istiod_ref_name")"

# One docker-archive with every image, kept when it already holds these names and is unchanged
# since it was written (a stamp in the cache records its path, the names, its size and time;
# the stamps of archives that are gone are dropped).
if [[ -n "$save" ]]; then
  names=("$pause_name" "$lab_name" "$proxy_name" "$proxy_alias" "$istiod_ref_name")
  for name in "$pause_name" "$lab_name" "$proxy_name" "$proxy_alias" "$istiod_ref_name"; do
    names+=("$(latest "$name")")
  done
  save="$(realpath -m "$save")"
  stamp="$cache/saved-$(echo "$save" | short_hash)"
  for old in "$cache"/saved-*; do
    [[ -f "$old" && -f "$(head -n1 "$old")" ]] || rm -f "$old"
  done
  describe() { printf '%s\n%s %s\n' "$save" "${names[*]}" "$(stat -c '%s %Y' "$save" 2>/dev/null)"; }
  if [[ -f "$save" && -f "$stamp" && "$(<"$stamp")" == "$(describe)" ]]; then
    say "$save holds these images already: not rewritten"
  else
    say "saving the images into $save (docker-archive)"
    mkdir -p "$(dirname "$save")"
    rm -f "$save.$$.partial"
    podman save --quiet --format docker-archive --multi-image-archive -o "$save.$$.partial" "${names[@]}" ||
      fail "podman save into $save failed"
    mv -f "$save.$$.partial" "$save"
    describe >"$stamp"
  fi
fi
echo "$summary"
