#!/usr/bin/env bash
# Builds the real pilot-agent and istioctl, at one pinned istio.io/istio version, for the
# tests, the demo and `mock-istiod pilot-agent`; and istiod-ref (tools/istiod-ref), istiod's
# own xDS server without a cluster, the oracle of the conformance suite.
#
# Istio is fetched as a Go module and built with the local Go toolchain in a scratch module
# (a tools.go that blank-imports both commands, and a copy of tools/istiod-ref). The
# binaries, and Istio's Envoy bootstrap template from the same module (pilot-agent needs it),
# go into <repo>/.istio/bin (git-ignored). A stamp file records the version and the
# reference server's source hash, so a second run does nothing and an edit rebuilds. A copy
# is kept in a cache outside the checkout (MOCK_ISTIOD_ISTIO_CACHE, default
# ~/.cache/mock-istiod/istio/<stamp hash>), so a fresh clone on the same machine copies them
# in about a second instead of linking them again.
#
# Usage: scripts/install-istio.sh [--quiet] [--keep-going]
#   Prints the folder holding pilot-agent and istioctl (nothing with --quiet). A build takes
#   minutes on a cold Go build cache; progress goes to stderr even with --quiet.
#   --keep-going: on failure, say so and exit 0 (for `npm test`: the tests that need the
#   binaries then fail and name this script).
#   ISTIO_BIN_DIR=/path: use or build into that folder instead. A folder that already holds
#   pilot-agent, istioctl, istiod-ref and envoy_bootstrap.json without a stamp is used as
#   it is (and never copied into the cache).
set -euo pipefail

readonly ISTIO_VERSION='v0.0.0-20260827124520-eed52ebb66ad'
readonly BINARIES=(pilot-agent istioctl istiod-ref)
readonly TEMPLATE='envoy_bootstrap.json'

quiet=false
keep_going=false

fail() {
  echo "install-istio: $*" >&2
  if [[ "$keep_going" == true ]]; then
    echo "install-istio: going on without them; the tests that need pilot-agent or istioctl will fail" >&2
    exit 0
  fi
  exit 1
}

say() {
  if [[ "$quiet" == false ]]; then echo "$1"; fi
}

progress() {
  echo "install-istio: $1" >&2
}

for arg in "$@"; do
  case "$arg" in
    --quiet | -q) quiet=true ;;
    --keep-going) keep_going=true ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument '$arg' (usage: scripts/install-istio.sh [--quiet] [--keep-going])" ;;
  esac
done

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="${ISTIO_BIN_DIR:-$repo_root/.istio/bin}"
stamp="$bin_dir/.istio-version"
reference_source="$repo_root/tools/istiod-ref/main.go"
[[ -f "$reference_source" ]] || fail "missing $reference_source (the reference server's source)"
stamp_text="$ISTIO_VERSION istiod-ref:$(sha256sum "$reference_source" | cut -c1-16)"

# shellcheck source-path=SCRIPTDIR source=lib/machine-cache.sh
source "$repo_root/scripts/lib/machine-cache.sh"
cache_dir="$(machine_cache_dir istio "${MOCK_ISTIOD_ISTIO_CACHE:-}" "$stamp_text")"

has_all_files() {
  local name
  for name in "${BINARIES[@]}"; do [[ -f "$bin_dir/$name" && -x "$bin_dir/$name" ]] || return 1; done
  [[ -f "$bin_dir/$TEMPLATE" ]]
}

already_installed() {
  [[ -f "$stamp" && "$(<"$stamp")" == "$stamp_text" ]] && has_all_files
}

# A folder given with ISTIO_BIN_DIR that holds the files but no stamp: someone else's build.
brought_own() {
  [[ -n "${ISTIO_BIN_DIR:-}" && ! -f "$stamp" ]] && has_all_files
}

# A build of the same version and reference source made by another checkout on this machine.
copy_from_cache() {
  machine_cache_restore "$cache_dir" "$bin_dir" .istio-version "$stamp_text" "${BINARIES[@]}" "$TEMPLATE" &&
    has_all_files || return 1
  progress "copied the binaries from the cache $cache_dir"
}

# One build per machine: an older version's binaries (about 300 MB) go.
save_to_cache() {
  machine_cache_save "$cache_dir" "$bin_dir" .istio-version "$stamp_text" "${BINARIES[@]}" "$TEMPLATE"
}

work=''
log=''

# Keeps the log of a failed build where the failure message points; removes the scratch module.
cleanup_build() {
  if [[ -n "$log" && -f "$log" ]]; then cp -f "$log" "$bin_dir/install-istio.log" 2>/dev/null || true; fi
  if [[ -n "$work" ]]; then rm -rf "$work"; fi
}

seconds_since() {
  echo $((SECONDS - $1))
}

build_pinned() {
  command -v go >/dev/null 2>&1 ||
    fail "Go is needed to build pilot-agent and istioctl but 'go' is not on PATH (install Go >= 1.26, or set ISTIO_BIN_DIR to a folder holding pilot-agent, istioctl and $TEMPLATE)"
  mkdir -p "$bin_dir" || fail "cannot create $bin_dir"
  rm -f "$stamp"
  local start
  work="$(mktemp -d "${TMPDIR:-/tmp}/install-istio.XXXXXX")"
  log="$work/build.log"
  trap cleanup_build EXIT
  start=$SECONDS
  progress "istio.io/istio@$ISTIO_VERSION with $(go version | cut -d' ' -f3); building in $work"
  progress "[1/3] resolving the module and its dependencies (go get, go mod tidy)"
  write_scratch_module "$work"
  (cd "$work" && go get "istio.io/istio@$ISTIO_VERSION" && go mod tidy) >>"$log" 2>&1 ||
    fail "could not resolve istio.io/istio@$ISTIO_VERSION (see $bin_dir/install-istio.log)"
  progress "      done in $(seconds_since "$start") s"
  local step=$SECONDS
  progress "[2/3] building ${BINARIES[*]} (about 4-5 minutes on 2 cores with a cold Go build cache; seconds when warm)"
  mkdir -p "$work/out"
  (cd "$work" && go build -o "$work/out/" \
    istio.io/istio/pilot/cmd/pilot-agent istio.io/istio/istioctl/cmd/istioctl ./cmd/istiod-ref) >>"$log" 2>&1 ||
    fail "go build failed (see $bin_dir/install-istio.log)"
  progress "      done in $(seconds_since "$step") s"
  progress "[3/3] copying Istio's Envoy bootstrap template"
  local module_dir
  module_dir="$(cd "$work" && go list -m -f '{{.Dir}}' istio.io/istio)" ||
    fail "go list could not find the istio.io/istio module directory"
  cp "$module_dir/tools/packaging/common/envoy_bootstrap.json" "$work/out/$TEMPLATE" ||
    fail "$module_dir has no tools/packaging/common/envoy_bootstrap.json"
  chmod 0644 "$work/out/$TEMPLATE"
  local name
  for name in "${BINARIES[@]}" "$TEMPLATE"; do mv -f "$work/out/$name" "$bin_dir/$name"; done
  "$bin_dir/pilot-agent" --help >/dev/null 2>&1 || fail "$bin_dir/pilot-agent does not run"
  echo "$stamp_text" >"$stamp"
  rm -f "$log" "$bin_dir/install-istio.log"
  progress "installed in $bin_dir in $(seconds_since "$start") s"
}

write_scratch_module() {
  cat >"$1/go.mod" <<'EOF'
module mock-istiod.local/istio-tools

go 1.26
EOF
  mkdir -p "$1/cmd/istiod-ref"
  cp "$reference_source" "$1/cmd/istiod-ref/main.go"
  cat >"$1/tools.go" <<'EOF'
//go:build tools

// Package tools only names the commands to build: go build builds them by import path.
package tools

import (
	_ "istio.io/istio/istioctl/cmd/istioctl"
	_ "istio.io/istio/pilot/cmd/pilot-agent"
)
EOF
}

# Istio's sidecar and grpc-agent injection templates and the istio-discovery chart's values,
# for `mock-istiod inject` (istioctl kube-inject offline); copied from the module cache when
# missing, so an install made before this step gets them too. Without Go or the module they
# are looked for in the module cache at run time, and `inject` says what is missing.
copy_chart_files() {
  [[ -f "$bin_dir/injection-template.yaml" && -f "$bin_dir/grpc-agent-template.yaml" &&
    -f "$bin_dir/istio-discovery-values.yaml" ]] && return 0
  [[ -f "$stamp" ]] && command -v go >/dev/null 2>&1 || return 0
  local chart
  chart="$(go env GOMODCACHE)/istio.io/istio@$ISTIO_VERSION/manifests/charts/istio-control/istio-discovery"
  [[ -f "$chart/files/injection-template.yaml" && -f "$chart/files/grpc-agent.yaml" &&
    -f "$chart/values.yaml" ]] || return 0
  install -m 0644 "$chart/files/injection-template.yaml" "$bin_dir/injection-template.yaml"
  install -m 0644 "$chart/files/grpc-agent.yaml" "$bin_dir/grpc-agent-template.yaml"
  install -m 0644 "$chart/values.yaml" "$bin_dir/istio-discovery-values.yaml"
}

if already_installed; then
  :
elif brought_own; then
  progress "using the binaries in ISTIO_BIN_DIR=$bin_dir as they are (no $stamp: not built by this script)"
elif ! copy_from_cache; then
  build_pinned
  save_to_cache
fi
copy_chart_files
say "$bin_dir"
