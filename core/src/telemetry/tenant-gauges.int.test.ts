import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../test/support/db.ts";
import { pauseAccount } from "../accounts/pause.ts";
import { runReputationGuard } from "../reputation/guard.ts";
import { observeTenants } from "./tenant-gauges.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** Counters as the roll-up would have written them (this test is about the gauges' labels). */
async function counted(account: string, domain: string, sent: number, bounced: number, complained: number) {
  await db.pool.query("select mailroom_ensure_account($1)", [account]);
  await db.pool.query(
    `insert into reputation_counters (account, domain, hour, sent, delivered, bounced, complained)
     values ($1, $2, date_trunc('hour', now()), $3::int, $3::int - $4::int, $4::int, $5::int)`,
    [account, domain, sent, bounced, complained],
  );
}

const valuesOf = async (registry: Registry, name: string): Promise<Record<string, string | number>[]> =>
  ((await registry.getSingleMetric(name)?.get())?.values ?? []).map((v) => ({ ...v.labels, value: v.value }));

describe("per-tenant gauges (issue 31 item 5, issue 29 item 4)", () => {
  it("labels the busiest and paused accounts, sums the rest under `other`, and rates judged domains", async () => {
    await counted("big", "big.test", 1000, 10, 2);
    await counted("middle", "middle.test", 600, 0, 0);
    await counted("small", "small.test", 20, 1, 0);
    await counted("tiny", "tiny.test", 5, 0, 0);
    await pauseAccount(db.pool, "small", { reason: "test", by: "test", now: new Date() });
    await runReputationGuard(db.pool, { now: new Date(), settleSeconds: 0 });

    const registry = new Registry();
    observeTenants(registry, db.pool, { maxAccounts: 2, minIntervalMs: 0 });
    const sent = (await valuesOf(registry, "mailroom_account_emails_24h")).filter(
      (v) => v.outcome === "sent",
    );
    // Paused first (small), then by volume (big); middle and tiny are summed.
    expect(sent).toEqual([
      { account: "small", outcome: "sent", value: 20 },
      { account: "big", outcome: "sent", value: 1000 },
      { account: "other", outcome: "sent", value: 605 },
    ]);
    expect(await valuesOf(registry, "mailroom_account_paused")).toEqual([{ account: "small", value: 1 }]);
    // Only domains past the default minimum volume (500) get a rate.
    expect(await valuesOf(registry, "mailroom_domain_complaint_rate")).toEqual([
      { domain: "big.test", window: "24h", value: 0.002 },
      { domain: "big.test", window: "7d", value: 0.002 },
      { domain: "middle.test", window: "24h", value: 0 },
      { domain: "middle.test", window: "7d", value: 0 },
    ]);
    expect(
      (await valuesOf(registry, "mailroom_domain_bounce_rate")).find((v) => v.domain === "big.test"),
    ).toEqual({ domain: "big.test", window: "24h", value: 0.01 });
  });
});
