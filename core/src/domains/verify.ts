import { Resolver } from "node:dns/promises";
import type { DnsRecordSpec, RecordCheck, VerificationStatus } from "./types.ts";

export interface DnsResolverOptions {
  /** `host:port` (or `[v6]:port`, or a bare host for port 53) servers; empty means the system resolver's. */
  servers: readonly string[];
  /** Per-try timeout. */
  timeoutMs: number;
  /** Attempts per server before giving up; defaults to 2. */
  tries?: number;
}

/** A TXT lookup: the records at a name, each with its character-strings joined. */
export type TxtLookup =
  | { kind: "found"; records: string[] }
  | { kind: "none" }
  | { kind: "error"; code: string };

/** Looks up the TXT records at a name, or with `type` "MX" its MX records as `<priority> <host>` strings. */
export type LookupTxt = (name: string, type?: "TXT" | "MX") => Promise<TxtLookup>;

// Definitive "nothing here" answers; every other failure (SERVFAIL, timeout, refusal, a garbled reply) is
// the resolver's trouble, not evidence about the zone.
const ABSENT_CODES = new Set(["ENODATA", "ENOTFOUND"]);

/** Makes a TXT lookup function over node's c-ares resolver, pointed at the configured servers. */
export function makeTxtLookup(options: DnsResolverOptions): LookupTxt {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries ?? 2 });
  if (options.servers.length > 0) resolver.setServers([...options.servers]);
  return async (name, type = "TXT") => {
    try {
      const records =
        type === "MX"
          ? (await resolver.resolveMx(name)).map((mx) => [`${mx.priority} ${mx.exchange}`])
          : await resolver.resolveTxt(name);
      return records.length === 0
        ? { kind: "none" }
        : { kind: "found", records: records.map((r) => r.join("")) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "UNKNOWN";
      return ABSENT_CODES.has(code) ? { kind: "none" } : { kind: "error", code };
    }
  };
}

type Verdict = Pick<RecordCheck, "status" | "reason">;

const EXCERPT = 60;
function excerpt(value: string): string {
  return value.length <= EXCERPT ? `"${value}"` : `"${value.slice(0, EXCERPT)}…"`;
}

function listFound(records: readonly string[]): string {
  return records.length === 0 ? "no TXT record" : records.map(excerpt).join(", ");
}

/** Parses a tag=value list (DKIM, DMARC) into lower-case tag names with whitespace-free values. */
function parseTags(value: string): Map<string, string> {
  const tags = new Map<string, string>();
  for (const part of value.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).replace(/\s+/g, ""));
  }
  return tags;
}

function checkDkim(spec: DnsRecordSpec, found: readonly string[]): Verdict {
  const expected = parseTags(spec.value);
  // A record without v= is still a DKIM key record (RFC 6376 §3.6.1: v= is recommended, not required).
  const keys = found.filter((r) => (parseTags(r).get("v") ?? "DKIM1").toUpperCase() === "DKIM1");
  if (keys.length === 0) {
    return {
      status: "failed",
      reason: `Expected ${excerpt(spec.value)} at ${spec.name}, found ${listFound(found)}.`,
    };
  }
  if (keys.length > 1) {
    return {
      status: "failed",
      reason: `Expected one DKIM key at ${spec.name}, found ${keys.length}: ${listFound(keys)}; remove the others.`,
    };
  }
  const tags = parseTags(keys[0] ?? "");
  const algorithm = tags.get("k") ?? "rsa";
  if (algorithm.toLowerCase() !== expected.get("k")) {
    return {
      status: "failed",
      reason: `Expected k=${expected.get("k")} at ${spec.name}, found k=${algorithm}.`,
    };
  }
  const foundKey = tags.get("p") ?? "";
  const expectedKey = expected.get("p") ?? "";
  if (foundKey !== expectedKey) {
    // Every RSA-2048 key starts with the same SPKI prefix, so the tail is what tells two keys apart.
    const tail = (key: string) => (key === "" ? "an empty p= (revoked key)" : `p=…${key.slice(-24)}`);
    return {
      status: "failed",
      reason: `The public key at ${spec.name} does not match: expected ${tail(expectedKey)}, found ${tail(foundKey)}.`,
    };
  }
  return { status: "verified", reason: null };
}

function checkSpf(spec: DnsRecordSpec, found: readonly string[]): Verdict {
  const spf = found.filter((r) => /^v=spf1(\s|$)/i.test(r.trim()));
  if (spf.length !== 1) {
    const problem =
      spf.length === 0 ? `found ${listFound(found)}` : `found ${spf.length} SPF records (a permerror)`;
    return {
      status: "failed",
      reason: `Expected one SPF record like ${excerpt(spec.value)} at ${spec.name}, ${problem}.`,
    };
  }
  const present = new Set((spf[0] ?? "").toLowerCase().split(/\s+/));
  const missing = spec.value
    .toLowerCase()
    .split(/\s+/)
    .filter((term) => term !== "v=spf1" && !term.endsWith("all") && !present.has(term));
  if (missing.length > 0) {
    return {
      status: "failed",
      reason: `The SPF record at ${spec.name} lacks ${missing.join(" ")}: expected ${excerpt(spec.value)}, found ${listFound(spf)}.`,
    };
  }
  return { status: "verified", reason: null };
}

function checkDmarc(spec: DnsRecordSpec, found: readonly string[]): Verdict {
  // Any valid DMARC policy is the owner's choice; only its presence (and uniqueness) is checked.
  const dmarc = found.filter((r) => /^v=DMARC1\s*(;|$)/i.test(r.trim()));
  if (dmarc.length === 1) return { status: "verified", reason: null };
  const problem = dmarc.length === 0 ? `found ${listFound(found)}` : `found ${dmarc.length} DMARC records`;
  return {
    status: "failed",
    reason: `Expected one DMARC record like ${excerpt(spec.value)} at ${spec.name}, ${problem}.`,
  };
}

function checkMx(spec: DnsRecordSpec, found: readonly string[]): Verdict {
  // Any priority will do, and other MX hosts may stand beside ours: only that ours is there matters.
  const host = (value: string) => (value.split(/\s+/)[1] ?? "").toLowerCase().replace(/\.$/, "");
  if (found.some((mx) => host(mx) === host(spec.value))) return { status: "verified", reason: null };
  return {
    status: "failed",
    reason: `Expected an MX record ${excerpt(spec.value)} at ${spec.name}, found ${
      found.length === 0 ? "no MX record" : found.map(excerpt).join(", ")
    }.`,
  };
}

const CHECKERS = { dkim: checkDkim, spf: checkSpf, dmarc: checkDmarc, mx: checkMx };

/** Looks up one record and judges it. A resolver failure is `temporary_failure`, never `failed`. */
export async function checkRecord(lookup: LookupTxt, spec: DnsRecordSpec): Promise<RecordCheck> {
  const result = await lookup(spec.name, spec.type);
  if (result.kind === "error") {
    return {
      purpose: spec.purpose,
      name: spec.name,
      required: spec.required,
      status: "temporary_failure",
      reason: `DNS lookup of ${spec.name} failed (${result.code}); it will be retried.`,
    };
  }
  const found = result.kind === "found" ? result.records : [];
  return {
    purpose: spec.purpose,
    name: spec.name,
    required: spec.required,
    ...CHECKERS[spec.purpose](spec, found),
  };
}

/** Checks every record concurrently. */
export function checkRecords(lookup: LookupTxt, specs: readonly DnsRecordSpec[]): Promise<RecordCheck[]> {
  return Promise.all(specs.map((spec) => checkRecord(lookup, spec)));
}

/**
 * The domain's status from its required records: all verified → `verified`; any definitively failed →
 * `failed`; otherwise some lookup failed → `temporary_failure`, except that a domain already `verified`
 * stays so, since a resolver outage says nothing about the zone and must not stop its mail.
 */
export function deriveDomainStatus(
  previous: VerificationStatus,
  checks: readonly RecordCheck[],
): Exclude<VerificationStatus, "pending"> {
  const required = checks.filter((check) => check.required);
  if (required.length === 0) return "failed";
  if (required.every((c) => c.status === "verified")) return "verified";
  if (required.some((c) => c.status === "failed")) return "failed";
  return previous === "verified" ? "verified" : "temporary_failure";
}
