/** An MTA-STS policy as fetched (RFC 8461 §3.2). `none` policies are kept too: they withdraw a policy. */
export interface StsPolicy {
  mode: "enforce" | "testing" | "none";
  /** MX patterns: `mx.example.com` or `*.example.com` (one left-most label). */
  mx: string[];
  maxAgeSeconds: number;
  /** The policy's lines as RFC 8460 §4.4 reports them (`policy-string`). */
  lines: string[];
}

/** RFC 8461 §3.2: max_age is at most 31557600 (a year). */
const MAX_AGE_LIMIT = 31_557_600;

/**
 * The `id` of a domain's `_mta-sts` TXT answer (RFC 8461 §3.1), or undefined when the answer holds no
 * single valid STSv1 record: several records, or one without an id, count as no policy.
 */
export function stsRecordId(records: readonly string[][]): string | undefined {
  const sts = records.map((chunks) => chunks.join("")).filter((text) => /^v=STSv1\s*(;|$)/.test(text));
  if (sts.length !== 1 || !sts[0]) return undefined;
  for (const field of sts[0].split(";")) {
    const match = field.trim().match(/^id=([A-Za-z0-9]{1,32})$/);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** Parses a policy body; throws with the reason when it is not a valid STSv1 policy. */
export function parseStsPolicy(body: string): StsPolicy {
  const lines = body
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const fields = new Map<string, string[]>();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new Error(`policy line without a key: ${line.slice(0, 80)}`);
    const key = line.slice(0, colon).trim();
    fields.set(key, [...(fields.get(key) ?? []), line.slice(colon + 1).trim()]);
  }
  const one = (key: string) => fields.get(key)?.[0];
  if (one("version") !== "STSv1") throw new Error("policy version is not STSv1");
  const mode = one("mode");
  if (mode !== "enforce" && mode !== "testing" && mode !== "none") {
    throw new Error(`policy mode is not enforce, testing or none: ${mode ?? "missing"}`);
  }
  const maxAge = one("max_age");
  if (!maxAge || !/^\d{1,10}$/.test(maxAge)) throw new Error("policy max_age is missing or not a number");
  const mx = (fields.get("mx") ?? []).map((pattern) => pattern.toLowerCase().replace(/\.$/, ""));
  if (mode !== "none" && mx.length === 0) throw new Error("policy names no mx");
  return { mode, mx, maxAgeSeconds: Math.min(Number(maxAge), MAX_AGE_LIMIT), lines };
}

/** Whether an MX host name matches one of the policy's patterns (RFC 8461 §4.1). */
export function mxMatches(policy: StsPolicy, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return policy.mx.some((pattern) => {
    if (!pattern.startsWith("*.")) return pattern === name;
    // A wildcard stands for exactly one label: *.example.com matches mx.example.com, not a.b.example.com.
    const dot = name.indexOf(".");
    return dot > 0 && name.slice(dot + 1) === pattern.slice(2);
  });
}
