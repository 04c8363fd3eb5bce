/**
 * A release, as a platform team receives it (issue 34): built by `make release` from a clean checkout
 * (scripts/release/test.sh builds it into dist/release-test/ with a key pair made for this run, in
 * dist/release-test-keys/), pushed to a
 * real OCI registry on loopback with its signatures and attestations, verified against that registry with the
 * release's public key, and the chart installed from `oci://…@sha256:…` onto the real kube-apiserver with
 * the image pinned by digest and mirrored through `global.imageRegistry`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../helm/support/helm.ts";
import { apiRequest } from "../kubernetes/api.ts";
import { helmOnCluster } from "../kubernetes/helm.ts";
import { type Registry, startRegistry } from "./registry.ts";

const run = promisify(execFile);
const kube = inject("kube");
const DIR = path.join(REPO_ROOT, "dist/release-test");
const KEYS = path.join(REPO_ROOT, "dist/release-test-keys");
const MAX = 64 * 1024 * 1024;

interface ReleaseJson {
  version: string;
  commit: string;
  image: { digest: string };
  chart: { file: string; sha256: string };
}
interface Published {
  image: string;
  chart: string;
  chartVersion: string;
}

let registry: Registry;
let release: ReleaseJson;
let published: Published;
let cosignBin: string;

async function cosign(args: string[], key = path.join(KEYS, "cosign.pub")) {
  return run(cosignBin, [...args, "--key", key, "--insecure-ignore-tlog", "--allow-http-registry"], {
    maxBuffer: MAX,
    env: { ...process.env, COSIGN_PASSWORD: "" },
  });
}

/** The in-toto statements of one attestation type, verified with the key, decoded. */
async function attestations(
  type: string,
): Promise<{ predicateType: string; predicate: Record<string, unknown> }[]> {
  const { stdout } = await cosign(["verify-attestation", "--type", type, published.image]);
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(Buffer.from(JSON.parse(line).payload, "base64").toString("utf8")));
}

beforeAll(async () => {
  release = JSON.parse(await readFile(path.join(DIR, "release.json"), "utf8"));
  const tools = await run("bash", [path.join(REPO_ROOT, "scripts/release/tools.sh")], { maxBuffer: MAX });
  cosignBin = path.join(tools.stdout.trim().split("\n").at(-1) ?? "", "cosign");
  registry = await startRegistry();
  await run("bash", [path.join(REPO_ROOT, "scripts/release/publish.sh"), DIR], {
    maxBuffer: MAX,
    env: {
      ...process.env,
      REGISTRY: registry.host,
      PLAIN_HTTP: "1",
      COSIGN_KEY: path.join(KEYS, "cosign.key"),
      COSIGN_PASSWORD: "",
    },
  });
  published = JSON.parse(await readFile(path.join(DIR, "published.json"), "utf8"));
});

afterAll(async () => {
  await registry?.stop();
});

describe("the release in a registry", () => {
  it("keeps the image's digest: the registry serves the manifest the build wrote", async () => {
    expect(published.image).toBe(`${registry.host}/mailroom/mailroom@${release.image.digest}`);
    const { stdout } = await run("skopeo", [
      "inspect",
      "--tls-verify=false",
      `docker://${registry.host}/mailroom/mailroom:${release.version}`,
    ]);
    expect(JSON.parse(stdout).Digest).toBe(release.image.digest);
  });

  it("verifies the image's and the chart's signatures against the registry with the release key, and no other", async () => {
    for (const ref of [published.image, published.chart.replace(/^oci:\/\//, "")]) {
      const { stdout } = await cosign(["verify", ref]);
      const [claim] = JSON.parse(stdout) as { critical: { image: { "docker-manifest-digest": string } } }[];
      expect(claim?.critical.image["docker-manifest-digest"]).toBe(ref.split("@")[1]);
    }
    // A key pair that is not the release's: the same signatures do not verify.
    // (A directory of its own: cosign asks before overwriting a key, and the test has no terminal.)
    const otherDir = await mkdtemp(path.join(os.tmpdir(), "mailroom-other-key-"));
    const other = await run(
      cosignBin,
      ["generate-key-pair", "--output-key-prefix", path.join(otherDir, "other")],
      {
        env: { ...process.env, COSIGN_PASSWORD: "" },
      },
    ).then(() => path.join(otherDir, "other.pub"));
    await expect(cosign(["verify", published.image], other)).rejects.toThrow(/no matching signatures|verif/i);
    await rm(otherDir, { recursive: true, force: true });
  });

  it("attests an SPDX SBOM of the image that lists its Debian and npm packages", async () => {
    const [statement] = await attestations("spdxjson");
    const sbom = statement?.predicate as {
      spdxVersion: string;
      packages: { name: string; externalRefs?: { referenceLocator: string }[] }[];
    };
    expect(sbom.spdxVersion).toMatch(/^SPDX-2\./);
    const purls = sbom.packages.flatMap((p) => (p.externalRefs ?? []).map((r) => r.referenceLocator));
    const deb = purls.filter((p) => p.startsWith("pkg:deb/debian/"));
    const npm = purls.filter((p) => p.startsWith("pkg:npm/"));
    // The OS (libc, the shell's coreutils) and what the programs run on (Fastify, pg, graphile-worker).
    for (const name of ["libc6", "coreutils"])
      expect(deb.some((p) => p.startsWith(`pkg:deb/debian/${name}@`))).toBe(true);
    for (const name of ["fastify", "pg", "graphile-worker"])
      expect(npm.some((p) => p.startsWith(`pkg:npm/${name}@`))).toBe(true);
    // What the image leaves out (scripts/image's Dockerfile): the type checker is not a package of it.
    expect(npm.some((p) => p.startsWith("pkg:npm/typescript@"))).toBe(false);
    process.stdout.write(
      `› release: SBOM ${sbom.packages.length} packages (${deb.length} Debian, ${npm.length} npm) for ${release.image.digest}\n`,
    );
    // The folder's SBOM is the attested one.
    const folder = JSON.parse(await readFile(path.join(DIR, "sbom.spdx.json"), "utf8"));
    expect(folder.packages.length).toBe(sbom.packages.length);
  });

  it("attests SLSA provenance naming the commit the release was built from", async () => {
    const [statement] = await attestations("slsaprovenance1");
    expect(statement?.predicateType).toBe("https://slsa.dev/provenance/v1");
    const predicate = statement?.predicate as {
      buildDefinition: { externalParameters: { version: string; source: { digest: { gitCommit: string } } } };
      runDetails: { builder: { id: string } };
    };
    expect(predicate.buildDefinition.externalParameters.version).toBe(release.version);
    expect(predicate.buildDefinition.externalParameters.source.digest.gitCommit).toBe(release.commit);
    expect(predicate.runDetails.builder.id).toMatch(/make release|release\.yml/);
    // The commit exists in this repository, and it is what the checked-out tree's version files name.
    await run("git", ["-C", REPO_ROOT, "cat-file", "-e", `${release.commit}^{commit}`]);
    // The folder's statement names the same image and the chart archive as its subjects.
    const local = JSON.parse(await readFile(path.join(DIR, "provenance.intoto.json"), "utf8"));
    expect(local.subject.map((s: { digest: { sha256: string } }) => s.digest.sha256)).toEqual([
      release.image.digest.replace("sha256:", ""),
      release.chart.sha256,
    ]);
  });

  it("signs the folder's checksums; a changed checksum list no longer verifies", async () => {
    const verifyBlob = (file: string) =>
      run(cosignBin, [
        "verify-blob",
        "--key",
        path.join(DIR, "cosign.pub"),
        "--insecure-ignore-tlog",
        "--signature",
        path.join(DIR, "SHA256SUMS.sig"),
        file,
      ]);
    await verifyBlob(path.join(DIR, "SHA256SUMS"));
    await run("sha256sum", ["--check", "--quiet", "SHA256SUMS"], { cwd: DIR });
    const sums = await readFile(path.join(DIR, "SHA256SUMS"), "utf8");
    expect(sums).toContain(`${release.chart.sha256}  ${release.chart.file}`);
    // One checksum swapped (as for a substituted chart): the signature no longer matches the list.
    const forged = path.join(KEYS, "SHA256SUMS.forged");
    await writeFile(forged, sums.replace(release.chart.sha256, "0".repeat(64)));
    await expect(verifyBlob(forged)).rejects.toThrow(/invalid signature|verif/i);
  });
});

describe("installed from the registry", () => {
  it("helm installs oci://…@sha256 onto the API server with every image pinned by digest in the mirror", async () => {
    const namespace = "release-oci";
    const digest = release.image.digest;
    await helmOnCluster([
      "install",
      "mr-oci",
      published.chart,
      "--plain-http",
      "-n",
      namespace,
      "--create-namespace",
      "--no-hooks",
      "--take-ownership",
      "--set",
      `global.imageRegistry=${registry.host}`,
      "--set",
      `image.digest=${digest}`,
    ]);
    const manifest = parseAllDocuments(await helmOnCluster(["get", "manifest", "mr-oci", "-n", namespace]))
      .map((d) => d.toJS())
      .filter((m) => m?.kind === "Deployment");
    expect(manifest.length).toBeGreaterThanOrEqual(2);
    const chartVersion = await helmOnCluster(["list", "-n", namespace, "-o", "json"]);
    expect(JSON.parse(chartVersion)[0].chart).toBe(`mailroom-${release.version}`);
    for (const m of manifest) {
      const live = await apiRequest(
        kube,
        "GET",
        `/apis/apps/v1/namespaces/${namespace}/deployments/${m.metadata.name}`,
      );
      expect(live.status).toBe(200);
      const images = (
        live.body as { spec: { template: { spec: { containers: { image: string }[] } } } }
      ).spec.template.spec.containers.map((c) => c.image);
      for (const image of images) expect(image).toBe(`${registry.host}/mailroom/mailroom@${digest}`);
    }
    await helmOnCluster(["uninstall", "mr-oci", "-n", namespace, "--no-hooks"]);
  });
});
