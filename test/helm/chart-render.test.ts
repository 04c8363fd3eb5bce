import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { CHART_DIR, ciValuesFiles, type Manifest, REPO_ROOT, renderChart, runHelm } from "./support/helm.ts";
import { loadMailroomCrdValidators, manifestProblems } from "./support/kube-schemas.ts";

// The real helm binary lints and renders the chart with its defaults and with every ci/*-values.yaml; every
// object it renders must be valid for the Kubernetes API (OpenAPI schema, no unknown fields) or for our CRDs.
const variants = [{ name: "defaults", valuesFiles: [] as string[] }];
for (const file of await ciValuesFiles()) variants.push({ name: file, valuesFiles: [file] });

describe("helm lint", () => {
  it.each(variants)("passes --strict with $name", async ({ valuesFiles }) => {
    const args = ["lint", CHART_DIR, "--strict"];
    for (const file of valuesFiles) args.push("--values", path.join(CHART_DIR, file));
    const result = await runHelm(args);
    expect(result.stderr + result.stdout).toContain("0 chart(s) failed");
    expect(result.code).toBe(0);
  });
});

describe("helm template", () => {
  let crdValidators: Awaited<ReturnType<typeof loadMailroomCrdValidators>>;
  beforeAll(async () => {
    crdValidators = await loadMailroomCrdValidators();
  });

  it("ships at least the three documented ci variants", () => {
    expect(variants.map((v) => v.name)).toEqual(
      expect.arrayContaining([
        "defaults",
        "ci/cert-manager-values.yaml",
        "ci/existing-secret-values.yaml",
        "ci/minimal-values.yaml",
      ]),
    );
  });

  it.each(variants)("renders only schema-valid objects with $name", async ({ valuesFiles }) => {
    const manifests = await renderChart({ valuesFiles });
    expect(manifests.length).toBeGreaterThan(5);
    const problems: string[] = [];
    for (const manifest of manifests) {
      for (const p of await manifestProblems(manifest, crdValidators)) {
        problems.push(`${manifest.kind}/${manifest.metadata.name} ${p.path}: ${p.message}`);
      }
    }
    expect(problems).toEqual([]);
    const ids = manifests.map((m) => `${m.kind}/${m.metadata.namespace ?? ""}/${m.metadata.name}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("catches what it claims to: a misspelt field and a wrong type are reported", async () => {
    const [deployment] = (await renderChart()).filter((m) => m.kind === "Deployment");
    const broken = structuredClone(deployment) as Manifest;
    broken.spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem = true;
    broken.spec.replicas = "two";
    const problems = await manifestProblems(broken, crdValidators);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "/spec/replicas" }),
        expect.objectContaining({
          path: "/spec/template/spec/containers/0/securityContext/readOnlyRootFileSystem",
        }),
      ]),
    );
  });

  it("templates the CRDs exactly as generated in crds/, with labels and the keep policy", async () => {
    const crds = (await renderChart()).filter((m) => m.kind === "CustomResourceDefinition");
    const files = (await readdir(path.join(REPO_ROOT, "crds"))).sort();
    expect(crds.map((c) => `${c.metadata.name}.yaml`).sort()).toEqual(files);
    for (const crd of crds) {
      const generated = parse(
        await readFile(path.join(REPO_ROOT, "crds", `${crd.metadata.name}.yaml`), "utf8"),
      );
      expect(crd.spec).toEqual(generated.spec);
      expect(crd.metadata.annotations?.["helm.sh/resource-policy"]).toBe("keep");
      expect(crd.metadata.labels?.["app.kubernetes.io/part-of"]).toBe("mailroom");
    }
  });

  it("keeps charts/mailroom/files/crds identical to crds/ (copy them over after regenerating)", async () => {
    const files = (await readdir(path.join(REPO_ROOT, "crds"))).sort();
    expect((await readdir(path.join(CHART_DIR, "files/crds"))).sort()).toEqual(files);
    for (const file of files) {
      const copy = await readFile(path.join(CHART_DIR, "files/crds", file), "utf8");
      expect(copy, `charts/mailroom/files/crds/${file} differs: run scripts/sync-chart-crds.sh`).toBe(
        await readFile(path.join(REPO_ROOT, "crds", file), "utf8"),
      );
    }
  });

  it("leaves the CRDs out with crds.enabled=false, and drops the keep policy with crds.keep=false", async () => {
    const off = await renderChart({ set: { "crds.enabled": "false" } });
    expect(off.filter((m) => m.kind === "CustomResourceDefinition")).toEqual([]);
    const notKept = await renderChart({ set: { "crds.keep": "false" } });
    for (const crd of notKept.filter((m) => m.kind === "CustomResourceDefinition")) {
      expect(crd.metadata.annotations?.["helm.sh/resource-policy"]).toBeUndefined();
    }
  });
});
