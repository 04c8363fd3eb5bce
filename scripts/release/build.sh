#!/usr/bin/env bash
# `make release VERSION=x.y.z`: builds a release from a clean checkout of HEAD (`git archive`, never the work
# tree) into dist/release/x.y.z/:
#   mailroom-x.y.z.oci.tar      the image (scripts/image/build.sh's buildah path, SOURCE_DATE_EPOCH = commit time)
#   mailroom-x.y.z.tgz          the chart (helm package)
#   sbom.spdx.json              SPDX SBOM of the image: Debian and npm packages (syft, ADR 0040)
#   provenance.intoto.json      SLSA v1 provenance as an in-toto statement over the image and the chart
#   provenance.slsa.json        its predicate alone, as `cosign attest --type slsaprovenance1` takes it
#   SHA256SUMS, SHA256SUMS.sig  checksums of all of the above, signed with the release key (cosign sign-blob)
#   cosign.pub, release.json    the public key; version, commit, digests
# The registry side (push, cosign sign/attest, helm push) is scripts/release/publish.sh.
#
#   COSIGN_KEY=path/cosign.key COSIGN_PASSWORD=… make release VERSION=x.y.z
# RELEASE_DRAFT=1 skips the CHANGELOG and releases/index.json checks (the release test builds a version that is
# not cut yet).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
VERSION=${VERSION:-${1:-}}
NODE=$ROOT/node_modules/node/bin/node
started=$SECONDS
started_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)
say() { echo "› release: $*"; }
fail() { echo "release: $*" >&2; exit 1; }

"$NODE" -e 'process.exit(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(process.argv[1]) ? 0 : 1)' "${VERSION}" ||
  fail "VERSION=x.y.z is required (got '${VERSION}')"
[ -n "${COSIGN_KEY:-}" ] && [ -s "${COSIGN_KEY}" ] ||
  fail "COSIGN_KEY must name the release's cosign private key (docs/releasing.md; COSIGN_PASSWORD its password)"
export COSIGN_PASSWORD=${COSIGN_PASSWORD:-}
COSIGN_KEY=$(realpath "${COSIGN_KEY}")

commit=$(git rev-parse HEAD)
[ -z "$(git status --porcelain)" ] || say "the work tree has changes: they are not in the release (it builds ${commit})"
OUT=${RELEASE_DIR:-$ROOT/dist/release/${VERSION}}
src=$(mktemp -d "${TMPDIR:-/tmp}/mailroom-release-src.XXXXXX")
trap 'rm -rf "${src}"' EXIT
git archive --format=tar "${commit}" | tar -x -C "${src}"
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct "${commit}")
export SOURCE_DATE_EPOCH

# The checkout's own files say which version it is.
(cd "${src}" && "$NODE" scripts/release/versions.ts check "${VERSION}" >/dev/null) ||
  fail "the commit ${commit} is not version ${VERSION}: cut it first (make release-cut VERSION=${VERSION})"
if [ -z "${RELEASE_DRAFT:-}" ]; then
  grep -q "^## \[${VERSION}\]" "${src}/CHANGELOG.md" || fail "CHANGELOG.md has no '## [${VERSION}]' section"
fi

TOOLS=$(scripts/release/tools.sh | tail -1)
HELM=$("$NODE" --input-type=module -e \
  "const m = await import('${ROOT}/test/helm/support/helm.ts'); console.log(await m.helmBinary());")
rm -rf "${OUT}"
mkdir -p "${OUT}"

say "${VERSION} from ${commit} (SOURCE_DATE_EPOCH ${SOURCE_DATE_EPOCH}) into ${OUT#"$ROOT"/}"
NODE_IMAGE=${NODE_IMAGE:-$(scripts/image/base.sh)}
image="localhost/mailroom:${VERSION}"
# A release is built without buildah's layer cache: a cached layer keeps the time it was first built at, not
# SOURCE_DATE_EPOCH (buildah 1.28 reuses it whole). The release test's draft builds reuse it, to stay quick.
cache=--no-cache
[ -n "${RELEASE_DRAFT:-}" ] && cache=
BUILDAH_EXTRA=${cache} VERSION="${VERSION}" IMAGE="${image}" NODE_IMAGE="${NODE_IMAGE}" ARCHIVE="${OUT}/mailroom-${VERSION}.oci.tar" \
  "${src}/scripts/image/build.sh"
image_digest=$(skopeo inspect --format '{{.Digest}}' "oci-archive:${OUT}/mailroom-${VERSION}.oci.tar")
base_digest=$(skopeo inspect --format '{{.Digest}}' "containers-storage:${NODE_IMAGE}" 2>/dev/null || echo "")

export HELM_CACHE_HOME=${src}/.helm/cache HELM_CONFIG_HOME=${src}/.helm/config
"$HELM" lint --strict "${src}/charts/mailroom" >/dev/null
"$HELM" package "${src}/charts/mailroom" --destination "${OUT}" >/dev/null
chart_sha=$(sha256sum "${OUT}/mailroom-${VERSION}.tgz" | cut -d' ' -f1)
say "image ${image_digest}; chart sha256:${chart_sha}"

say "SBOM (syft) …"
SYFT_CHECK_FOR_APP_UPDATE=false "${TOOLS}/syft" scan -q "oci-archive:${OUT}/mailroom-${VERSION}.oci.tar" \
  --source-name mailroom --source-version "${VERSION}" -o "spdx-json=${OUT}/sbom.spdx.json"

# Who built it: the workflow run in hosted CI (GitHub's own variables), else this machine.
repository=https://github.com/${GITHUB_REPOSITORY:-mailroom/mailroom}
if [ -n "${GITHUB_RUN_ID:-}" ]; then
  builder_id="${repository}/.github/workflows/release.yml@${GITHUB_REF:-}"
  invocation_id="${repository}/actions/runs/${GITHUB_RUN_ID}/attempts/${GITHUB_RUN_ATTEMPT:-1}"
else
  builder_id="make release on $(hostname)"
  invocation_id="local:$(hostname):${started_at}"
fi
"$NODE" "${ROOT}/scripts/release/provenance.ts" --out "${OUT}" --version "${VERSION}" --commit "${commit}" \
  --image-digest "${image_digest}" --chart-sha256 "${chart_sha}" --base-image "${NODE_IMAGE}@${base_digest}" \
  --started "${started_at}" --source-date-epoch "${SOURCE_DATE_EPOCH}" --repository "${repository}" \
  --builder-id "${builder_id}" --invocation-id "${invocation_id}"

"${TOOLS}/cosign" public-key --key "${COSIGN_KEY}" >"${OUT}/cosign.pub"
(cd "${OUT}" && sha256sum -- *.oci.tar *.tgz sbom.spdx.json provenance.*.json release.json >SHA256SUMS)
"${TOOLS}/cosign" sign-blob --yes --key "${COSIGN_KEY}" --tlog-upload=false \
  --output-signature "${OUT}/SHA256SUMS.sig" "${OUT}/SHA256SUMS" 2>/dev/null
"${TOOLS}/cosign" verify-blob --key "${OUT}/cosign.pub" --insecure-ignore-tlog \
  --signature "${OUT}/SHA256SUMS.sig" "${OUT}/SHA256SUMS" 2>/dev/null
size=$(du -h "${OUT}/mailroom-${VERSION}.oci.tar" | cut -f1)
packages=$("$NODE" -p "require('${OUT}/sbom.spdx.json').packages.length")
say "${VERSION} done in $((SECONDS - started)) s: image ${image_digest} (${size} OCI archive), SBOM ${packages} packages"
