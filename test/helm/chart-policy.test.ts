import { loadConfig } from "@mailroom/core/config";
import { beforeAll, describe, expect, it } from "vitest";
import { findManifest, type Manifest, NAMESPACE, renderChart, renderChartError } from "./support/helm.ts";

// What the chart promises a platform team, asserted on its rendered output: the restricted Pod Security
// Standard, least-privilege RBAC, hooks that run in the right order, probes on the internal ports.
const FULL = "mr-mailroom";

function podSpecs(manifests: Manifest[]): Array<{ owner: string; spec: Manifest["spec"] }> {
  const out: Array<{ owner: string; spec: Manifest["spec"] }> = [];
  for (const m of manifests) {
    const owner = `${m.kind}/${m.metadata.name}`;
    if (m.kind === "Pod") out.push({ owner, spec: m.spec });
    if (m.kind === "Deployment" || m.kind === "Job") out.push({ owner, spec: m.spec.template.spec });
  }
  return out;
}

describe("security defaults", () => {
  let manifests: Manifest[];
  beforeAll(async () => {
    manifests = await renderChart();
  });

  it("runs every pod and container under the restricted Pod Security Standard", () => {
    const pods = podSpecs(manifests);
    expect(pods.map((p) => p.owner).sort()).toEqual([
      `Deployment/${FULL}-api`,
      `Deployment/${FULL}-operator`,
      `Deployment/${FULL}-worker`,
      `Deployment/${FULL}-worker-reserved`,
      `Job/${FULL}-migrate`,
      `Pod/${FULL}-helm-test-send`,
    ]);
    for (const { owner, spec } of pods) {
      expect(spec.securityContext, owner).toMatchObject({
        runAsNonRoot: true,
        seccompProfile: { type: "RuntimeDefault" },
      });
      expect(spec.hostNetwork ?? false, owner).toBe(false);
      expect(spec.hostPID ?? false, owner).toBe(false);
      for (const container of [...spec.containers, ...(spec.initContainers ?? [])]) {
        expect(container.securityContext, `${owner} ${container.name}`).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "RuntimeDefault" },
        });
        // A read-only root needs somewhere to write: /tmp is an emptyDir with a size limit.
        const tmp = container.volumeMounts.find((v: { mountPath: string }) => v.mountPath === "/tmp");
        expect(tmp, `${owner} ${container.name} mounts /tmp`).toBeDefined();
        const volume = spec.volumes.find((v: { name: string }) => v.name === tmp.name);
        expect(volume.emptyDir.sizeLimit, owner).toBeTruthy();
      }
    }
  });

  it("gives a service account token only to the operator", () => {
    for (const { owner, spec } of podSpecs(manifests)) {
      expect(spec.automountServiceAccountToken, owner).toBe(owner === `Deployment/${FULL}-operator`);
    }
    for (const sa of manifests.filter((m) => m.kind === "ServiceAccount")) {
      expect(sa.automountServiceAccountToken, sa.metadata.name).toBe(sa.metadata.name === `${FULL}-operator`);
    }
  });

  it("takes DATABASE_URL from the existing Secret and the key-encryption key as a mounted file", () => {
    for (const component of ["api", "worker", "operator"]) {
      const deployment = findManifest(manifests, "Deployment", `${FULL}-${component}`);
      const [container] = deployment.spec.template.spec.containers;
      const env = Object.fromEntries(container.env.map((e: { name: string }) => [e.name, e]));
      expect(env.DATABASE_URL.valueFrom.secretKeyRef).toEqual({
        name: "mailroom-database",
        key: "DATABASE_URL",
      });
      expect(env.MAILROOM_KEY_ENCRYPTION_KEY).toBeUndefined();
      expect(env.MAILROOM_KEY_ENCRYPTION_KEY_FILE.value).toBe("/etc/mailroom/kek/key");
      const kek = deployment.spec.template.spec.volumes.find((v: { name: string }) => v.name === "kek");
      expect(kek.secret).toMatchObject({
        secretName: "mailroom-key-encryption-key",
        items: [{ key: "key", path: "key" }],
      });
      expect(JSON.stringify(deployment)).not.toMatch(/postgres:\/\//);
    }
  });

  it("probes each program on its internal port and serves it on every interface", () => {
    const ports = { api: 9464, worker: 9465, operator: 9466 };
    for (const [component, port] of Object.entries(ports)) {
      const [container] = findManifest(manifests, "Deployment", `${FULL}-${component}`).spec.template.spec
        .containers;
      expect(container.ports).toContainEqual({ name: "internal", containerPort: port, protocol: "TCP" });
      expect(container.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "internal" });
      expect(container.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "internal" });
    }
    const config = findManifest(manifests, "ConfigMap", `${FULL}-config`).data;
    expect(config).toMatchObject({
      MAILROOM_INTERNAL_HOST: "0.0.0.0",
      MAILROOM_API_HOST: "0.0.0.0",
      MAILROOM_API_INTERNAL_PORT: "9464",
      MAILROOM_WORKER_INTERNAL_PORT: "9465",
    });
  });

  it("runs the API with the node flags and malloc arenas of its values (what make bench measures), the others plain", () => {
    const container = (component: string) =>
      findManifest(manifests, "Deployment", `${FULL}-${component}`).spec.template.spec.containers[0] as {
        command?: string[];
        args: string[];
        env: { name: string; value?: string }[];
      };
    const api = container("api");
    expect(api.command).toEqual([
      "node",
      "--max-semi-space-size=4",
      "--heap-growing-percent=50",
      "cli/bin/mailroom.js",
    ]);
    expect(api.args).toEqual(["api"]);
    expect(api.env).toContainEqual({ name: "MALLOC_ARENA_MAX", value: "2" });
    for (const other of ["worker", "operator"]) {
      expect(container(other).command).toBeUndefined();
      expect(container(other).env.find((e) => e.name === "MALLOC_ARENA_MAX")).toBeUndefined();
    }
  });

  it("keeps the image's entrypoint when api.nodeFlags is empty, and refuses a flag that is not one", async () => {
    const rendered = await renderChart({ set: { "api.nodeFlags": "null", "api.mallocArenaMax": "null" } });
    const [api] = findManifest(rendered, "Deployment", `${FULL}-api`).spec.template.spec.containers;
    expect(api.command).toBeUndefined();
    expect(api.env.find((e: { name: string }) => e.name === "MALLOC_ARENA_MAX")).toBeUndefined();
    expect(await renderChartError({ set: { "api.nodeFlags[0]": "rm -rf /" } })).toMatch(/nodeFlags/);
  });

  it("configures the programs with values Mailroom's own config parser accepts", async () => {
    for (const valuesFiles of [[], ["ci/existing-secret-values.yaml"], ["ci/cert-manager-values.yaml"]]) {
      const rendered = await renderChart({ valuesFiles });
      const env = { ...findManifest(rendered, "ConfigMap", `${FULL}-config`).data };
      const [worker] = findManifest(rendered, "Deployment", `${FULL}-worker`).spec.template.spec.containers;
      for (const e of worker.env) if (typeof e.value === "string") env[e.name] = e.value;
      expect(() => loadConfig({ ...env, DATABASE_URL: "postgres://u:p@db:5432/mailroom" })).not.toThrow();
      if (valuesFiles.length > 0 && valuesFiles[0] === "ci/existing-secret-values.yaml") {
        const config = loadConfig({ ...env, DATABASE_URL: "postgres://u:p@db:5432/mailroom" });
        expect(config.delivery.directAllowedCidrs).toEqual(["10.20.0.0/16"]);
        expect(config.webhooks.allowedCidrs).toEqual(["10.0.0.0/8"]);
      }
    }
  });

  it("passes config.dnsCacheSeconds to the programs as MAILROOM_DNS_CACHE_SECONDS", async () => {
    const rendered = await renderChart({ set: { "config.dnsCacheSeconds": "42" } });
    const env = findManifest(rendered, "ConfigMap", `${FULL}-config`).data;
    expect(env.MAILROOM_DNS_CACHE_SECONDS).toBe("42");
    expect(loadConfig({ ...env, DATABASE_URL: "postgres://u:p@db:5432/mailroom" }).dns.cacheSeconds).toBe(42);
  });

  it("gives the worker time to finish in-flight deliveries and spreads every program over zones and nodes", () => {
    const worker = findManifest(manifests, "Deployment", `${FULL}-worker`).spec.template.spec;
    expect(worker.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(60);
    for (const component of ["api", "worker", "operator"]) {
      const spec = findManifest(manifests, "Deployment", `${FULL}-${component}`).spec.template.spec;
      expect(spec.topologySpreadConstraints.map((c: { topologyKey: string }) => c.topologyKey)).toEqual([
        "topology.kubernetes.io/zone",
        "kubernetes.io/hostname",
      ]);
      const pdb = findManifest(manifests, "PodDisruptionBudget", `${FULL}-${component}`);
      expect(pdb.spec.selector.matchLabels["app.kubernetes.io/component"]).toBe(component);
    }
  });

  it("restricts ingress to the HTTPS and internal ports", () => {
    const policies = manifests.filter((m) => m.kind === "NetworkPolicy");
    expect(policies.map((p) => p.metadata.name).sort()).toEqual([
      `${FULL}-api`,
      `${FULL}-operator`,
      `${FULL}-worker`,
      `${FULL}-worker-reserved`,
    ]);
    const api = findManifest(manifests, "NetworkPolicy", `${FULL}-api`);
    const ports = api.spec.ingress.flatMap((rule: { ports: Array<{ port: string }> }) =>
      rule.ports.map((p) => p.port),
    );
    expect(ports).toEqual(["https", "internal"]);
  });

  it("by default renders no certificate: the API serves the Secret tls.existingSecret.name names", () => {
    expect(manifests.filter((m) => m.kind === "Secret" || m.kind === "Certificate")).toEqual([]);
    const volumes = findManifest(manifests, "Deployment", `${FULL}-api`).spec.template.spec.volumes;
    expect(volumes).toContainEqual(
      expect.objectContaining({ secret: expect.objectContaining({ secretName: "mailroom-api-tls" }) }),
    );
  });

  it("generates the API certificate for the Service's names and publishes its CA, when asked", async () => {
    const { X509Certificate } = await import("node:crypto");
    const manifests = await renderChart({ set: { "tls.mode": "generated" } });
    const secret = findManifest(manifests, "Secret", `${FULL}-api-tls`);
    expect(secret.type).toBe("kubernetes.io/tls");
    const cert = new X509Certificate(Buffer.from(secret.data["tls.crt"], "base64"));
    const ca = new X509Certificate(Buffer.from(secret.data["ca.crt"], "base64"));
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkHost(`${FULL}-api.${NAMESPACE}.svc`)).toBe(`${FULL}-api.${NAMESPACE}.svc`);
    expect(cert.checkHost(`${FULL}-api.${NAMESPACE}.svc.cluster.local`)).toBeDefined();
    const published = findManifest(manifests, "ConfigMap", `${FULL}-ca`);
    expect(new X509Certificate(published.data["ca.crt"]).fingerprint256).toBe(ca.fingerprint256);
  });
});

describe("RBAC", () => {
  it("grants the operator exactly the verbs it uses, and nothing to the api or worker", async () => {
    const manifests = await renderChart();
    const roles = manifests.filter((m) => m.kind === "ClusterRole" || m.kind === "Role");
    expect(roles.map((r) => `${r.kind}/${r.metadata.name}`).sort()).toEqual([
      `ClusterRole/${FULL}-${NAMESPACE}-operator`,
      `Role/${FULL}-operator-leader-election`,
    ]);
    // The calls operator/src makes: update this list together with the operator's code.
    const kinds = ["apikeys", "sendingdomains", "templates", "webhookendpoints", "accountpolicies"];
    expect(findManifest(manifests, "ClusterRole", `${FULL}-${NAMESPACE}-operator`).rules).toEqual([
      { apiGroups: ["mailroom.dev"], resources: kinds, verbs: ["get", "list", "watch", "patch"] },
      { apiGroups: ["mailroom.dev"], resources: kinds.map((k) => `${k}/status`), verbs: ["patch"] },
      { apiGroups: [""], resources: ["secrets"], verbs: ["get", "create", "update", "patch", "delete"] },
      { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
      {
        apiGroups: ["externaldns.k8s.io"],
        resources: ["dnsendpoints"],
        verbs: ["get", "create", "patch", "delete"],
      },
      // Cluster-wide installations only: ClusterSendingDomains and the namespaces their selectors match.
      {
        apiGroups: ["mailroom.dev"],
        resources: ["clustersendingdomains"],
        verbs: ["get", "list", "watch", "patch"],
      },
      { apiGroups: ["mailroom.dev"], resources: ["clustersendingdomains/status"], verbs: ["patch"] },
      { apiGroups: [""], resources: ["namespaces"], verbs: ["list"] },
    ]);
    expect(findManifest(manifests, "Role", `${FULL}-operator-leader-election`).rules).toEqual([
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      {
        apiGroups: ["coordination.k8s.io"],
        resources: ["leases"],
        resourceNames: [`${FULL}-operator`],
        verbs: ["get", "update"],
      },
    ]);
    const bindings = manifests.filter((m) => m.kind === "ClusterRoleBinding" || m.kind === "RoleBinding");
    for (const binding of bindings) {
      expect(binding.subjects).toEqual([
        { kind: "ServiceAccount", name: `${FULL}-operator`, namespace: NAMESPACE },
      ]);
    }
    for (const rule of roles.flatMap((r) => r.rules)) {
      expect([...rule.verbs, ...rule.resources, ...rule.apiGroups]).not.toContain("*");
    }
  });

  it("names the Lease after the release, so two releases in one namespace do not share a leader", async () => {
    const leaseOf = async (release: string) => {
      const manifests = await renderChart({ release });
      const env = findManifest(manifests, "Deployment", `${release}-mailroom-operator`).spec.template.spec
        .containers[0].env as { name: string; value?: string }[];
      const role = findManifest(manifests, "Role", `${release}-mailroom-operator-leader-election`);
      const granted = role.rules.find((r: { resourceNames?: string[] }) => r.resourceNames)?.resourceNames;
      const named = env.find((e) => e.name === "MAILROOM_OPERATOR_LEASE_NAME")?.value;
      expect(granted).toEqual([named]);
      return named;
    };
    const [a, b] = [await leaseOf("one"), await leaseOf("two")];
    expect(a).toBe("one-mailroom-operator");
    expect(b).toBe("two-mailroom-operator");
  });

  it("uses a namespaced Role instead of a ClusterRole when operator.watchNamespace is set", async () => {
    const manifests = await renderChart({ valuesFiles: ["ci/existing-secret-values.yaml"] });
    expect(
      manifests.filter((m) => m.kind.startsWith("Cluster") && m.kind !== "CustomResourceDefinition"),
    ).toEqual([]);
    const roles = manifests.filter((m) => m.kind === "Role" && m.metadata.name === `${FULL}-operator`);
    expect(roles.map((r) => r.metadata.namespace)).toEqual(["team-a"]);
    const [container] = findManifest(manifests, "Deployment", `${FULL}-operator`).spec.template.spec
      .containers;
    expect(container.env).toContainEqual({ name: "MAILROOM_OPERATOR_NAMESPACE", value: "team-a" });
  });

  it("gives the operator a Role in each of operator.watchNamespaces and no cluster-wide Secret access", async () => {
    const manifests = await renderChart({
      set: { "operator.watchNamespaces": "{team-a,team-b}", "operator.watchNamespace": "team-c" },
    });
    expect(manifests.filter((m) => m.kind === "ClusterRole" || m.kind === "ClusterRoleBinding")).toEqual([]);
    const roles = manifests.filter((m) => m.kind === "Role" && m.metadata.name === `${FULL}-operator`);
    expect(roles.map((r) => r.metadata.namespace)).toEqual(["team-a", "team-b", "team-c"]);
    const bindings = manifests.filter(
      (m) => m.kind === "RoleBinding" && m.metadata.name === `${FULL}-operator`,
    );
    expect(bindings.map((r) => r.metadata.namespace)).toEqual(["team-a", "team-b", "team-c"]);
    const [container] = findManifest(manifests, "Deployment", `${FULL}-operator`).spec.template.spec
      .containers;
    expect(container.env).toContainEqual({
      name: "MAILROOM_OPERATOR_NAMESPACE",
      value: "team-a,team-b,team-c",
    });
  });
});

describe("hooks", () => {
  it("migrates before install and upgrade, and tests with a key declared before the sending pod", async () => {
    const manifests = await renderChart();
    const hooks = manifests.filter((m) => m.metadata.annotations?.["helm.sh/hook"]);
    const summary = hooks.map((m) => ({
      id: `${m.kind}/${m.metadata.name}`,
      hook: m.metadata.annotations?.["helm.sh/hook"],
      weight: Number(m.metadata.annotations?.["helm.sh/hook-weight"] ?? 0),
      deletePolicy: m.metadata.annotations?.["helm.sh/hook-delete-policy"],
    }));
    expect(summary).toEqual(
      expect.arrayContaining([
        {
          id: `Job/${FULL}-migrate`,
          hook: "pre-install,pre-upgrade",
          weight: -10,
          deletePolicy: "before-hook-creation,hook-succeeded",
        },
        {
          id: `ApiKey/${FULL}-helm-test`,
          hook: "test",
          weight: -5,
          deletePolicy: "before-hook-creation,hook-succeeded",
        },
        {
          id: `Pod/${FULL}-helm-test-send`,
          hook: "test",
          weight: 0,
          deletePolicy: "before-hook-creation,hook-succeeded",
        },
      ]),
    );
    // Helm runs hooks of one phase in ascending weight: the key (and script) exist before the pod that uses them.
    const test = summary.filter((h) => h.hook === "test");
    const pod = test.find((h) => h.id.startsWith("Pod/"));
    for (const h of test) if (h !== pod) expect(h.weight).toBeLessThan(pod?.weight ?? Number.NaN);
    // The migration Job is a pre-install hook: it cannot rely on objects of the release (ConfigMap, SAs).
    const job = findManifest(manifests, "Job", `${FULL}-migrate`).spec.template.spec;
    expect(job.serviceAccountName).toBeUndefined();
    expect(job.containers[0].envFrom).toBeUndefined();
    expect(job.containers[0].args).toEqual(["migrate"]);
    const key = findManifest(manifests, "ApiKey", `${FULL}-helm-test`);
    const pod0 = findManifest(manifests, "Pod", `${FULL}-helm-test-send`);
    const keyVolume = pod0.spec.volumes.find((v: { name: string }) => v.name === "api-key");
    expect(keyVolume.secret.secretName).toBe(key.spec.secretName);
  });
});
