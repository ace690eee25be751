#!/usr/bin/env bash
# Builds a single-node Kubernetes for scripts/cluster.sh and the cluster tests, from the Go
# module proxy and Debian's packages alone: nothing is downloaded from anywhere else.
#
# - kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy and kubectl
#   from k8s.io/kubernetes at one pinned version, in a scratch module that replaces each of
#   its k8s.io staging modules with the published release of the same minor (the staging
#   directories are not in the module). The version is stamped with -ldflags -X, so that
#   kubectl and the API server report it instead of `v0.0.0-master`.
# - CoreDNS from github.com/coredns/coredns, with only the plugins a cluster's DNS needs
#   (kubernetes, forward-less: the cluster here has no upstream resolver), in its own module.
# - a pause binary (static, waits for SIGTERM/SIGINT and reaps children) for the pause image.
# - etcd, containerd, runc, iptables, conntrack and the CNI plugins from apt (as root), when
#   they are missing.
#
# The binaries go into <repo>/.kube/bin (git-ignored), with a stamp of the versions and of this
# script's build steps, so a second run does nothing. A copy is kept in a cache outside the
# checkout (MOCK_ISTIOD_KUBE_CACHE, default ~/.cache/mock-istiod/kubernetes/<stamp hash>), so
# a fresh clone on the same machine copies them in seconds instead of linking them again. With
# a warm Go build cache (the one the Istio build fills too) a rebuild takes a few minutes;
# cold, 10-15 minutes on 2 cores.
#
# Usage: scripts/install-kubernetes.sh [--quiet] [--keep-going]
#   Prints the folder holding the binaries (nothing with --quiet); progress goes to stderr.
#   --keep-going: on failure, say so and exit 0 (the cluster tests then fail and name this
#   script).
#   KUBE_BIN_DIR=/path: use or build into that folder instead.
set -euo pipefail

readonly KUBERNETES_VERSION='v1.34.4'
readonly STAGING_VERSION='v0.34.4'
readonly COREDNS_VERSION='v1.13.2'
readonly KUBE_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
readonly BINARIES=("${KUBE_COMMANDS[@]}" coredns pause)
readonly APT_PACKAGES=(etcd-server containerd runc containernetworking-plugins iptables conntrack)

quiet=false
keep_going=false

fail() {
  echo "install-kubernetes: $*" >&2
  if [[ "$keep_going" == true ]]; then
    echo "install-kubernetes: going on without it; the cluster tests will fail" >&2
    exit 0
  fi
  exit 1
}

say() {
  if [[ "$quiet" == false ]]; then echo "$1"; fi
}

progress() {
  echo "install-kubernetes: $1" >&2
}

for arg in "$@"; do
  case "$arg" in
    --quiet | -q) quiet=true ;;
    --keep-going) keep_going=true ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$arg' (usage: scripts/install-kubernetes.sh [--quiet] [--keep-going])" ;;
  esac
done

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="${KUBE_BIN_DIR:-$repo_root/.kube/bin}"
stamp="$bin_dir/.kubernetes-version"
# What the stamp records: the pinned versions and the build recipe below (this script's text
# from build_all on), so an edit to either rebuilds.
recipe_hash="$(sed -n '/^build_all()/,$p' "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"
stamp_text="kubernetes:$KUBERNETES_VERSION coredns:$COREDNS_VERSION recipe:$recipe_hash"

seconds_since() {
  echo $((SECONDS - $1))
}

# shellcheck source-path=SCRIPTDIR source=lib/machine-cache.sh
source "$repo_root/scripts/lib/machine-cache.sh"
cache_dir="$(machine_cache_dir kubernetes "${MOCK_ISTIOD_KUBE_CACHE:-}" "$stamp_text")"

has_all_binaries() {
  local name
  for name in "${BINARIES[@]}"; do [[ -x "$1/$name" ]] || return 1; done
}

already_built() {
  [[ -f "$stamp" && "$(<"$stamp")" == "$stamp_text" ]] && has_all_binaries "$bin_dir"
}

# A build of the same recipe made by another checkout on this machine.
copy_from_cache() {
  machine_cache_restore "$cache_dir" "$bin_dir" .kubernetes-version "$stamp_text" "${BINARIES[@]}" || return 1
  progress "copied the binaries from the cache $cache_dir"
}

# One build per machine: an older recipe's binaries (about 560 MB) go.
save_to_cache() {
  machine_cache_save "$cache_dir" "$bin_dir" .kubernetes-version "$stamp_text" "${BINARIES[@]}"
}

missing_packages() {
  local tool missing=()
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  command -v containerd >/dev/null 2>&1 || missing+=(containerd)
  command -v runc >/dev/null 2>&1 || missing+=(runc)
  [[ -x /usr/lib/cni/bridge || -x /opt/cni/bin/bridge ]] || missing+=(containernetworking-plugins)
  for tool in iptables conntrack; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
  echo "${missing[*]}"
}

install_packages() {
  local missing
  missing="$(missing_packages)"
  [[ -z "$missing" ]] && return 0
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    fail "missing: $missing (install them with apt-get as root: ${APT_PACKAGES[*]})"
  fi
  progress "installing $missing with apt-get"
  # shellcheck disable=SC2086 # one word per package
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } >/dev/null ||
    fail "apt-get could not install $missing"
}

work=''
built=false
cleanup_build() {
  if [[ -n "$work" ]]; then
    if [[ "$built" == false && -f "$work/build.log" ]]; then
      cp -f "$work/build.log" "$bin_dir/install-kubernetes.log" 2>/dev/null
    fi
    rm -rf "$work"
  fi
  return 0
}

build_all() {
  command -v go >/dev/null 2>&1 || fail "Go is needed to build Kubernetes but 'go' is not on PATH (install Go >= 1.24)"
  mkdir -p "$bin_dir" || fail "cannot create $bin_dir"
  rm -f "$stamp"
  work="$(mktemp -d "${TMPDIR:-/tmp}/install-kubernetes.XXXXXX")"
  trap cleanup_build EXIT
  local log="$work/build.log" start=$SECONDS step
  progress "k8s.io/kubernetes@$KUBERNETES_VERSION, coredns@$COREDNS_VERSION with $(go version | cut -d' ' -f3); building in $work"
  write_modules "$work"
  progress "[1/3] resolving the modules (go mod tidy)"
  (cd "$work/kube" && go mod tidy) >>"$log" 2>&1 || fail "could not resolve k8s.io/kubernetes@$KUBERNETES_VERSION (see $bin_dir/install-kubernetes.log)"
  (cd "$work/coredns" && go mod tidy) >>"$log" 2>&1 || fail "could not resolve coredns@$COREDNS_VERSION (see $bin_dir/install-kubernetes.log)"
  progress "      done in $(seconds_since "$start") s"
  step=$SECONDS
  progress "[2/3] building ${KUBE_COMMANDS[*]} (10-15 minutes on 2 cores with a cold Go build cache; a few warm)"
  mkdir -p "$work/out"
  local packages=() name
  for name in "${KUBE_COMMANDS[@]}"; do packages+=("k8s.io/kubernetes/cmd/$name"); done
  (cd "$work/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "$(version_ldflags)" -o "$work/out/" "${packages[@]}") >>"$log" 2>&1 ||
    fail "go build of Kubernetes failed (see $bin_dir/install-kubernetes.log)"
  progress "      done in $(seconds_since "$step") s"
  step=$SECONDS
  progress "[3/3] building coredns and pause"
  (cd "$work/coredns" && CGO_ENABLED=0 go build -trimpath -o "$work/out/coredns" .) >>"$log" 2>&1 ||
    fail "go build of coredns failed (see $bin_dir/install-kubernetes.log)"
  (cd "$work/pause" && CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/out/pause" .) >>"$log" 2>&1 ||
    fail "go build of pause failed (see $bin_dir/install-kubernetes.log)"
  progress "      done in $(seconds_since "$step") s"
  for name in "${BINARIES[@]}"; do mv -f "$work/out/$name" "$bin_dir/$name"; done
  "$bin_dir/kubectl" version --client >/dev/null 2>&1 || fail "$bin_dir/kubectl does not run"
  echo "$stamp_text" >"$stamp"
  built=true
  rm -f "$bin_dir/install-kubernetes.log"
  progress "installed in $bin_dir in $(seconds_since "$start") s"
}

version_ldflags() {
  local pkg='k8s.io/component-base/version' minor
  minor="$(echo "$KUBERNETES_VERSION" | cut -d. -f2)"
  printf '%s ' -s -w \
    "-X $pkg.gitVersion=$KUBERNETES_VERSION" "-X $pkg.gitMajor=1" "-X $pkg.gitMinor=$minor" \
    "-X $pkg.gitTreeState=clean" "-X $pkg.buildDate=1970-01-01T00:00:00Z" \
    "-X $pkg.gitCommit=0000000000000000000000000000000000000000" \
    "-X k8s.io/client-go/pkg/version.gitVersion=$KUBERNETES_VERSION" \
    "-X k8s.io/client-go/pkg/version.gitMajor=1" "-X k8s.io/client-go/pkg/version.gitMinor=$minor"
}

write_modules() {
  local dir="$1" staging
  mkdir -p "$dir/kube" "$dir/coredns" "$dir/pause"
  # The staging modules k8s.io/kubernetes replaces with ./staging/src/...: each is published
  # on its own at the matching v0 version.
  staging="$(sed -n 's#^\s*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$(go_mod_of_kubernetes)")"
  [[ -n "$staging" ]] || fail "could not read the staging modules from k8s.io/kubernetes@$KUBERNETES_VERSION's go.mod"
  {
    printf 'module mock-istiod.local/kubernetes\n\ngo 1.24.0\n\nrequire k8s.io/kubernetes %s\n\n' "$KUBERNETES_VERSION"
    local module
    for module in $staging; do printf 'replace %s => %s %s\n' "$module" "$module" "$STAGING_VERSION"; done
  } >"$dir/kube/go.mod"
  cat >"$dir/kube/tools.go" <<'EOF'
//go:build tools

// Package tools only names the commands to build.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
EOF
  printf 'module mock-istiod.local/coredns\n\ngo 1.24.0\n\nrequire github.com/coredns/coredns %s\n' "$COREDNS_VERSION" >"$dir/coredns/go.mod"
  # CoreDNS with a chosen set of plugins: its own main, with the directives in the order of
  # CoreDNS's plugin.cfg (its documented way to build without the generated plugin list).
  cat >"$dir/coredns/main.go" <<'EOF'
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/hosts"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func init() {
	dnsserver.Directives = []string{"reload", "bind", "ready", "health", "errors", "log", "cache", "hosts", "kubernetes"}
}

func main() { coremain.Run() }
EOF
  printf 'module mock-istiod.local/pause\n\ngo 1.24.0\n' >"$dir/pause/go.mod"
  # The pod sandbox's process: PID 1 of the pod, holding its namespaces until it is told to go.
  cat >"$dir/pause/main.go" <<'EOF'
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	children := make(chan os.Signal, 8)
	signal.Notify(children, syscall.SIGCHLD)
	for {
		select {
		case <-stop:
			os.Exit(0)
		case <-children:
			for {
				pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
				if pid <= 0 || err != nil {
					break
				}
			}
		}
	}
}
EOF
}

go_mod_of_kubernetes() {
  local file
  file="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" 2>/dev/null | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  [[ -f "$file" ]] || fail "could not download k8s.io/kubernetes@$KUBERNETES_VERSION from the Go module proxy"
  echo "$file"
}

install_packages
if ! already_built && ! copy_from_cache; then
  build_all
  save_to_cache
fi
say "$bin_dir"
