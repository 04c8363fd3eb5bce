import { loadConfig } from "@mailroom/core/config";
import { describe, expect, it } from "vitest";
import { findManifest, type Manifest, renderChart } from "./support/helm.ts";

// ADR 0064's amendment: with worker.reservedLane.separate the reserved lane runs in a Deployment of its own,
// <fullname>-worker-reserved, and the worker's pods run without it; without it, every worker pod runs all
// three lanes as before. Each pod's config is read back through loadConfig, as the program would.
const DEPLOYMENT = "mr-mailroom-worker";
const RESERVED = "mr-mailroom-worker-reserved";

const names = (manifests: Manifest[], kind: string) =>
  manifests.filter((m) => m.kind === kind).map((m) => m.metadata.name);

/** The worker config a Deployment's container would load: the ConfigMap, then its own env. */
function workerConfigOf(manifests: Manifest[], deployment: string) {
  const data = findManifest(manifests, "ConfigMap", "mr-mailroom-config").data as Record<string, string>;
  const container = findManifest(manifests, "Deployment", deployment).spec.template.spec.containers[0];
  const env: Record<string, string> = { ...data, DATABASE_URL: "postgres://u:p@db:5432/mailroom" };
  for (const e of container.env as Array<{ name: string; value?: string }>) {
    if (e.value !== undefined) env[e.name] = e.value;
  }
  return loadConfig(env).worker;
}

describe("worker.reservedLane", () => {
  it("deploys the reserved lane on its own when asked, with what a worker Deployment has", async () => {
    const manifests = await renderChart({
      set: { "worker.reservedLane.separate": "true", "metrics.podMonitor.enabled": "true" },
    });
    expect(names(manifests, "Deployment")).toEqual(expect.arrayContaining([DEPLOYMENT, RESERVED]));
    expect(workerConfigOf(manifests, DEPLOYMENT).lanes).toEqual(["delivery", "background"]);
    expect(workerConfigOf(manifests, RESERVED)).toMatchObject({
      lanes: ["reserved"],
      reservedConcurrency: 2,
      deliverySlots: 2,
    });

    const reserved = findManifest(manifests, "Deployment", RESERVED);
    const worker = findManifest(manifests, "Deployment", DEPLOYMENT);
    expect(reserved.spec.replicas).toBe(1);
    const selector = reserved.spec.selector.matchLabels;
    expect(selector["app.kubernetes.io/component"]).toBe("worker-reserved");
    // Its own pods: the worker's selector (and so its PDB, HPA and Service) does not take them.
    expect(worker.spec.selector.matchLabels["app.kubernetes.io/component"]).toBe("worker");
    const pod = reserved.spec.template.spec;
    const main = worker.spec.template.spec;
    expect(pod.containers[0].args).toEqual(["worker"]);
    // Its CPU request is its weight when it wakes on a busy node, and no CPU limit throttles it (ADR 0072).
    expect(pod.containers[0].resources.requests.cpu).toBe("500m");
    expect(pod.containers[0].resources.limits.cpu).toBeUndefined();
    expect(pod.serviceAccountName).toBe(main.serviceAccountName);
    for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
      expect(pod.containers[0][probe], probe).toEqual(main.containers[0][probe]);
    }
    expect(pod.containers[0].ports).toEqual(main.containers[0].ports);
    // The SMTP relay and the key-encryption key, as every worker has them.
    const envNames = (spec: Manifest) =>
      (spec.containers[0].env as Array<{ name: string }>)
        .map((e) => e.name)
        .filter((n) => n !== "MAILROOM_WORKER_LANES");
    expect(envNames(pod)).toEqual(envNames(main));

    const pdb = findManifest(manifests, "PodDisruptionBudget", RESERVED);
    expect(pdb.spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: selector } });
    const metrics = findManifest(manifests, "Service", `${RESERVED}-metrics`);
    expect(metrics.spec.selector).toEqual(selector);
    expect(metrics.spec.ports[0]).toMatchObject({ port: 9465, targetPort: "internal" });
    expect(metrics.metadata.labels?.["mailroom.dev/metrics"]).toBe("true");
    const policy = findManifest(manifests, "NetworkPolicy", RESERVED);
    expect(policy.spec.podSelector.matchLabels).toEqual(selector);
    const podMonitor = manifests.find((m) => m.kind === "PodMonitor");
    expect(podMonitor?.spec.selector.matchExpressions[0].values).toContain("worker-reserved");
    // No autoscaler of its own: its few slots are not what a CPU target should grow.
    expect(names(manifests, "HorizontalPodAutoscaler")).not.toContain(RESERVED);
  });

  it("takes its replicas and resources from the values, and its egress from the worker's", async () => {
    const manifests = await renderChart({
      set: {
        "worker.reservedLane.separate": "true",
        "worker.reservedLane.replicas": "3",
        "worker.reservedLane.resources.requests.cpu": "250m",
        "worker.reservedConcurrency": "4",
        "networkPolicy.egress.enabled": "true",
      },
    });
    const reserved = findManifest(manifests, "Deployment", RESERVED);
    expect(reserved.spec.replicas).toBe(3);
    expect(reserved.spec.template.spec.containers[0].resources.requests.cpu).toBe("250m");
    expect(workerConfigOf(manifests, RESERVED)).toMatchObject({ lanes: ["reserved"], deliverySlots: 4 });
    const egress = (name: string) => findManifest(manifests, "NetworkPolicy", name).spec.egress;
    expect(egress(RESERVED)).toEqual(egress(DEPLOYMENT));
  });

  it("runs the reserved lane on its own by default (ADR 0072)", async () => {
    const manifests = await renderChart({});
    expect(names(manifests, "Deployment")).toEqual(expect.arrayContaining([DEPLOYMENT, RESERVED]));
    expect(workerConfigOf(manifests, DEPLOYMENT).lanes).toEqual(["delivery", "background"]);
    expect(workerConfigOf(manifests, RESERVED).lanes).toEqual(["reserved"]);
    const reserved = findManifest(manifests, "Deployment", RESERVED).spec.template.spec.containers[0];
    const worker = findManifest(manifests, "Deployment", DEPLOYMENT).spec.template.spec.containers[0];
    // Five times a worker pod's weight: its CPU request is what makes it run first when it wakes.
    expect(reserved.resources.requests.cpu).toBe("500m");
    expect(worker.resources.requests.cpu).toBe("100m");
  });

  it.each<{ why: string; set: Record<string, string>; lanes: string[] }>([
    {
      why: "separate=false",
      set: { "worker.reservedLane.separate": "false" },
      lanes: ["delivery", "reserved", "background"],
    },
    {
      why: "no reserved slots",
      set: { "worker.reservedLane.separate": "true", "worker.reservedConcurrency": "0" },
      lanes: ["delivery", "background"],
    },
  ])("keeps the worker as one Deployment with $why", async ({ set, lanes }) => {
    const manifests = await renderChart({ set });
    for (const kind of ["Deployment", "PodDisruptionBudget", "NetworkPolicy"]) {
      expect(names(manifests, kind), kind).not.toContain(RESERVED);
    }
    expect(names(manifests, "Service")).not.toContain(`${RESERVED}-metrics`);
    const container = findManifest(manifests, "Deployment", DEPLOYMENT).spec.template.spec.containers[0];
    expect((container.env as Array<{ name: string }>).map((e) => e.name)).not.toContain(
      "MAILROOM_WORKER_LANES",
    );
    expect(workerConfigOf(manifests, DEPLOYMENT).lanes).toEqual(lanes);
  });
});
