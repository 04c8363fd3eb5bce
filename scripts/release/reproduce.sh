#!/usr/bin/env bash
# `make release-reproduce`: is the image a function of its commit? Builds HEAD's image twice from a clean
# checkout (`git archive`), each time without buildah's layer cache (--no-cache: npm install and the compile
# cache warm-up run again), with SOURCE_DATE_EPOCH = the commit's time, and compares the manifest digests. When
# they differ it names each layer that differs and, inside it, each file whose content or metadata differs, so
# docs/releasing.md can say why. Slow (two full builds): not part of CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
NODE=node_modules/node/bin/node
commit=$(git rev-parse HEAD)
version=$("$NODE" scripts/release/versions.ts check)
work=$(mktemp -d "${TMPDIR:-/tmp}/mailroom-reproduce.XXXXXX")
trap 'rm -rf "${work}"' EXIT
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct "${commit}")
export SOURCE_DATE_EPOCH
NODE_IMAGE=$(scripts/image/base.sh)
mkdir -p "${work}/src"
git archive --format=tar "${commit}" | tar -x -C "${work}/src"

for n in 1 2; do
  echo "› reproduce: build ${n} of ${commit} (SOURCE_DATE_EPOCH ${SOURCE_DATE_EPOCH}) …"
  BUILDAH_EXTRA=--no-cache VERSION="${version}" IMAGE="localhost/mailroom-reproduce:${n}" NODE_IMAGE="${NODE_IMAGE}" \
    ARCHIVE="${work}/image-${n}.oci.tar" "${work}/src/scripts/image/build.sh" | tail -1
  skopeo inspect --raw "oci-archive:${work}/image-${n}.oci.tar" >"${work}/manifest-${n}.json"
  skopeo inspect --format '{{.Digest}}' "oci-archive:${work}/image-${n}.oci.tar" >"${work}/digest-${n}"
done
d1=$(cat "${work}/digest-1") d2=$(cat "${work}/digest-2")
if [ "${d1}" = "${d2}" ]; then
  echo "› reproduce: same digest twice: ${d1}"
  exit 0
fi
echo "› reproduce: digests differ: ${d1} vs ${d2}"
"$NODE" -e '
  const [a, b] = process.argv.slice(1).map((f) => JSON.parse(require("node:fs").readFileSync(f, "utf8")));
  a.layers.forEach((l, i) => console.log(`  layer ${i}: ${l.digest === b.layers[i]?.digest ? "same" : `differs (${l.digest.slice(0, 19)} vs ${b.layers[i]?.digest.slice(0, 19)})`}`));
  if (a.config.digest !== b.config.digest) console.log("  config differs (it names the layers diff_ids)");
' "${work}/manifest-1.json" "${work}/manifest-2.json"
# Inside each differing layer: the files whose content differs (sha256 of each regular file) or metadata.
for n in 1 2; do mkdir -p "${work}/oci-${n}" && tar -x -C "${work}/oci-${n}" -f "${work}/image-${n}.oci.tar"; done
"$NODE" -e '
  const fs = require("node:fs"), cp = require("node:child_process");
  const [w] = process.argv.slice(1);
  const man = (n) => JSON.parse(fs.readFileSync(`${w}/manifest-${n}.json`, "utf8"));
  const [m1, m2] = [man(1), man(2)];
  m1.layers.forEach((l, i) => {
    const other = m2.layers[i];
    if (!other || l.digest === other.digest) return;
    const list = (n, d) => cp.execSync(`tar -tvzf ${w}/oci-${n}/blobs/sha256/${d.split(":")[1]}`, { maxBuffer: 1 << 28 }).toString().split("\n");
    const sums = (n, d) => { const dir = `${w}/x-${n}-${i}`; fs.mkdirSync(dir, { recursive: true });
      cp.execSync(`tar -xzf ${w}/oci-${n}/blobs/sha256/${d.split(":")[1]} -C ${dir} 2>/dev/null || true`);
      return new Map(cp.execSync(`cd ${dir} && find . -type f -print0 | xargs -0 -r sha256sum`, { maxBuffer: 1 << 28 }).toString().trim().split("\n").map((s) => [s.slice(66), s.slice(0, 64)])); };
    const [s1, s2] = [sums(1, l.digest), sums(2, other.digest)];
    const diff = [...new Set([...s1.keys(), ...s2.keys()])].filter((f) => s1.get(f) !== s2.get(f));
    const [t1, t2] = [new Set(list(1, l.digest)), new Set(list(2, other.digest))];
    const meta = [...t1].filter((x) => !t2.has(x)).length;
    console.log(`  layer ${i}: ${diff.length} file(s) differ in content, ${meta} tar entr(ies) differ in listing`);
    const dirs = new Map(); for (const f of diff) { const parts = f.split("/"); const k = parts.slice(0, parts[2] === "node_modules" ? 4 : 3).join("/"); dirs.set(k, (dirs.get(k) ?? 0) + 1); }
    for (const [k, c] of [...dirs].sort((x, y) => y[1] - x[1]).slice(0, 15)) console.log(`    ${c} under ${k}`);
  });
' "${work}"
buildah rmi localhost/mailroom-reproduce:1 localhost/mailroom-reproduce:2 >/dev/null 2>&1 || true
exit 1
