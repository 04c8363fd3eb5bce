/**
 * `kubectl mailroom records <domain>`: what to publish in DNS for a domain, from the status of its SendingDomain
 * or ClusterSendingDomain.
 */
import { type createKube, KubeError } from "@mailroom/operator";
import { formatTable } from "./table.ts";

interface DomainObject {
  kind?: string;
  metadata: { name?: string; namespace?: string };
  spec: { domain: string };
  status?: {
    verification?: string;
    records?: { type: string; name: string; value: string; status?: string }[];
  };
}

/** ClusterSendingDomains are cluster-wide: someone allowed to read only their namespace sees none of them. */
async function clusterDomains(kube: ReturnType<typeof createKube>): Promise<DomainObject[]> {
  try {
    return (await kube.customResources.ClusterSendingDomain.list(undefined)).items as DomainObject[];
  } catch (error) {
    if (error instanceof KubeError && error.code === 403) return [];
    throw error;
  }
}

/** Who declares it, as the header of its records: `SendingDomain ns/name` or `ClusterSendingDomain name`. */
const declaredBy = (d: DomainObject) =>
  d.kind === "ClusterSendingDomain"
    ? `ClusterSendingDomain ${d.metadata.name}`
    : `SendingDomain ${d.metadata.namespace}/${d.metadata.name}`;

/**
 * Prints the records of every SendingDomain (in the namespace, or all) and ClusterSendingDomain declaring
 * `domain`; returns the exit code (1: none declares it).
 */
export async function printRecords(
  target: { kube: ReturnType<typeof createKube>; namespace: string | undefined },
  domain: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const wanted = domain.toLowerCase().replace(/\.$/, "");
  const { items } = await target.kube.customResources.SendingDomain.list(target.namespace);
  const declared = [...(items as DomainObject[]), ...(await clusterDomains(target.kube))];
  const matches = declared.filter((d) => d.spec.domain.toLowerCase() === wanted);
  if (matches.length === 0) {
    const scope = target.namespace ? `namespace ${target.namespace}` : "any namespace";
    process.stderr.write(
      `kubectl-mailroom: no SendingDomain declares ${wanted} in ${scope}, nor any ClusterSendingDomain\n`,
    );
    return 1;
  }
  for (const [i, d] of matches.entries()) {
    if (i > 0) out.write("\n");
    const records = d.status?.records ?? [];
    out.write(
      `# ${declaredBy(d)}: ${wanted}, verification ${d.status?.verification ?? "not reported yet"}\n`,
    );
    if (records.length === 0) {
      out.write("# no records yet: the operator has not reconciled it (kubectl mailroom status)\n");
      continue;
    }
    // The value last: a DKIM key is long, and the columns before it stay aligned.
    const rows = records.map((r) => [r.type, r.name, r.status ?? "", r.value]);
    out.write(formatTable(["TYPE", "NAME", "STATUS", "VALUE"], rows));
  }
  return 0;
}
