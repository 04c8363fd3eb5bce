#!/usr/bin/env bash
# Publishes a release built by scripts/release/build.sh to an OCI registry, and signs it there:
#   <registry>/<IMAGE_PATH>:x.y.z        the image (IMAGE_PATH default mailroom/mailroom), digest unchanged (skopeo copy --preserve-digests), signed,
#                                        with the SBOM (spdxjson) and the SLSA provenance attested (cosign attest)
#   oci://<registry>/<CHART_PATH>/mailroom  the chart (helm push; CHART_PATH default charts), signed
# The default image path is the chart's default repository with its host replaced, so a mirror found by
# `global.imageRegistry=<registry>` has it where the chart looks. Writes published.json (both references, by digest) into the release folder.
#
#   COSIGN_KEY=… REGISTRY=registry.example:5000 scripts/release/publish.sh dist/release/x.y.z
# PLAIN_HTTP=1 for a registry without TLS (the release test's, on loopback).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:?usage: publish.sh <release folder>}
REGISTRY=${REGISTRY:?REGISTRY=host[:port][/path] is required}
IMAGE_PATH=${IMAGE_PATH:-mailroom/mailroom}
CHART_PATH=${CHART_PATH:-charts}
: "${COSIGN_KEY:?COSIGN_KEY must name the cosign private key of the release}"
export COSIGN_PASSWORD=${COSIGN_PASSWORD:-}
NODE=$ROOT/node_modules/node/bin/node
TOOLS=$("${ROOT}/scripts/release/tools.sh" 2>/dev/null | tail -1)
HELM=$("$NODE" --input-type=module -e \
  "const m = await import('${ROOT}/test/helm/support/helm.ts'); console.log(await m.helmBinary());")
say() { echo "› publish: $*"; }

version=$("$NODE" -p "require('$(cd "${DIR}" && pwd)/release.json').version")
image_digest=$("$NODE" -p "require('$(cd "${DIR}" && pwd)/release.json').image.digest")
tls=() http=() plain=()
if [ -n "${PLAIN_HTTP:-}" ]; then
  tls=(--dest-tls-verify=false) http=(--allow-http-registry --allow-insecure-registry) plain=(--plain-http)
fi
export SYFT_CHECK_FOR_APP_UPDATE=false COSIGN_EXPERIMENTAL=0
export HELM_CACHE_HOME=${TMPDIR:-/tmp}/mailroom-helm-home/cache HELM_CONFIG_HOME=${TMPDIR:-/tmp}/mailroom-helm-home/config

skopeo copy --quiet --preserve-digests "${tls[@]}" "oci-archive:${DIR}/mailroom-${version}.oci.tar" \
  "docker://${REGISTRY}/${IMAGE_PATH}:${version}"
image="${REGISTRY}/${IMAGE_PATH}@${image_digest}"
say "image ${image}"
cosign() { "${TOOLS}/cosign" "$@" --yes --key "${COSIGN_KEY}" --tlog-upload=false "${http[@]}" 2>/dev/null; }
cosign sign "${image}"
cosign attest --type spdxjson --predicate "${DIR}/sbom.spdx.json" "${image}"
cosign attest --type slsaprovenance1 --predicate "${DIR}/provenance.slsa.json" "${image}"

chart_digest=$("$HELM" push "${DIR}/mailroom-${version}.tgz" "oci://${REGISTRY}/${CHART_PATH}" "${plain[@]}" 2>&1 |
  sed -n 's/^Digest: *//p')
[ -n "${chart_digest}" ] || { echo "publish: helm push printed no digest" >&2; exit 1; }
chart="${REGISTRY}/${CHART_PATH}/mailroom@${chart_digest}"
cosign sign "${chart}"
say "chart oci://${chart}"
printf '{\n  "image": "%s",\n  "chart": "oci://%s",\n  "chartVersion": "%s"\n}\n' "${image}" "${chart}" "${version}" \
  >"${DIR}/published.json"
