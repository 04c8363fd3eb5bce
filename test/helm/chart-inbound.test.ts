import { loadConfig } from "@mailroom/core/config";
import { describe, expect, it } from "vitest";
import { findManifest, type Manifest, renderChart, renderChartError } from "./support/helm.ts";

// The bounce receiver (issue 17): off by default; when on, `mailroom smtp` behind port 25 of a Service of its
// own, and the programs told the MX host and SPF mechanisms the domains' records name.
const FULL = "mr-mailroom";
const INBOUND = { "inbound.enabled": "true", "inbound.mxHost": "mx.mail.example.com" };

function configOf(manifests: Manifest[], deployment: string) {
  const env: Record<string, string> = { ...findManifest(manifests, "ConfigMap", `${FULL}-config`).data };
  const [container] = findManifest(manifests, "Deployment", deployment).spec.template.spec.containers;
  for (const e of container.env) if (typeof e.value === "string") env[e.name] = e.value;
  return loadConfig({ ...env, DATABASE_URL: "postgres://u:p@db:5432/mailroom" });
}

describe("chart: inbound SMTP receiver", () => {
  it("renders nothing of it by default, and the domains get no MX record", async () => {
    const manifests = await renderChart();
    expect(manifests.filter((m) => m.metadata.name.startsWith(`${FULL}-inbound`))).toEqual([]);
    expect(configOf(manifests, `${FULL}-api`).dnsRecords.mxHost).toBeUndefined();
  });

  it("runs `mailroom smtp` behind port 25 of its own LoadBalancer Service when enabled", async () => {
    const manifests = await renderChart({
      set: { ...INBOUND, "config.spfMechanisms[0]": "include:_spf.relay.example" },
    });
    const pod = findManifest(manifests, "Deployment", `${FULL}-inbound`).spec.template.spec;
    const [container] = pod.containers;
    expect(container.args).toEqual(["smtp"]);
    expect(container.ports).toContainEqual({ name: "smtp", containerPort: 2525, protocol: "TCP" });
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "internal" });
    expect(pod.automountServiceAccountToken).toBe(false);

    const service = findManifest(manifests, "Service", `${FULL}-inbound`);
    expect(service.spec.type).toBe("LoadBalancer");
    expect(service.spec.externalTrafficPolicy).toBe("Local");
    expect(service.spec.ports).toEqual([
      { name: "smtp", port: 25, targetPort: "smtp", protocol: "TCP", appProtocol: "smtp" },
    ]);
    // The API Service is untouched: port 25 is the receiver's alone.
    expect(
      findManifest(manifests, "Service", `${FULL}-api`).spec.ports.map((p: { port: number }) => p.port),
    ).toEqual([443]);

    const inbound = configOf(manifests, `${FULL}-inbound`);
    expect(inbound.inbound).toMatchObject({ enabled: true, host: "0.0.0.0", port: 2525 });
    expect(inbound.smtpProgram.internalPort).toBe(9467);
    // One door per Deployment (ADR 0019): submission has its own, and this pod mounts no certificate for it.
    expect(inbound.submission.enabled).toBe(false);
    // The programs that write domain records name the receiver's host and the configured SPF mechanisms.
    for (const program of ["api", "worker"]) {
      expect(configOf(manifests, `${FULL}-${program}`).dnsRecords).toEqual({
        mxHost: "mx.mail.example.com",
        spfMechanisms: ["include:_spf.relay.example"],
      });
    }
  });

  it("lets SMTP in from anywhere and nothing else but the internal port; its metrics are scraped", async () => {
    const manifests = await renderChart({
      set: { ...INBOUND, "networkPolicy.enabled": "true", "metrics.podMonitor.enabled": "true" },
    });
    const monitor = findManifest(manifests, "PodMonitor", FULL);
    expect(monitor.spec.selector.matchExpressions[0].values).toContain("inbound");
    const policy = findManifest(manifests, "NetworkPolicy", `${FULL}-inbound`);
    expect(
      policy.spec.ingress.map((rule: { ports: { port: string }[]; from?: unknown }) => rule.ports[0]?.port),
    ).toEqual(["smtp", "internal"]);
    expect(policy.spec.ingress[0].from).toBeUndefined();
  });

  it("refuses a malformed MX host or SPF mechanism", async () => {
    expect(await renderChartError({ set: { ...INBOUND, "inbound.mxHost": "not a host" } })).toMatch(/mxHost/);
    expect(await renderChartError({ set: { "config.spfMechanisms[0]": "v=spf1 -all" } })).toMatch(
      /spfMechanisms/,
    );
  });
});
