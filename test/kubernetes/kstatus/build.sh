#!/usr/bin/env bash
# Builds the kstatus checker (main.go: sigs.k8s.io/cli-utils' kstatus over objects read on stdin) into a cache
# outside the repo keyed by a digest of its sources, as build/build.sh does for the control plane. Its own module,
# so changing it never rebuilds the control plane. Prints the binary's path on its last line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
digest="$(cat "$here/go.mod" "$here/go.sum" "$here/main.go" | sha256sum | cut -c1-12)"
out="${XDG_CACHE_HOME:-$HOME/.cache}/mailroom/kstatus/${digest}"
if [ -x "$out/kstatus" ]; then echo "$out/kstatus"; exit 0; fi
command -v go >/dev/null || { echo "kstatus: Go is not installed" >&2; exit 1; }
mkdir -p "$out"
echo "› kstatus: building the checker (sigs.k8s.io/cli-utils) …" >&2
(cd "$here" && GOTOOLCHAIN=local GOFLAGS="-trimpath -mod=readonly" CGO_ENABLED=0 \
  nice -n 10 go build -ldflags "-s -w" -o "$out/kstatus.tmp" .)
mv "$out/kstatus.tmp" "$out/kstatus"
echo "$out/kstatus"
