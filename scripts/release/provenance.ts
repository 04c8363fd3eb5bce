/**
 * The release's SLSA v1 provenance (https://slsa.dev/provenance/v1): an in-toto statement whose subjects are
 * the image (by its manifest digest) and the chart archive, naming the commit built, the base image, and who
 * built it. In hosted CI (.github/workflows/release.yml) the builder is the workflow run; on a machine, the
 * machine's `make release`. Also writes the predicate alone (what `cosign attest --type slsaprovenance1` wraps
 * in its own statement for the image) and release.json (the summary the release test and the docs read).
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

const { values: a } = parseArgs({
  options: {
    out: { type: "string" },
    version: { type: "string" },
    commit: { type: "string" },
    "image-digest": { type: "string" },
    "chart-sha256": { type: "string" },
    "base-image": { type: "string" },
    started: { type: "string" },
    "source-date-epoch": { type: "string" },
    repository: { type: "string" },
    "builder-id": { type: "string" },
    "invocation-id": { type: "string" },
  },
});
const out = a.out as string;
const version = a.version as string;
const commit = a.commit as string;
const imageDigest = a["image-digest"] as string;
const chartSha = a["chart-sha256"] as string;

// build.sh names the build: in hosted CI the workflow run, on a machine the machine.
const repository = a.repository as string;
const builderId = a["builder-id"] as string;
const invocationId = a["invocation-id"] as string;

const predicate = {
  buildDefinition: {
    buildType: "https://github.com/mailroom/mailroom/blob/main/docs/releasing.md#build-type-v1",
    externalParameters: { version, source: { uri: `git+${repository}`, digest: { gitCommit: commit } } },
    internalParameters: {
      sourceDateEpoch: a["source-date-epoch"],
      builder: "buildah bud --isolation chroot",
    },
    resolvedDependencies: [
      { uri: `git+${repository}`, digest: { gitCommit: commit } },
      ...(a["base-image"]?.includes("@sha256:")
        ? [{ uri: a["base-image"].split("@")[0], digest: { sha256: a["base-image"].split("@sha256:")[1] } }]
        : []),
    ],
  },
  runDetails: {
    builder: { id: builderId },
    metadata: {
      invocationId,
      startedOn: a.started,
      finishedOn: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    },
  },
};
const statement = {
  _type: "https://in-toto.io/Statement/v1",
  subject: [
    { name: "mailroom", digest: { sha256: imageDigest.replace(/^sha256:/, "") } },
    { name: `mailroom-${version}.tgz`, digest: { sha256: chartSha } },
  ],
  predicateType: "https://slsa.dev/provenance/v1",
  predicate,
};
const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
writeFileSync(path.join(out, "provenance.slsa.json"), json(predicate));
writeFileSync(path.join(out, "provenance.intoto.json"), json(statement));
writeFileSync(
  path.join(out, "release.json"),
  json({
    version,
    commit,
    image: { digest: imageDigest },
    chart: { file: `mailroom-${version}.tgz`, sha256: chartSha },
  }),
);
