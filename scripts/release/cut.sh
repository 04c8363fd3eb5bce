#!/usr/bin/env bash
# `make release-cut VERSION=x.y.z`: cuts a release on the current branch (main, at merge time), in two commits:
#   1. chore(release): x.y.z — every version place says x.y.z (scripts/release/versions.ts), and CHANGELOG.md's
#      Unreleased section becomes "## [x.y.z] - <UTC day>" under a new, empty Unreleased. This is the commit the
#      release is cut from: it is tagged vx.y.z, and `make release VERSION=x.y.z` builds it.
#   2. chore(release): record x.y.z — releases/index.json gains {version, commit of 1, date}.
# A commit cannot name its own hash, hence two. Then push the branch and the tag; the tag starts
# .github/workflows/release.yml (docs/releasing.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=${VERSION:-${1:-}}
NODE=node_modules/node/bin/node

[[ "${VERSION}" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]] ||
  { echo "release-cut: VERSION=x.y.z is required (got '${VERSION}')" >&2; exit 2; }
[ -z "$(git status --porcelain)" ] || { echo "release-cut: the work tree has changes: commit or stash them" >&2; exit 1; }
if git rev-parse -q --verify "refs/tags/v${VERSION}" >/dev/null; then
  echo "release-cut: tag v${VERSION} exists already" >&2; exit 1
fi
if grep -q "\"version\": \"${VERSION}\"" releases/index.json; then
  echo "release-cut: ${VERSION} is in releases/index.json already" >&2; exit 1
fi
grep -q '^## Unreleased$' CHANGELOG.md || { echo "release-cut: CHANGELOG.md has no '## Unreleased' heading" >&2; exit 1; }

day=$(date -u +%Y-%m-%d)
"$NODE" scripts/release/versions.ts bump "${VERSION}" >/dev/null
"$NODE" -e '
  const fs = require("node:fs");
  const [version, day] = process.argv.slice(1);
  const text = fs.readFileSync("CHANGELOG.md", "utf8");
  fs.writeFileSync("CHANGELOG.md", text.replace(/^## Unreleased$/m, `## Unreleased\n\n## [${version}] - ${day}`));
' "${VERSION}" "${day}"
git add -A package.json package-lock.json ./*/package.json charts/mailroom/Chart.yaml CHANGELOG.md
git commit -q -m "chore(release): ${VERSION}"
commit=$(git rev-parse HEAD)
git tag -a "v${VERSION}" -m "Mailroom ${VERSION}" "${commit}"

"$NODE" scripts/release/record.ts "${VERSION}" "${commit}" "${day}" >/dev/null
git add releases/index.json
git commit -q -m "chore(release): record ${VERSION} in releases/index.json"
echo "› release ${VERSION} cut from ${commit} (tag v${VERSION}); recorded in releases/index.json"
echo "  next: make release VERSION=${VERSION} (COSIGN_KEY=…), then push the branch and the tag v${VERSION}"
