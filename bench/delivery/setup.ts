/**
 * What every phase of bench/delivery/main.ts shares: the run's context (its output, cleanup registry and
 * settings), the database set up for it (API key, verified domain, DKIM key) and the accept helpers that
 * queue the bench email through core's `acceptEmails`.
 */

import { setTimeout as sleep } from "node:timers/promises";
import { loadConfig } from "@mailroom/core/config";
import { type Pool, withTransaction } from "@mailroom/core/db";
import {
  createDomain,
  type DomainRecord,
  generateKek,
  loadSigningKeys,
  recordVerification,
} from "@mailroom/core/domains";
import { type AcceptRequest, acceptEmails } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { CATEGORY, DOMAIN, FROM, FROM_ADDRESS, HTML, recipient, SUBJECT, TEXT } from "./protocol.ts";
import type { StatementMeter } from "./statements.ts";

/** The run's settings, parsed once from the environment by bench/delivery/main.ts. */
export interface DeliverySettings {
  /** BENCH_DELIVERY_EMAILS: emails measured per side. */
  emails: number;
  warmup: number;
  /** Emails per accept transaction in the throughput phase. */
  batch: number;
  /** Emails/s offered in the latency phase, for `latencySeconds`. */
  rate: number;
  latencySeconds: number;
  /** Node flags for the worker and the baseline sender (a CPU profile when BENCH_CPU_PROF is set). */
  profileArgs: string[];
  /** BENCH_SERVER_LOGS: show the worker's log instead of discarding it. */
  serverLogs: boolean;
}

/** Handed to every phase explicitly, so no module keeps state of its own about the run. */
export interface DeliveryRun {
  say(line: string): void;
  /** Registers how to stop what was just started; steps run in reverse on success, error or Ctrl-C. */
  onCleanup(step: () => Promise<void>): void;
  settings: DeliverySettings;
  /** Per-statement Postgres timing of the Mailroom throughput phase (BENCH_PG_STATEMENTS=1). */
  statements?: StatementMeter;
}

/** CPU the Postgres server used so far, when it is ours to look at. */
export interface DbCpu {
  cpuMs(): number | undefined;
}

/** Postgres CPU from now on: `elapsed()` reads it, ms (undefined where the server's CPU cannot be read). */
export function postgresCpuMeter(db: DbCpu): { elapsed(): number | undefined } {
  const before = db.cpuMs();
  return {
    elapsed: () => {
      const after = db.cpuMs();
      return before !== undefined && after !== undefined ? after - before : undefined;
    },
  };
}

export const ACCOUNT = "bench-delivery";
/** The orchestrator's Postgres connections: accepts of the latency phase in flight at once. */
export const ACCEPT_POOL = 6;

export interface Setup {
  pool: Pool;
  account: string;
  apiKeyId: string;
  domain: DomainRecord;
  kek: Buffer;
  privateKeyPem: string;
  selector: string;
  hostname: string;
}

export async function setUp(pool: Pool, say: (line: string) => void): Promise<Setup> {
  const kek = generateKek();
  const { key } = await createKey(pool, {
    account: ACCOUNT,
    scopes: ["send"],
    expires: "never",
    name: "bench",
  });
  const created = await createDomain(pool, kek, { account: ACCOUNT, name: DOMAIN });
  // What a passing check against real DNS would record: every published record found as expected.
  const outcome = await recordVerification(
    pool,
    created.id,
    created.records.map((r) => ({
      purpose: r.purpose,
      name: r.name,
      required: r.required,
      status: "verified" as const,
      reason: null,
    })),
  );
  const domain = outcome?.domain;
  if (domain?.status !== "verified") throw new Error(`domain not verified: ${domain?.status}`);
  const [signing] = await loadSigningKeys(pool, kek, domain);
  const bits = signing?.privateKey.asymmetricKeyDetails?.modulusLength;
  if (signing?.algorithm !== "rsa" || bits !== 2048) {
    throw new Error(`expected an RSA-2048 DKIM key, got ${signing?.algorithm} ${bits}`);
  }
  say(`› domain ${domain.name} verified (DKIM selector ${signing.selector}, RSA-${bits})`);
  return {
    pool,
    account: ACCOUNT,
    apiKeyId: key.keyId,
    domain,
    kek,
    privateKeyPem: signing.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    selector: signing.selector,
    hostname: loadConfig(process.env).smtp.hostname,
  };
}

export const acceptItem = (setup: Setup, i: number): AcceptRequest => ({
  account: setup.account,
  apiKeyId: setup.apiKeyId,
  draft: {
    from: FROM,
    fromAddress: FROM_ADDRESS,
    to: [recipient(i)],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: SUBJECT,
    html: HTML,
    text: TEXT,
    category: CATEGORY,
    headers: {},
    attachments: [],
    tags: [],
  },
});

/** Accepts emails `from`…`from + count - 1` in transactions of `batch`; returns their Message-ID headers. */
export async function acceptBatches(
  setup: Setup,
  batch: number,
  from: number,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = from; start < from + count; start += batch) {
    const items = Array.from({ length: Math.min(batch, from + count - start) }, (_, k) =>
      acceptItem(setup, start + k),
    );
    const results = await withTransaction(setup.pool, (client) =>
      acceptEmails(client, { hostname: setup.hostname }, items),
    );
    for (const r of results) ids.push(`<${r.messageId}@${setup.hostname}>`);
  }
  return ids;
}

/** Waits until every email of `ids` (Message-ID headers) has its row `delivered`; describes the outcome. */
export async function checkRows(
  setup: Setup,
  messageIds: readonly string[],
): Promise<{ ok: boolean; text: string }> {
  const ids = messageIds.map((m) => m.slice(1, m.indexOf("@")));
  const deadline = performance.now() + 30_000;
  for (;;) {
    const { rows } = await setup.pool.query<{ status: string; n: number }>(
      "select status, count(*)::int as n from emails where id = any($1::uuid[]) group by status order by status",
      [ids],
    );
    const delivered = rows.find((r) => r.status === "delivered")?.n ?? 0;
    if (delivered === ids.length)
      return { ok: true, text: `✓ ${ids.length.toLocaleString("en-US")} delivered` };
    if (performance.now() > deadline) {
      return { ok: false, text: `✗ ${rows.map((r) => `${r.status} ${r.n}`).join(", ")} of ${ids.length}` };
    }
    await sleep(100);
  }
}
