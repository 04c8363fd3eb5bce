#!/usr/bin/env bash
# `make release-test`: `make release` of HEAD's version (draft: the version need not be cut yet) into
# dist/release-test/, signed with a key pair made for this run, then test/release/: pushed to a real registry on
# loopback, verified there (signatures, SBOM, provenance), installed from it onto the real kube-apiserver.
# Warm (tools built, image layers cached) it takes a few minutes at most; cold, the tools' builds print progress.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS
NODE=node_modules/node/bin/node
DIR=dist/release-test
TOOLS=$(scripts/release/tools.sh | tail -1)
version=$("$NODE" scripts/release/versions.ts check)

KEYS=${DIR}-keys
rm -rf "${DIR}" "${KEYS}"
mkdir -p "${KEYS}"
# A throwaway key pair (empty password): the release key itself never leaves the release process.
(cd "${KEYS}" && COSIGN_PASSWORD='' "${TOOLS}/cosign" generate-key-pair >/dev/null 2>&1)
RELEASE_DRAFT=1 RELEASE_DIR="${PWD}/${DIR}" COSIGN_KEY="${PWD}/${KEYS}/cosign.key" COSIGN_PASSWORD='' \
  scripts/release/build.sh "${version}"

test/kubernetes/build/build.sh >/dev/null
test/kubernetes/build/third-party-crds.sh >/dev/null
npm exec --no -- node test/support/run-vitest.ts -c test/release/vitest.config.ts
echo "› release-test: ${version} built, published, verified and installed in $((SECONDS - started)) s"
