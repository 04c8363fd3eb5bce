/**
 * `mailroom apply -f <file|dir>`: the controllers' own reconcile code run on YAML files, with no cluster.
 * Generated material goes to files under the data directory, events to the log, and each resource's status
 * is returned for the CLI to print. Finalizers and watches have no meaning here: deletion is not modelled.
 * The cluster's namespaces, for a ClusterSendingDomain's selector, are the `v1` Namespace objects among the
 * files.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Pool } from "@mailroom/core/db";
import type { RecordOptions } from "@mailroom/core/domains";
import { parseAllDocuments } from "yaml";
import type { ConditionState } from "../controllers/conditions.ts";
import type {
  DnsEndpointStore,
  EventRecorder,
  NamespaceInfo,
  OperatorLogger,
  ReconcileContext,
} from "../controllers/context.ts";
import { ALL_CONTROLLERS } from "../controllers/index.ts";
import type { KindController } from "../controllers/kind-controller.ts";
import { API_VERSION, type MailroomKind, type MailroomKinds } from "../crds/index.ts";
import { createFileSecretStore } from "./file-secrets.ts";

export interface ApplyDeps {
  pool: Pool;
  kek: Buffer;
  /** Generated keys and secrets are written under `<dataDir>/secrets/`. */
  dataDir: string;
  log: OperatorLogger;
  now?: () => Date;
  /** What new domains' advisory records say (bounce MX host, SPF mechanisms). */
  dnsRecords?: RecordOptions | undefined;
}

export interface AppliedResource {
  kind: MailroomKind;
  namespace: string;
  name: string;
  file: string;
  ready: ConditionState;
  synced: ConditionState;
  status: Record<string, unknown>;
}

const KINDS = Object.keys(ALL_CONTROLLERS) as MailroomKind[];

/** No cluster, so no external-dns: publishDNS reports why, and there is nothing to take back. */
const NO_DNS_ENDPOINTS: DnsEndpointStore = {
  publish: async () => ({
    result: "unavailable",
    message:
      "local mode (mailroom apply) has no cluster to create a DNSEndpoint in: publish status.records yourself",
  }),
  unpublish: async () => {},
  disown: async () => {},
};

async function manifestFiles(target: string): Promise<string[]> {
  if (!(await stat(target)).isDirectory()) return [target];
  const entries = await readdir(target, { withFileTypes: true });
  const files = await Promise.all(
    entries
      .filter((e) => e.isDirectory() || /\.ya?ml$/.test(e.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((e) => manifestFiles(path.join(target, e.name))),
  );
  return files.flat();
}

async function readManifests(file: string): Promise<Record<string, unknown>[]> {
  const docs = parseAllDocuments(await readFile(file, "utf8"));
  const objects: Record<string, unknown>[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as unknown;
    if (value && typeof value === "object") objects.push(value as Record<string, unknown>);
  }
  return objects;
}

/** A `v1` Namespace manifest's name and labels, or undefined for anything else. */
function asNamespace(object: Record<string, unknown>): NamespaceInfo | undefined {
  if (object.apiVersion !== "v1" || object.kind !== "Namespace") return undefined;
  const metadata = (object.metadata ?? {}) as { name?: string; labels?: Record<string, string> };
  return metadata.name ? { name: metadata.name, labels: metadata.labels ?? {} } : undefined;
}

function asResource(object: Record<string, unknown>, file: string) {
  const kind = object.kind as MailroomKind;
  const metadata = (object.metadata ?? {}) as { name?: string; namespace?: string };
  if (object.apiVersion !== API_VERSION || !KINDS.includes(kind)) return undefined;
  if (!metadata.name) throw new Error(`${file}: ${kind} without metadata.name`);
  // A cluster-scoped kind has no namespace, as the API server drops one given.
  const { namespace: _given, ...clusterMetadata } = metadata;
  const namespace = kind === "ClusterSendingDomain" ? "" : (metadata.namespace ?? "default");
  return {
    ...object,
    kind,
    // A stable uid, so applying the same file again converges the same rows instead of making new ones.
    metadata: {
      ...(namespace ? { ...metadata, namespace } : clusterMetadata),
      uid: `local:${kind}/${namespace}/${metadata.name}`,
      generation: 1,
    },
    spec: object.spec ?? {},
  } as MailroomKinds[MailroomKind];
}

/** Reconciles every Mailroom resource found in `paths` (files or directories of .yaml/.yml), in order. */
export async function applyManifests(deps: ApplyDeps, paths: readonly string[]): Promise<AppliedResource[]> {
  const events: EventRecorder = {
    async record(ref, type, reason, message) {
      const line = { kind: ref.kind, namespace: ref.namespace, resource: ref.name, reason, message };
      if (type === "Warning") deps.log.warn(line, "event");
      else deps.log.info(line, "event");
    },
  };
  const files = (await Promise.all(paths.map(manifestFiles))).flat();
  const manifests = await Promise.all(
    files.map(async (file) => ({ file, objects: await readManifests(file) })),
  );
  const namespaces = manifests.flatMap(({ objects }) =>
    objects.map(asNamespace).filter((n) => n !== undefined),
  );
  const ctx: ReconcileContext = {
    pool: deps.pool,
    kek: deps.kek,
    secrets: createFileSecretStore(deps.dataDir),
    events,
    dnsEndpoints: NO_DNS_ENDPOINTS,
    namespaces: { list: async () => namespaces },
    log: deps.log,
    now: deps.now ?? (() => new Date()),
    ownerReferences: false,
    dnsRecords: deps.dnsRecords,
  };
  const applied: AppliedResource[] = [];
  for (const { file, objects } of manifests) {
    for (const object of objects) {
      const resource = asResource(object, file);
      if (!resource) continue;
      const controller = ALL_CONTROLLERS[resource.kind] as KindController<typeof resource.kind> | undefined;
      if (!controller) continue;
      const outcome = await controller.reconcile(ctx, resource as never);
      applied.push({
        kind: resource.kind,
        namespace: resource.metadata.namespace ?? "",
        name: resource.metadata.name ?? "",
        file,
        ready: outcome.ready,
        synced: outcome.synced,
        status: outcome.fields as Record<string, unknown>,
      });
    }
  }
  return applied;
}
