import { describe, expect, it } from "vitest";
import { type Manifest, renderChart } from "../helm/support/helm.ts";

// The chart's half of expand/contract across one release (ADRs 0041, 0042): on `helm upgrade` the migrations
// Job runs before any new pod, and each Deployment on the mail path rolls without ever dropping a ready pod,
// so the previous release's pods serve beside the new ones (on the new schema) until those are ready.

const MAIL_PATH = ["api", "worker", "submission", "inbound"];

async function rendered(set: Record<string, string> = {}): Promise<Manifest[]> {
  return renderChart({ set: { "submission.enabled": "true", "inbound.enabled": "true", ...set } });
}

const component = (m: Manifest) => m.metadata.labels?.["app.kubernetes.io/component"] ?? "";

describe.each([
  ["a database of your own", {}],
  ["CloudNativePG", { "postgresql.cloudnative.enabled": "true" }],
])("helm upgrade with %s", (_, set) => {
  it("migrates in a pre-upgrade hook, before the Deployments are applied", async () => {
    const manifests = await rendered(set);
    const job = manifests.find((m) => m.kind === "Job" && component(m) === "migrations");
    expect(job?.metadata.annotations?.["helm.sh/hook"]?.split(",")).toContain("pre-upgrade");
    // Hooks are not part of the release's resources: no Deployment may be a hook, or it could roll first.
    const deployments = manifests.filter((m) => m.kind === "Deployment");
    for (const d of deployments)
      expect(d.metadata.annotations?.["helm.sh/hook"], d.metadata.name).toBeUndefined();
  });

  it("rolls each mail-path Deployment new beside old: a new pod first, an old one only once it is ready", async () => {
    const deployments = (await rendered(set)).filter((m) => m.kind === "Deployment");
    const onMailPath = deployments.filter((d) => MAIL_PATH.includes(component(d)));
    expect(onMailPath.map(component).sort()).toEqual([...MAIL_PATH].sort());
    for (const d of onMailPath) {
      expect(d.spec.strategy, d.metadata.name).toEqual({
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
      });
      const container = d.spec.template.spec.containers[0];
      expect(container.readinessProbe?.httpGet?.path, d.metadata.name).toBe("/readyz");
    }
  });
});
