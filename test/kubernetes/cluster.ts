/** What the Kubernetes suites do to the control plane as its admin: CRDs, namespaces, ServiceAccount tokens. */
import { readFile } from "node:fs/promises";
import { parseAllDocuments } from "yaml";
import { type ApiConnection, apiRequest } from "./api.ts";

const CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

interface Crd {
  metadata: { name: string };
}

function fail(what: string, res: { status: number; body: unknown }): never {
  throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
}

/** Creates (or replaces) each CRD of the YAML files and waits until the server reports it Established. */
export async function applyCrdFiles(api: ApiConnection, files: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(await readFile(file, "utf8"))) {
      const crd = doc.toJS() as Crd | null;
      if (!crd) continue;
      const created = await apiRequest(api, "POST", CRD_PATH, crd);
      if (created.status === 409) {
        const current = await apiRequest(api, "GET", `${CRD_PATH}/${crd.metadata.name}`);
        const resourceVersion = (current.body as { metadata: { resourceVersion: string } }).metadata
          .resourceVersion;
        const replaced = await apiRequest(api, "PUT", `${CRD_PATH}/${crd.metadata.name}`, {
          ...crd,
          metadata: { ...crd.metadata, resourceVersion },
        });
        if (replaced.status !== 200) fail(`replace CRD ${crd.metadata.name}`, replaced);
      } else if (created.status !== 201) fail(`create CRD ${crd.metadata.name}`, created);
      names.push(crd.metadata.name);
    }
  }
  for (const name of names) await waitEstablished(api, name);
  return names;
}

async function waitEstablished(api: ApiConnection, name: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const res = await apiRequest(api, "GET", `${CRD_PATH}/${name}`);
    const conditions = (res.body as { status?: { conditions?: { type: string; status: string }[] } }).status
      ?.conditions;
    if (conditions?.some((c) => c.type === "Established" && c.status === "True")) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`CRD ${name} never became Established`);
}

/** Creates a namespace (an existing one is fine). */
export async function ensureNamespace(api: ApiConnection, name: string): Promise<void> {
  const res = await apiRequest(api, "POST", "/api/v1/namespaces", {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name },
  });
  if (res.status !== 201 && res.status !== 409) fail(`create namespace ${name}`, res);
}

/** A real ServiceAccount token (TokenRequest), as a pod of that ServiceAccount would mount it. */
export async function serviceAccountToken(
  api: ApiConnection,
  namespace: string,
  name: string,
): Promise<string> {
  const res = await apiRequest(api, "POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { expirationSeconds: 3600 },
  });
  if (res.status !== 201) fail(`token for ${namespace}/${name}`, res);
  return (res.body as { status: { token: string } }).status.token;
}

const plurals = new Map<string, { plural: string; namespaced: boolean }>();

/** The REST path of an object of `apiVersion`/`kind`, from the server's discovery (cached). */
export async function objectPath(
  api: ApiConnection,
  object: { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string } },
  defaultNamespace: string,
): Promise<string> {
  const base = object.apiVersion.includes("/") ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const key = `${object.apiVersion}/${object.kind}`;
  if (!plurals.has(key)) {
    const res = await apiRequest(api, "GET", base);
    if (res.status !== 200) fail(`discovery of ${object.apiVersion}`, res);
    const resources = (res.body as { resources: { name: string; kind: string; namespaced: boolean }[] })
      .resources;
    const found = resources.find((r) => r.kind === object.kind && !r.name.includes("/"));
    if (!found) throw new Error(`the server does not serve ${key}`);
    plurals.set(key, { plural: found.name, namespaced: found.namespaced });
  }
  const { plural, namespaced } = plurals.get(key) as { plural: string; namespaced: boolean };
  const ns = namespaced ? `/namespaces/${object.metadata.namespace ?? defaultNamespace}` : "";
  return `${base}${ns}/${plural}${object.metadata.name ? `/${object.metadata.name}` : ""}`;
}

/**
 * Waits until the garbage collector handles Mailroom's kinds and DNSEndpoints. It finds resources of CRDs
 * created after it started only at its next discovery resync (about every 30 s); deletion tests run before that
 * would wait on a collector that does not yet see their objects. Probe: an ApiKey owning a DNSEndpoint is
 * deleted (no operator runs, so no finalizer) and the DNSEndpoint must follow.
 */
export async function waitForGarbageCollector(api: ApiConnection, namespace: string): Promise<void> {
  const name = `gc-probe-${Date.now()}`;
  const keys = `/apis/mailroom.dev/v1alpha1/namespaces/${namespace}/apikeys`;
  const endpoints = `/apis/externaldns.k8s.io/v1alpha1/namespaces/${namespace}/dnsendpoints`;
  const owner = await apiRequest(api, "POST", keys, {
    apiVersion: "mailroom.dev/v1alpha1",
    kind: "ApiKey",
    metadata: { name },
    spec: { scopes: ["send"] },
  });
  if (owner.status !== 201) fail("create the garbage collector probe", owner);
  const uid = (owner.body as { metadata: { uid: string } }).metadata.uid;
  const dependent = await apiRequest(api, "POST", endpoints, {
    apiVersion: "externaldns.k8s.io/v1alpha1",
    kind: "DNSEndpoint",
    metadata: { name, ownerReferences: [{ apiVersion: "mailroom.dev/v1alpha1", kind: "ApiKey", name, uid }] },
    spec: { endpoints: [] },
  });
  if (dependent.status !== 201) fail("create the probe's dependent", dependent);
  await apiRequest(api, "DELETE", `${keys}/${name}`, { propagationPolicy: "Background" });
  for (let attempt = 0; attempt < 1_200; attempt++) {
    if ((await apiRequest(api, "GET", `${endpoints}/${name}`)).status === 404) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the garbage collector never deleted the probe's dependent");
}
