/**
 * The two tenants of bench/fairness/main.ts: the flood is bench/delivery's account (its verified domain and
 * RSA-2048 key), the quiet one a second account with a verified domain of its own under the same
 * key-encryption key, so the worker signs both as it would in production. Their accept items and the wait
 * for an account's emails to be recorded delivered live here too.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { applyAccountPolicy } from "@mailroom/core/accounts";
import { createDomain, type DomainRecord, recordVerification } from "@mailroom/core/domains";
import type { AcceptRequest } from "@mailroom/core/emails";
import { createKey } from "@mailroom/core/keys";
import { acceptItem as floodItem, type Setup } from "../delivery/setup.ts";

const QUIET_ACCOUNT = "bench-quiet";
const QUIET_DOMAIN = "quiet.bench";

export interface Tenants {
  setup: Setup;
  quiet: { account: string; apiKeyId: string; domain: DomainRecord };
  /** Both domains' records, for the independent DKIM check of a sample of either tenant's mail. */
  records: DomainRecord;
}

/** Adds the quiet tenant beside bench/delivery's account and gives the flood its per-second quota. */
export async function setUpTenants(setup: Setup, floodQuota: number): Promise<Tenants> {
  const { pool } = setup;
  await applyAccountPolicy(pool, setup.account, "bench/flood", { emailsPerSecond: floodQuota });
  const { key } = await createKey(pool, { account: QUIET_ACCOUNT, scopes: ["send"], expires: "never" });
  const created = await createDomain(pool, setup.kek, { account: QUIET_ACCOUNT, name: QUIET_DOMAIN });
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
  if (domain?.status !== "verified") throw new Error(`quiet domain not verified: ${domain?.status}`);
  return {
    setup,
    quiet: { account: QUIET_ACCOUNT, apiKeyId: key.keyId, domain },
    records: { ...setup.domain, records: [...setup.domain.records, ...domain.records] },
  };
}

export const floodAcceptItem = (tenants: Tenants, i: number): AcceptRequest => floodItem(tenants.setup, i);

/** The quiet tenant's email: one recipient, as an alert or a password reset would be. */
export function quietAcceptItem(tenants: Tenants, i: number): AcceptRequest {
  const item = floodItem(tenants.setup, i);
  const from = `alerts@${QUIET_DOMAIN}`;
  return {
    ...item,
    account: tenants.quiet.account,
    apiKeyId: tenants.quiet.apiKeyId,
    draft: { ...item.draft, from: `Quiet Alerts <${from}>`, fromAddress: from, subject: `Alert ${i}` },
  };
}

/** Waits until every email of `ids` is recorded delivered, or throws after `limitMs`. */
export async function waitDelivered(setup: Setup, ids: readonly string[], limitMs: number): Promise<void> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const { rows } = await setup.pool.query<{ n: number }>(
      "select count(*)::int as n from emails where id = any($1::uuid[]) and status = 'delivered'",
      [ids],
    );
    if ((rows[0]?.n ?? 0) === ids.length) return;
    if (performance.now() > deadline) {
      throw new Error(`${rows[0]?.n ?? 0}/${ids.length} emails delivered after ${limitMs / 1000} s`);
    }
    await sleep(200);
  }
}

/** Emails of `account` not yet handed over (queued, deferred or being sent). */
export async function unsentOf(setup: Setup, account: string): Promise<number> {
  const { rows } = await setup.pool.query<{ n: number }>(
    `select count(*)::int as n from emails
     where account = $1 and status in ('scheduled', 'queued', 'deferred', 'sending')`,
    [account],
  );
  return rows[0]?.n ?? 0;
}
