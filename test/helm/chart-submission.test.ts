import { X509Certificate } from "node:crypto";
import { loadConfig } from "@mailroom/core/config";
import { beforeAll, describe, expect, it } from "vitest";
import { findManifest, type Manifest, NAMESPACE, renderChart } from "./support/helm.ts";

// SMTP submission in the chart (ADR 0019): off by default; on, a Deployment of `mailroom smtp` with only its
// submission door open, behind a Service on 587 and 465, with its own NetworkPolicy, PDB and probes, serving
// the API's certificate.
const FULL = "mr-mailroom";

describe("chart: SMTP submission", () => {
  let on: Manifest[];
  beforeAll(async () => {
    on = await renderChart({ valuesFiles: ["ci/submission-values.yaml"], set: { "tls.mode": "generated" } });
  });

  it("renders nothing of it by default", async () => {
    const names = (await renderChart()).map((m) => `${m.kind}/${m.metadata.name}`);
    expect(names.filter((n) => n.includes("-submission"))).toEqual([]);
  });

  it("runs `mailroom smtp` (submission door only) on unprivileged ports, probed on its internal port, without a service account token", () => {
    const spec = findManifest(on, "Deployment", `${FULL}-submission`).spec.template.spec;
    const [container] = spec.containers;
    expect(container.args).toEqual(["smtp"]);
    expect(container.ports).toEqual([
      { name: "submission", containerPort: 2587, protocol: "TCP" },
      { name: "submissions", containerPort: 2465, protocol: "TCP" },
      { name: "internal", containerPort: 9467, protocol: "TCP" },
    ]);
    expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "internal" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "internal" });
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true });
    expect(container.volumeMounts).toContainEqual({
      name: "tls",
      mountPath: "/etc/mailroom/tls",
      readOnly: true,
    });
  });

  it("configures the program with values Mailroom's own config parser accepts", () => {
    const env: Record<string, string> = { ...findManifest(on, "ConfigMap", `${FULL}-config`).data };
    const [container] = findManifest(on, "Deployment", `${FULL}-submission`).spec.template.spec.containers;
    for (const e of container.env) if (typeof e.value === "string") env[e.name] = e.value;
    const config = loadConfig({ ...env, DATABASE_URL: "postgres://u:p@db:5432/mailroom" });
    expect(config.submission).toEqual({
      enabled: true,
      host: "0.0.0.0",
      port: 2587,
      tlsPort: 2465,
      timeoutSeconds: 300,
    });
    // One door per Deployment: the bounce receiver has its own (chart-inbound.test.ts).
    expect(config.inbound.enabled).toBe(false);
    expect(config.smtpProgram.internalPort).toBe(9467);
    expect(config.api.tls).toEqual({
      certFile: "/etc/mailroom/tls/tls.crt",
      keyFile: "/etc/mailroom/tls/tls.key",
    });
  });

  it("exposes 587 and 465 through its Service, and lets only the submission and internal ports in", () => {
    const service = findManifest(on, "Service", `${FULL}-submission`);
    expect(service.spec.type).toBe("LoadBalancer");
    expect(
      service.spec.ports.map((p: { port: number; targetPort: string }) => [p.port, p.targetPort]),
    ).toEqual([
      [587, "submission"],
      [465, "submissions"],
    ]);
    expect(service.spec.selector["app.kubernetes.io/component"]).toBe("submission");
    const policy = findManifest(on, "NetworkPolicy", `${FULL}-submission`);
    expect(
      policy.spec.ingress.map((r: { ports: Array<{ port: string }> }) => r.ports.map((p) => p.port)),
    ).toEqual([["submission", "submissions"], ["internal"]]);
    expect(policy.spec.ingress[0].from).toEqual([
      { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } },
    ]);
    expect(
      policy.spec.egress.flatMap((r: { ports: Array<{ port: number }> }) => r.ports.map((p) => p.port)),
    ).toEqual([53, 53, 5432]);
    expect(findManifest(on, "PodDisruptionBudget", `${FULL}-submission`).spec.maxUnavailable).toBe(1);
    expect(
      findManifest(on, "Service", `${FULL}-submission-metrics`).metadata.labels?.["mailroom.dev/metrics"],
    ).toBe("true");
    const monitor = findManifest(on, "PodMonitor", FULL);
    expect(monitor.spec.selector.matchExpressions[0].values).toContain("submission");
  });

  it("serves a certificate that also names the submission Service", () => {
    const secret = findManifest(on, "Secret", `${FULL}-api-tls`);
    const cert = new X509Certificate(Buffer.from(secret.data["tls.crt"], "base64"));
    expect(cert.checkHost(`${FULL}-submission.${NAMESPACE}.svc`)).toBe(`${FULL}-submission.${NAMESPACE}.svc`);
    expect(cert.checkHost(`${FULL}-api.${NAMESPACE}.svc`)).toBe(`${FULL}-api.${NAMESPACE}.svc`);
  });
});
