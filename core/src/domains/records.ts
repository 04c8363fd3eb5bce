import { domainToASCII } from "node:url";
import { MailroomError } from "../errors/index.ts";
import { dkimRecordName, dkimTxtValue, formatTxtForZoneFile } from "./dkim.ts";
import type { DkimAlgorithm, DnsRecordSpec } from "./types.ts";

/**
 * The envelope sender (Return-Path) of a domain's mail lives on this sub-domain. A dedicated sub-domain keeps
 * bounce handling and its SPF record apart from the owner's own mail setup, and still aligns with the From
 * domain under DMARC's default relaxed SPF alignment.
 */
export const RETURN_PATH_LABEL = "bounces";

export interface RecordOptions {
  /**
   * SPF mechanisms that authorise Mailroom's outbound hosts, e.g. `["include:_spf.relay.example"]` for a
   * relay or `["ip4:203.0.113.7"]` for direct delivery. Defaults to `["a", "mx"]`.
   */
  spfMechanisms?: readonly string[] | undefined;
  /**
   * The host the bounce domain's MX record points at: Mailroom's inbound SMTP receiver, which turns
   * asynchronous bounces and complaints into suppressions and events. No MX record when unset.
   */
  mxHost?: string | undefined;
  /**
   * Where aggregate DMARC reports should go (`mailto:` URI). Unset: `dmarc@` the bounce domain when the bounce
   * receiver has an MX (`mxHost`), which stores them (core/src/domains/dmarc); omitted without one.
   */
  dmarcReportUri?: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_NAME_LENGTH = 253;
// Room for the longest name derived from the domain: `<selector>._domainkey.<domain>`.
const DERIVED_PREFIX_ROOM = 40;

/**
 * Normalises a user-given domain name: trimmed, lower-case, no trailing dot, IDNs in their `xn--` form.
 * Throws `validation_error` for anything that cannot be a sending domain.
 */
export function normalizeDomainName(input: string): string {
  const trimmed = input.trim().replace(/\.$/, "");
  // domainToASCII parses a URL host and silently drops whatever follows a `/`, `?`, `#` or `\`.
  const ascii = trimmed === "" || /[/?#\\]/.test(trimmed) ? "" : domainToASCII(trimmed.toLowerCase());
  const labels = ascii.split(".");
  const valid =
    ascii.length > 0 &&
    ascii.length <= MAX_NAME_LENGTH - DERIVED_PREFIX_ROOM &&
    labels.length >= 2 &&
    labels.every((label) => LABEL.test(label)) &&
    !/^[0-9]+$/.test(labels[labels.length - 1] ?? "");
  if (!valid) {
    throw new MailroomError("validation_error", `"${input.slice(0, 100)}" is not a valid domain name.`);
  }
  return ascii;
}

/** The bounce domain has one MX: its priority does not matter, only that one exists. */
const MX_PRIORITY = 10;

/** A record's data as a zone file (and external-dns) writes it: quoted strings for TXT, a dotted host for MX. */
export function zoneFileData(record: Pick<DnsRecordSpec, "type" | "value">): string {
  return record.type === "TXT" ? formatTxtForZoneFile(record.value) : `${record.value}.`;
}

/** The Return-Path domain for a sending domain. */
export function returnPathDomainFor(domain: string): string {
  return `${RETURN_PATH_LABEL}.${domain}`;
}

/** The SPF record value for the Return-Path domain. `~all` so a missed host soft-fails rather than bounces. */
export function spfValue(options: RecordOptions = {}): string {
  const mechanisms = options.spfMechanisms ?? ["a", "mx"];
  return ["v=spf1", ...mechanisms, "~all"].join(" ");
}

/**
 * The DMARC record Mailroom recommends: monitoring only (`p=none`) with relaxed alignment, so publishing it
 * cannot make mail disappear; the owner tightens the policy once reports look clean.
 */
export function dmarcValue(options: RecordOptions = {}): string {
  const tags = ["v=DMARC1", "p=none", "adkim=r", "aspf=r"];
  if (options.dmarcReportUri) tags.push(`rua=${options.dmarcReportUri}`);
  return tags.join("; ");
}

/**
 * The bounce domain is a sub-domain of the sending domain, so receivers send it reports without the external
 * destination check of RFC 7489 section 7.1.
 */
function reportUri(returnPathDomain: string, options: RecordOptions): string | undefined {
  if (options.dmarcReportUri) return options.dmarcReportUri;
  return options.mxHost ? `mailto:dmarc@${returnPathDomain}` : undefined;
}

/**
 * Every record the owner of `domain` publishes. Only the DKIM keys are required for `verified`: they prove
 * control of the zone and are what receivers check on every message. SPF and MX (on the Return-Path domain:
 * who may send its mail, and where its bounces and complaints go) and DMARC are advice, checked and
 * reported, because their right content depends on the transport and on the owner's existing policy.
 */
export function buildDnsRecords(
  domain: string,
  returnPathDomain: string,
  keys: readonly { selector: string; algorithm: DkimAlgorithm; publicKey: string }[],
  options: RecordOptions = {},
): DnsRecordSpec[] {
  return [
    ...keys.map(
      (key): DnsRecordSpec => ({
        purpose: "dkim",
        type: "TXT",
        name: dkimRecordName(key.selector, domain),
        value: dkimTxtValue(key.algorithm, key.publicKey),
        required: true,
      }),
    ),
    { purpose: "spf", type: "TXT", name: returnPathDomain, value: spfValue(options), required: false },
    ...(options.mxHost
      ? [
          {
            purpose: "mx",
            type: "MX",
            name: returnPathDomain,
            value: `${MX_PRIORITY} ${options.mxHost}`,
            required: false,
          } satisfies DnsRecordSpec,
        ]
      : []),
    {
      purpose: "dmarc",
      type: "TXT",
      name: `_dmarc.${domain}`,
      value: dmarcValue({ ...options, dmarcReportUri: reportUri(returnPathDomain, options) }),
      required: false,
    },
  ];
}

/** The stored form of a name a caller typed, or undefined when it cannot be a domain (so: not found). */
export function storedName(name: string): string | undefined {
  try {
    return normalizeDomainName(name);
  } catch {
    return undefined;
  }
}
