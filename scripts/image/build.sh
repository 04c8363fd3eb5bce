#!/usr/bin/env bash
# `make image`: builds the repository's Dockerfile with buildah (no daemon: --isolation chroot) and writes it
# as an OCI archive to dist/, then prints its size. Without NODE_IMAGE, the base is built locally
# (scripts/image/base.sh), since no registry is reachable here; with Docker, `docker build .` uses the
# Dockerfile's own default base instead.
#
#   make image                                   # localhost/mailroom:<version> and dist/mailroom-<version>.oci.tar
#   NODE_IMAGE=node:24-bookworm-slim make image  # a base from a registry you can reach
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

VERSION=${VERSION:-$(node_modules/node/bin/node -p 'require("./cli/package.json").version')}
IMAGE=${IMAGE:-localhost/mailroom:${VERSION}}
ARCHIVE=${ARCHIVE:-dist/mailroom-${VERSION}.oci.tar}
NODE_IMAGE=${NODE_IMAGE:-$(scripts/image/base.sh)}

log=$(mktemp)
trap 'rm -f "${log}"' EXIT
echo "› buildah bud --isolation chroot: ${IMAGE} on ${NODE_IMAGE} …"
# --layers keeps each step in buildah's storage, so a rebuild with unchanged manifests skips `npm install`.
# npm inside the build trusts what this machine trusts (a TLS-inspecting proxy's CA, if any): a build secret,
# mounted for the `npm install` step only.
CA_BUNDLE=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
secret=()
[ -s "${CA_BUNDLE}" ] && secret=(--secret "id=ca,src=${CA_BUNDLE}")
# A release build (scripts/release/build.sh) sets SOURCE_DATE_EPOCH to its commit's time: every file's mtime
# and the image's creation time are that, so two builds of one commit can give one digest (docs/releasing.md).
timestamp=()
[ -n "${SOURCE_DATE_EPOCH:-}" ] && timestamp=(--timestamp "${SOURCE_DATE_EPOCH}")
if ! buildah bud --isolation chroot --layers --pull=never "${secret[@]}" "${timestamp[@]}" ${BUILDAH_EXTRA:-} \
  --build-arg NODE_IMAGE="${NODE_IMAGE}" --build-arg VERSION="${VERSION}" \
  --tag "${IMAGE}" --file Dockerfile . 2>&1 | while IFS= read -r line; do
  # One line per step, timed; the rest (npm's and buildah's chatter) only when the build fails.
  case "$line" in *STEP*) echo "  [$(($(date +%s) - started))s] ${line}" ;; *) echo "$line" >>"${log}" ;; esac
done; then
  tail -30 "${log}" >&2
  exit 1
fi

mkdir -p "$(dirname "${ARCHIVE}")"
rm -f "${ARCHIVE}"
buildah push --quiet "${IMAGE}" "oci-archive:${ARCHIVE}:${IMAGE#localhost/}"
size=$(buildah images --format '{{.Size}}' "${IMAGE}" | head -1)
echo "› ${IMAGE}: ${size} uncompressed; OCI archive ${ARCHIVE}: $(du -h "${ARCHIVE}" | cut -f1) ($(( $(date +%s) - started )) s)"
