# shellcheck shell=bash
# Sourced by scripts/install-istio.sh and scripts/install-kubernetes.sh: a copy of their
# built binaries outside the checkout, one per machine, so that a second checkout copies them
# in seconds instead of linking them again.
#
# A recipe (versions and build steps) is named by its stamp text. Its copy lives in
# <parent>/<hash of the stamp text>, with the same stamp file as the bin folder, written last:
# a folder whose stamp is missing or differs is never copied from. Saving keeps one recipe
# per parent, removing the others (they are hundreds of MB). Neither function prints; the
# caller says what happened.

# machine_cache_dir NAME OVERRIDE STAMP_TEXT: prints the recipe's folder, under OVERRIDE when
# it is set, else ~/.cache/mock-istiod/NAME (XDG_CACHE_HOME respected).
machine_cache_dir() {
  local parent="${2:-${XDG_CACHE_HOME:-$HOME/.cache}/mock-istiod/$1}"
  echo "$parent/$(echo "$3" | sha256sum | cut -c1-16)"
}

# machine_cache_restore CACHE_DIR BIN_DIR STAMP_NAME STAMP_TEXT FILE...: when CACHE_DIR holds
# the recipe's stamp and every FILE, copies them into BIN_DIR and writes the stamp there.
# Returns 1 (BIN_DIR then has no stamp) when it cannot.
machine_cache_restore() {
  local cache_dir="$1" bin_dir="$2" stamp_name="$3" stamp_text="$4" name
  shift 4
  [[ -f "$cache_dir/$stamp_name" && "$(<"$cache_dir/$stamp_name")" == "$stamp_text" ]] || return 1
  for name in "$@"; do [[ -f "$cache_dir/$name" ]] || return 1; done
  mkdir -p "$bin_dir" 2>/dev/null || return 1
  rm -f "$bin_dir/$stamp_name"
  for name in "$@"; do cp -f "$cache_dir/$name" "$bin_dir/$name" || return 1; done
  echo "$stamp_text" >"$bin_dir/$stamp_name" || return 1
}

# machine_cache_save CACHE_DIR BIN_DIR STAMP_NAME STAMP_TEXT FILE...: copies FILE... from
# BIN_DIR into CACHE_DIR, after removing the other recipes' folders beside it. Always
# returns 0: without a cache the install still worked, the next checkout just builds.
machine_cache_save() {
  local cache_dir="$1" bin_dir="$2" stamp_name="$3" stamp_text="$4" name old
  shift 4
  # Only folders named like a recipe's hash go: the parent may be a folder given by an
  # override that holds other things. On a new machine the parent does not exist yet and the
  # glob matches nothing.
  for old in "$(dirname "$cache_dir")"/*; do
    [[ -d "$old" && "$old" != "$cache_dir" && "$(basename "$old")" =~ ^[0-9a-f]{16}$ ]] || continue
    rm -rf "$old" 2>/dev/null || true
  done
  mkdir -p "$cache_dir" 2>/dev/null || return 0
  # The stamp goes first and comes back last, so a copy cut short is never used.
  rm -f "$cache_dir/$stamp_name" 2>/dev/null || return 0
  for name in "$@"; do cp -f "$bin_dir/$name" "$cache_dir/$name" 2>/dev/null || return 0; done
  { echo "$stamp_text" >"$cache_dir/$stamp_name"; } 2>/dev/null || return 0
}
