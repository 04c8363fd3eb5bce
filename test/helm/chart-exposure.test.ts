/**
 * Reaching the API from outside (Ingress, Gateway API HTTPRoute and BackendTLSPolicy) and the ServiceAccounts
 * the programs run as (serviceAccount.create / serviceAccount.name), on the rendered chart. The real API server
 * accepts the same objects server-side (ci/exposure-values.yaml in test/kubernetes/chart.test.ts).
 */
import { describe, expect, it } from "vitest";
import { findManifest, type Manifest, renderChart, renderChartError } from "./support/helm.ts";

const FULL = "mr-mailroom";
const INBOUND = { "inbound.enabled": "true", "inbound.mxHost": "mx.mail.example.com" };
const SUBMISSION = { "submission.enabled": "true" };
const PROGRAMS = ["api", "worker", "operator", "inbound", "submission"];

const kinds = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
const accountOf = (manifests: Manifest[], program: string) =>
  findManifest(manifests, "Deployment", `${FULL}-${program}`).spec.template.spec.serviceAccountName;
const operatorSubjects = (manifests: Manifest[]) =>
  manifests
    .filter((m) => m.kind === "ClusterRoleBinding" || m.kind === "RoleBinding")
    .filter((m) => m.roleRef.name.endsWith("-operator"))
    .flatMap((m) => m.subjects.map((s: { name: string }) => s.name));

describe("exposure", () => {
  it("renders neither an Ingress nor a route by default", async () => {
    const manifests = await renderChart();
    for (const kind of ["Ingress", "HTTPRoute", "BackendTLSPolicy"])
      expect(kinds(manifests, kind)).toEqual([]);
  });

  it("routes every host of the Ingress to the API's HTTPS port, with the class, TLS and annotations given", async () => {
    const manifests = await renderChart({ valuesFiles: ["ci/exposure-values.yaml"] });
    const ingress = findManifest(manifests, "Ingress", `${FULL}-api`);
    expect(ingress.metadata.annotations).toEqual({ "nginx.ingress.kubernetes.io/backend-protocol": "HTTPS" });
    expect(ingress.spec).toEqual({
      ingressClassName: "nginx",
      tls: [{ secretName: "mail-example-tls", hosts: ["mail.example.com"] }],
      rules: [
        {
          host: "mail.example.com",
          http: {
            paths: [
              {
                path: "/",
                pathType: "Prefix",
                backend: { service: { name: `${FULL}-api`, port: { name: "https" } } },
              },
            ],
          },
        },
      ],
    });
    // The Service port declares what the proxy must speak to it.
    const service = findManifest(manifests, "Service", `${FULL}-api`);
    expect(service.spec.ports[0]).toMatchObject({ name: "https", appProtocol: "https" });
  });

  it("attaches the HTTPRoute to the Gateway given, and verifies the API's certificate with the chart's CA", async () => {
    const manifests = await renderChart({ valuesFiles: ["ci/exposure-values.yaml"] });
    const route = findManifest(manifests, "HTTPRoute", `${FULL}-api`);
    expect(route.spec).toEqual({
      parentRefs: [{ name: "public", namespace: "gateways", sectionName: "https" }],
      hostnames: ["mail.example.com"],
      rules: [
        {
          matches: [{ path: { type: "PathPrefix", value: "/" } }],
          backendRefs: [{ name: `${FULL}-api`, port: 443 }],
        },
      ],
    });
    const policy = findManifest(manifests, "BackendTLSPolicy", `${FULL}-api`);
    expect(policy.spec).toEqual({
      targetRefs: [{ group: "", kind: "Service", name: `${FULL}-api`, sectionName: "https" }],
      validation: {
        caCertificateRefs: [{ group: "", kind: "ConfigMap", name: `${FULL}-ca` }],
        hostname: `${FULL}-api.mail.svc`,
      },
    });
    // The certificate the API serves carries that name.
    findManifest(manifests, "ConfigMap", `${FULL}-ca`);
  });

  it("refuses an Ingress without hosts, a route without a Gateway, and backend TLS without a CA it can name", async () => {
    expect(await renderChartError({ set: { "ingress.enabled": "true" } })).toMatch(/ingress\.hosts/);
    expect(await renderChartError({ set: { "httpRoute.enabled": "true" } })).toMatch(/httpRoute\.parentRefs/);
    const certManager = {
      "tls.mode": "certManager",
      "tls.certManager.issuerRef.name": "ca",
      "httpRoute.enabled": "true",
      "httpRoute.parentRefs[0].name": "public",
      "httpRoute.backendTLS.enabled": "true",
    };
    expect(await renderChartError({ set: certManager })).toMatch(/httpRoute\.backendTLS\.caConfigMap/);
    const named = await renderChart({
      set: { ...certManager, "httpRoute.backendTLS.caConfigMap": "internal-ca" },
    });
    expect(
      findManifest(named, "BackendTLSPolicy", `${FULL}-api`).spec.validation.caCertificateRefs[0].name,
    ).toBe("internal-ca");
  });
});

describe("service accounts", () => {
  it("by default, one per program, each program's pods running as its own, the operator's bound to its RBAC", async () => {
    const manifests = await renderChart({ set: { ...INBOUND, ...SUBMISSION } });
    expect(
      kinds(manifests, "ServiceAccount")
        .map((m) => m.metadata.name)
        .sort(),
    ).toEqual(PROGRAMS.map((p) => `${FULL}-${p}`).sort());
    for (const program of PROGRAMS) expect(accountOf(manifests, program), program).toBe(`${FULL}-${program}`);
    expect(new Set(operatorSubjects(manifests))).toEqual(new Set([`${FULL}-operator`]));
  });

  it("serviceAccount.name: one account the chart creates, every program's pods and the operator's RBAC use it", async () => {
    const manifests = await renderChart({
      set: { ...INBOUND, ...SUBMISSION, "serviceAccount.name": "mail-sa" },
    });
    const accounts = kinds(manifests, "ServiceAccount");
    expect(accounts.map((m) => m.metadata.name)).toEqual(["mail-sa"]);
    expect(accounts[0]?.automountServiceAccountToken).toBe(false);
    for (const program of PROGRAMS) expect(accountOf(manifests, program), program).toBe("mail-sa");
    expect(new Set(operatorSubjects(manifests))).toEqual(new Set(["mail-sa"]));
  });

  it("serviceAccount.create=false: the chart makes none and names the ones that must exist", async () => {
    const perProgram = await renderChart({
      set: { ...INBOUND, ...SUBMISSION, "serviceAccount.create": "false" },
    });
    expect(kinds(perProgram, "ServiceAccount")).toEqual([]);
    expect(accountOf(perProgram, "worker")).toBe(`${FULL}-worker`);
    const named = await renderChart({
      set: { "serviceAccount.create": "false", "serviceAccount.name": "platform-sa" },
    });
    expect(kinds(named, "ServiceAccount")).toEqual([]);
    expect(accountOf(named, "api")).toBe("platform-sa");
    expect(new Set(operatorSubjects(named))).toEqual(new Set(["platform-sa"]));
  });
});
