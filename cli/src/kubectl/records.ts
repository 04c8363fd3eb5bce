/** `kubectl mailroom records <domain>`: what to publish in DNS for a domain, from its SendingDomain's status. */
import type { createKube } from "@mailroom/operator";
import { formatTable } from "./table.ts";

interface DomainObject {
  metadata: { name?: string; namespace?: string };
  spec: { domain: string };
  status?: {
    verification?: string;
    records?: { type: string; name: string; value: string; status?: string }[];
  };
}

/** Prints the records of every SendingDomain declaring `domain`; returns the exit code (1: none declares it). */
export async function printRecords(
  target: { kube: ReturnType<typeof createKube>; namespace: string | undefined },
  domain: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const wanted = domain.toLowerCase().replace(/\.$/, "");
  const { items } = await target.kube.customResources.SendingDomain.list(target.namespace);
  const matches = (items as DomainObject[]).filter((d) => d.spec.domain.toLowerCase() === wanted);
  if (matches.length === 0) {
    const scope = target.namespace ? `namespace ${target.namespace}` : "any namespace";
    process.stderr.write(`kubectl-mailroom: no SendingDomain declares ${wanted} in ${scope}\n`);
    return 1;
  }
  for (const [i, d] of matches.entries()) {
    if (i > 0) out.write("\n");
    const records = d.status?.records ?? [];
    out.write(
      `# SendingDomain ${d.metadata.namespace}/${d.metadata.name}: ${wanted}, verification ${d.status?.verification ?? "not reported yet"}\n`,
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
