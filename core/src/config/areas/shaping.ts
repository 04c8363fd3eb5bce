import { z } from "zod";
import type { AreaEnv } from "./kinds.ts";

/** How hard one destination (an MX host, or a provider group of them) may be driven by one worker process. */
export interface DestinationLimits {
  /** Sessions open at once (idle ones included), so also SMTP transactions in flight. */
  concurrency: number;
  /** Messages sent on one session before it is closed and a new one opened. */
  messagesPerConnection: number;
  /** Transactions started per minute; 0: no fixed rate (the adaptive backoff still applies). */
  ratePerMinute: number;
}

/** A provider group: every MX host under one of its suffixes is one destination with these limits. */
export interface ProviderGroup extends DestinationLimits {
  /** The destination's name in metrics and on the timeline (`other` is taken by ungrouped hosts). */
  name: string;
  /** MX host suffixes, as `google.com` or `*.google.com` (both: the name itself and every name under it). */
  mxSuffixes: readonly string[];
}

const concurrency = z.number().int().min(1).max(100);
const messagesPerConnection = z.number().int().min(1).max(10_000);
const ratePerMinute = z.number().min(0).max(1_000_000);
const SUFFIX = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const providerSchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/, "lower-case letters, digits, - and _, at most 32")
      .refine((name) => name !== "other", "`other` names the hosts of no group"),
    mxSuffixes: z.array(z.string().toLowerCase().regex(SUFFIX, "a host suffix such as *.google.com")).min(1),
    concurrency: concurrency.optional(),
    messagesPerConnection: messagesPerConnection.optional(),
    ratePerMinute: ratePerMinute.optional(),
  })
  .strict();

/** The groups of the largest mailbox providers, recognised by their MX hosts' names. */
const BUILT_IN_PROVIDERS: ReadonlyArray<z.infer<typeof providerSchema>> = [
  { name: "gmail", mxSuffixes: ["google.com", "googlemail.com"], concurrency: 10 },
  { name: "microsoft", mxSuffixes: ["protection.outlook.com"], concurrency: 10 },
  { name: "yahoo", mxSuffixes: ["yahoodns.net"], concurrency: 5, messagesPerConnection: 20 },
  { name: "apple", mxSuffixes: ["icloud.com"], concurrency: 5, messagesPerConnection: 50 },
];

const providerList = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: "JSON: a list of {name, mxSuffixes, …} objects" });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .array(providerSchema)
      .refine((groups) => new Set(groups.map((g) => g.name)).size === groups.length, "each name once"),
  )
  .optional();

/** Per-destination traffic shaping of direct delivery (issue 32 item 5, ADR 0059). */
export const variables = {
  // Named before destinations existed: today its sessions are per destination, which for an MX host in no
  // provider group is that host (ADR 0059).
  MAILROOM_DIRECT_MAX_CONNECTIONS_PER_DOMAIN: z.coerce.number().pipe(concurrency).default(5),
  MAILROOM_SHAPING_MESSAGES_PER_CONNECTION: z.coerce.number().pipe(messagesPerConnection).default(100),
  MAILROOM_SHAPING_RATE_PER_MINUTE: z.coerce.number().pipe(ratePerMinute).default(0),
  MAILROOM_SHAPING_PROVIDERS: providerList,
  MAILROOM_SHAPING_BACKOFF_SECONDS: z.coerce.number().min(1).max(3600).default(30),
  MAILROOM_SHAPING_BACKOFF_MAX_SECONDS: z.coerce.number().min(1).max(86_400).default(900),
  MAILROOM_SHAPING_MAX_WAIT_SECONDS: z.coerce.number().min(0).max(300).default(10),
};

export function build(e: AreaEnv<typeof variables>) {
  const defaults: DestinationLimits = {
    concurrency: e.MAILROOM_DIRECT_MAX_CONNECTIONS_PER_DOMAIN,
    messagesPerConnection: e.MAILROOM_SHAPING_MESSAGES_PER_CONNECTION,
    ratePerMinute: e.MAILROOM_SHAPING_RATE_PER_MINUTE,
  };
  const providers: ProviderGroup[] = (e.MAILROOM_SHAPING_PROVIDERS ?? BUILT_IN_PROVIDERS).map((group) => ({
    name: group.name,
    mxSuffixes: group.mxSuffixes.map((suffix) => suffix.replace(/^\*\./, "")),
    concurrency: group.concurrency ?? defaults.concurrency,
    messagesPerConnection: group.messagesPerConnection ?? defaults.messagesPerConnection,
    ratePerMinute: group.ratePerMinute ?? defaults.ratePerMinute,
  }));
  return {
    shaping: {
      /** The limits of an MX host in no provider group (each such host is a destination of its own). */
      defaults,
      providers,
      /** First pause after a rate-limit reply; each further one in a row doubles it, up to the maximum. */
      backoffSeconds: e.MAILROOM_SHAPING_BACKOFF_SECONDS,
      backoffMaxSeconds: Math.max(e.MAILROOM_SHAPING_BACKOFF_MAX_SECONDS, e.MAILROOM_SHAPING_BACKOFF_SECONDS),
      /** Longest a delivery waits for its destination's slot before it is deferred to the retry plan. */
      maxWaitSeconds: e.MAILROOM_SHAPING_MAX_WAIT_SECONDS,
    },
  };
}
