import { z } from "zod";
import { type AreaEnv, bool, optionalPath } from "./kinds.ts";

/** Sending domains: DNS checks, the records a new domain gets, DKIM key encryption, the from-domain rule. */
export const variables = {
  MAILROOM_DNS_SERVERS: z
    .string()
    .regex(/^\s*[^,\s]+(\s*,\s*[^,\s]+)*\s*$/, "a comma-separated list of host:port")
    .optional(),
  MAILROOM_DNS_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(300),
  MAILROOM_DNS_VALIDATES_DNSSEC: bool.default(false),
  MAILROOM_KEY_ENCRYPTION_KEY: z
    .string()
    .refine((v) => Buffer.from(v, "base64").length === 32, "must be 32 bytes, base64-encoded")
    .optional(),
  MAILROOM_KEY_ENCRYPTION_KEY_FILE: optionalPath,
  MAILROOM_ALLOW_UNVERIFIED_FROM: bool.default(false),
  MAILROOM_INBOUND_MX_HOST: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}\.?$/i, "a host name")
    .optional(),
  MAILROOM_SPF_MECHANISMS: z
    .string()
    .regex(
      /^\s*([+~?-]?(a|mx|ptr|(a|mx):\S+|ip4:\S+|ip6:\S+|include:\S+|exists:\S+)[\s,]*)+$/i,
      "SPF mechanisms separated by spaces or commas, e.g. include:_spf.relay.example ip4:203.0.113.7",
    )
    .optional(),
};

export function build(e: AreaEnv<typeof variables>) {
  return {
    dns: {
      servers: (e.MAILROOM_DNS_SERVERS ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
      cacheSeconds: e.MAILROOM_DNS_CACHE_SECONDS,
      /** The first of `servers` validates DNSSEC and sets the AD bit: direct delivery honours DANE. */
      validatesDnssec: e.MAILROOM_DNS_VALIDATES_DNSSEC,
    },
    keyEncryption: {
      key: e.MAILROOM_KEY_ENCRYPTION_KEY ? Buffer.from(e.MAILROOM_KEY_ENCRYPTION_KEY, "base64") : undefined,
      file: e.MAILROOM_KEY_ENCRYPTION_KEY_FILE,
    },
    sending: { allowUnverifiedFrom: e.MAILROOM_ALLOW_UNVERIFIED_FROM },
    /** What the DNS records of a new domain say (core/src/domains/records.ts). */
    dnsRecords: {
      // No MX record unless the operator names the receiver's public host name.
      mxHost: e.MAILROOM_INBOUND_MX_HOST?.replace(/\.$/, "").toLowerCase(),
      spfMechanisms: e.MAILROOM_SPF_MECHANISMS
        ? e.MAILROOM_SPF_MECHANISMS.split(/[\s,]+/).filter(Boolean)
        : undefined,
    },
  };
}
