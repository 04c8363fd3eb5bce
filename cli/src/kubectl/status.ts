/** `kubectl mailroom status`: one line per resource, with what a person needs to act on it. */
import { type createKube, KubeError } from "@mailroom/operator";
import { conditionOf, formatTable } from "./table.ts";

const KINDS = ["ApiKey", "SendingDomain", "Template", "WebhookEndpoint"] as const;

interface Listed {
  metadata: { name?: string; namespace?: string; generation?: number };
  status?: unknown;
}

/** kstatus's reading of a resource (ADR 0037): what Flux would say about it. */
function stateOf(object: Listed): string {
  const observed = (object.status as { observedGeneration?: number } | undefined)?.observedGeneration;
  if (observed === undefined) return "NotReconciled";
  if (object.metadata.generation !== undefined && observed < object.metadata.generation) return "Reconciling";
  if (conditionOf(object, "Stalled")?.status === "True") return "Stalled";
  if (conditionOf(object, "Reconciling")?.status === "True") return "Reconciling";
  return conditionOf(object, "Ready")?.status === "False" ? "Reconciling" : "Current";
}

/** The kinds to list: cluster-scoped ClusterSendingDomains only across all namespaces (-A). */
async function listed(target: {
  kube: ReturnType<typeof createKube>;
  namespace: string | undefined;
}): Promise<[string, Listed[]][]> {
  const found: [string, Listed[]][] = [];
  for (const kind of KINDS) {
    found.push([kind, (await target.kube.customResources[kind].list(target.namespace)).items as Listed[]]);
  }
  if (target.namespace !== undefined) return found;
  try {
    const { items } = await target.kube.customResources.ClusterSendingDomain.list(undefined);
    found.push(["ClusterSendingDomain", items as Listed[]]);
  } catch (error) {
    // Someone who may list every namespace's resources but not the cluster-scoped kind sees the rest.
    if (!(error instanceof KubeError && error.code === 403)) throw error;
  }
  return found;
}

/** Prints the table; returns the exit code (0, or 1 when nothing was found). */
export async function printStatus(
  target: { kube: ReturnType<typeof createKube>; namespace: string | undefined },
  out: NodeJS.WritableStream,
): Promise<number> {
  const rows: string[][] = [];
  for (const [kind, items] of await listed(target)) {
    for (const object of items) {
      const ready = conditionOf(object, "Ready");
      // The condition that explains the state: Stalled or Reconciling when set, else Ready.
      const why = conditionOf(object, "Stalled") ?? conditionOf(object, "Reconciling") ?? ready;
      rows.push([
        kind,
        object.metadata.namespace ?? "",
        object.metadata.name ?? "",
        ready?.status ?? "Unknown",
        stateOf(object),
        why?.reason ?? "",
        (why?.message ?? "").replace(/\s+/g, " "),
      ]);
    }
  }
  if (rows.length === 0) {
    out.write(`No Mailroom resources found${target.namespace ? ` in namespace ${target.namespace}` : ""}.\n`);
    return 0;
  }
  rows.sort((a, b) => a.slice(0, 3).join("/").localeCompare(b.slice(0, 3).join("/")));
  out.write(formatTable(["KIND", "NAMESPACE", "NAME", "READY", "STATE", "REASON", "MESSAGE"], rows));
  return 0;
}
