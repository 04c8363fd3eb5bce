import type { LookupTxt } from "../domains/verify.ts";

/** Where a policy domain wants its reports: `mailto:` addresses and `https:` URLs (RFC 8460 §3). */
export type ReportUri = { kind: "mailto"; address: string; uri: string } | { kind: "https"; uri: string };

export type RuaLookup =
  | { kind: "found"; rua: ReportUri[] }
  /** No usable record: the domain does not implement TLS-RPT (§3), and is not looked up again for that day. */
  | { kind: "none" }
  /** The resolver failed (SERVFAIL, timeout): no evidence either way, so the next run asks again. */
  | { kind: "error"; code: string };

// A report goes to at most this many URIs, whatever the record lists: a record is anyone's to write.
const MAX_RUA = 5;
const ADDRESS = /^[^\s@<>()",;:\\[\]]{1,64}@([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i;

/** Parses one report URI; undefined for schemes and shapes we do not send to. */
export function parseReportUri(text: string): ReportUri | undefined {
  if (/^mailto:/i.test(text)) {
    // A mailto URI's query (`?subject=`) is not ours to follow; commas would have been %2C-encoded (§3).
    const address = decodeURIComponent(text.slice(7).split("?")[0] ?? "").trim();
    return ADDRESS.test(address) ? { kind: "mailto", address: address.toLowerCase(), uri: text } : undefined;
  }
  try {
    const url = new URL(text);
    return url.protocol === "https:" && !url.username && !url.password
      ? { kind: "https", uri: text }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a `_smtp._tls` TXT record set (RFC 8460 §3): records not starting `v=TLSRPTv1;` are discarded; unless
 * exactly one is left, or when it has no `rua` with a URI we can use, the domain does not implement TLS-RPT.
 */
export function parseTlsRptRecords(records: readonly string[]): ReportUri[] {
  const ours = records.filter((r) => /^v=TLSRPTv1\s*;/.test(r));
  if (ours.length !== 1) return [];
  const fields = (ours[0] as string).split(";").map((f) => f.trim());
  const rua = fields.find((f) => f.startsWith("rua="));
  if (!rua) return [];
  const uris = rua
    .slice(4)
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  const parsed = uris.map(parseReportUri).filter((u): u is ReportUri => u !== undefined);
  const unique = new Map<string, ReportUri>();
  for (const u of parsed) {
    const key = u.kind === "mailto" ? u.address : u.uri;
    if (!unique.has(key)) unique.set(key, u);
  }
  return [...unique.values()].slice(0, MAX_RUA);
}

/** Looks up a policy domain's report URIs at `_smtp._tls.<domain>`. */
export async function lookupRua(lookupTxt: LookupTxt, policyDomain: string): Promise<RuaLookup> {
  const answer = await lookupTxt(`_smtp._tls.${policyDomain}`);
  if (answer.kind === "error") return answer;
  const rua = answer.kind === "found" ? parseTlsRptRecords(answer.records) : [];
  return rua.length === 0 ? { kind: "none" } : { kind: "found", rua };
}
