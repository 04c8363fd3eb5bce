import { beforeAll, describe, expect, it } from "vitest";
import { findManifest, type Manifest, renderChart } from "./support/helm.ts";
import { type CrdValidator, loadMailroomCrdValidators, manifestProblems } from "./support/kube-schemas.ts";

// postgresql.cloudnative.enabled (issue 28): the chart declares a CloudNativePG Cluster and wires the Secret the
// operator generates for it into every program. The Cluster is checked against CloudNativePG's own CRD schema
// (test/helm/fixtures/cloudnative-pg, v1.30.0); server-side validation follows once the tests run a real API
// server with that CRD installed.
const CLUSTER = "mr-mailroom-db";
let validators: Map<string, CrdValidator>;
let manifests: Manifest[];
beforeAll(async () => {
  validators = await loadMailroomCrdValidators();
  manifests = await renderChart({ set: { "postgresql.cloudnative.enabled": "true" } });
});

const containersOf = (m: Manifest): Manifest[] => m.spec.template.spec.containers;
const envOf = (container: Manifest, name: string) =>
  (container.env as Array<{ name: string; value?: string; valueFrom?: Manifest }>).find(
    (e) => e.name === name,
  );

describe("postgresql.cloudnative.enabled", () => {
  it("renders a Cluster valid for CloudNativePG's CRD: 3 instances, synchronous replication", async () => {
    const cluster = findManifest(manifests, "Cluster", CLUSTER);
    expect(cluster.apiVersion).toBe("postgresql.cnpg.io/v1");
    expect(await manifestProblems(cluster, validators)).toEqual([]);
    expect(cluster.spec.instances).toBe(3);
    expect(cluster.spec.postgresql.synchronous).toEqual({
      method: "any",
      number: 1,
      dataDurability: "required",
    });
    expect(cluster.spec.bootstrap.initdb).toEqual({ database: "mailroom", owner: "mailroom" });
    expect(cluster.spec.postgresql.parameters.max_connections).toBe("300");
  });

  it("gives each Postgres pod a CPU request and a memory request equal to its limit (never BestEffort)", async () => {
    const cluster = findManifest(manifests, "Cluster", CLUSTER);
    expect(cluster.spec.resources).toEqual({
      requests: { cpu: "500m", memory: "2Gi" },
      limits: { memory: "2Gi" },
    });
    expect(await manifestProblems(cluster, validators)).toEqual([]);
  });

  it("the CRD check catches what it claims to: a misspelt field, a wrong type, a value out of its enum", async () => {
    const broken = structuredClone(findManifest(manifests, "Cluster", CLUSTER));
    broken.spec.instance = 3;
    broken.spec.postgresql.synchronous.number = "one";
    broken.spec.postgresql.synchronous.method = "all";
    const problems = (await manifestProblems(broken, validators)).map((p) => p.path);
    expect(problems).toEqual(
      expect.arrayContaining([
        "/spec/instance",
        "/spec/postgresql/synchronous/number",
        "/spec/postgresql/synchronous/method",
      ]),
    );
  });

  it("wires the Cluster's generated Secret into every program, and the -ro Service into the API's reads", () => {
    const workloads = manifests.filter((m) => m.kind === "Deployment");
    expect(workloads.length).toBeGreaterThanOrEqual(3);
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        expect(envOf(container, "DATABASE_URL")?.valueFrom, `${workload.metadata.name}`).toEqual({
          secretKeyRef: { name: `${CLUSTER}-app`, key: "uri" },
        });
      }
    }
    const [api] = containersOf(findManifest(manifests, "Deployment", "mr-mailroom-api"));
    expect(envOf(api as Manifest, "DATABASE_READ_URL")?.value).toBe(
      `postgresql://$(CNPG_APP_USERNAME):$(CNPG_APP_PASSWORD)@${CLUSTER}-ro:5432/mailroom`,
    );
    // Kubernetes expands $(VAR) only from variables defined before it in the list.
    const names = ((api?.env ?? []) as Array<{ name: string }>).map((e) => e.name);
    expect(names.indexOf("CNPG_APP_PASSWORD")).toBeLessThan(names.indexOf("DATABASE_READ_URL"));
    const [worker] = containersOf(findManifest(manifests, "Deployment", "mr-mailroom-worker"));
    expect(envOf(worker as Manifest, "DATABASE_READ_URL")).toBeUndefined();
  });

  it("runs the migrations Job after install (the Cluster exists then) and before upgrades, waiting for it", () => {
    const job = findManifest(manifests, "Job", "mr-mailroom-migrate");
    expect(job.metadata.annotations?.["helm.sh/hook"]).toBe("post-install,pre-upgrade");
    const [migrate] = containersOf(job);
    expect(migrate?.args).toEqual(["migrate", "--wait", "540"]);
    expect(envOf(migrate as Manifest, "DATABASE_URL")?.valueFrom).toEqual({
      secretKeyRef: { name: `${CLUSTER}-app`, key: "uri" },
    });
  });

  it("renders none of it by default: DATABASE_URL from database.existingSecret, migrations before install", async () => {
    const defaults = await renderChart();
    expect(defaults.filter((m) => m.kind === "Cluster")).toEqual([]);
    const job = findManifest(defaults, "Job", "mr-mailroom-migrate");
    expect(job.metadata.annotations?.["helm.sh/hook"]).toBe("pre-install,pre-upgrade");
    const [api] = containersOf(findManifest(defaults, "Deployment", "mr-mailroom-api"));
    expect(envOf(api as Manifest, "DATABASE_URL")?.valueFrom).toEqual({
      secretKeyRef: { name: "mailroom-database", key: "DATABASE_URL" },
    });
    expect(envOf(api as Manifest, "DATABASE_READ_URL")).toBeUndefined();
  });
});
