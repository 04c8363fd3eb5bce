#!/usr/bin/env bash
# The release tools that Debian does not package, built from their Go modules (`go install`, through the Go
# module proxy) into a cache outside the repository, once per machine and version:
#   cosign  signs and attests the image and the chart, and verifies them (ADR 0039)
#   syft    writes the image's SBOM, OS and npm packages alike (ADR 0040)
# A cold build takes minutes on a busy machine; each tool prints a progress line per 30 s while it builds.
# Prints the directory holding both binaries (alone, on the last line of stdout).
set -euo pipefail

COSIGN_VERSION=${COSIGN_VERSION:-v2.6.5}
SYFT_VERSION=${SYFT_VERSION:-v1.57.1}
CACHE=${MAILROOM_RELEASE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/mailroom/release-tools}
BIN="${CACHE}/bin-cosign-${COSIGN_VERSION}-syft-${SYFT_VERSION}"
say() { echo "› $*" >&2; }

command -v go >/dev/null || { echo "release tools: go is missing: run make system-packages (as root)" >&2; exit 2; }

build() {
  local name=$1 module=$2 version=$3
  if [ -x "${BIN}/${name}" ]; then
    say "${name} ${version} (cached in ${BIN})"
    return
  fi
  local started=$SECONDS log
  log=$(mktemp)
  say "${name} ${version}: go install ${module}@${version} (first time on this machine: minutes) …"
  mkdir -p "${BIN}.partial"
  # -trimpath: the binary does not name this machine's paths; nice: the machine is shared.
  GOBIN="${BIN}.partial" GOFLAGS=-trimpath nice -n 10 go install "${module}@${version}" >"${log}" 2>&1 &
  local pid=$!
  while kill -0 "${pid}" 2>/dev/null; do
    sleep 5
    if (((SECONDS - started) % 30 < 5)) && kill -0 "${pid}" 2>/dev/null; then
      say "  ${name}: still building ($((SECONDS - started)) s)"
    fi
  done
  if ! wait "${pid}"; then
    tail -20 "${log}" >&2
    rm -f "${log}"
    exit 1
  fi
  rm -f "${log}"
  mkdir -p "${BIN}"
  mv "${BIN}.partial/${name}" "${BIN}/${name}"
  say "${name} ${version}: built in $((SECONDS - started)) s"
}

build cosign github.com/sigstore/cosign/v2/cmd/cosign "${COSIGN_VERSION}"
build syft github.com/anchore/syft/cmd/syft "${SYFT_VERSION}"
echo "${BIN}"
